import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

/** A pattern (or any artifact) as receipts show it; `key` as the scope sees it. */
const patternShape = z.object({
  key: z.string(),
  artifact_kind: z.string(),
  /** The pattern type (`tool_sequence`, …), or null for other artifacts. */
  type: z.string().nullable(),
  content: z.unknown(),
  /** The task episodes it was learned from (`task:<uuid>`). */
  episodes: z.array(z.string()),
  effective_metadata: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()]))),
  created_at: z.string(),
  updated_at: z.string(),
});

/** `patterns search --json`. */
export const patternsSearchReceiptSchema = successReceiptSchema('episodic.patterns.search.v1', {
  /** The scope searched: only patterns learned from its task episodes are returned. */
  scope: z.string(),
  /** The artifact kind searched (`pattern` unless `--kind` says otherwise). */
  artifact_kind: z.string(),
  filters: z.object({
    types: z.array(z.string()),
    /** `task:<uuid>` with `--task`, else null. */
    task: z.string().nullable(),
    metadata: z.unknown().nullable(),
    limit: z.number().int().min(1).max(500),
    after_key: z.string().nullable(),
    /** The `--query` text, or null without one. */
    query: z.string().nullable().optional(),
  }),
  count: z.number().int().nonnegative(),
  /** Matching artifacts in key order; with `--query`, best match first. */
  patterns: z.array(
    patternShape.extend({
      /** With `--query`: how well it matches (higher is better, within this search). */
      score: z.number().optional(),
      /** With `--query`: its text around the matches, matched words between « and ». */
      snippet: z.string().optional(),
    }),
  ),
  /** Pass as `--after-key` for the next page; null when there is none. */
  next_key: z.string().nullable(),
  /** For a person: where it looked when nothing matched, and which scopes hold some. */
  notes: z.array(z.string()),
});

/** `patterns show --json`: one artifact of the scope. */
export const patternsShowReceiptSchema = successReceiptSchema('episodic.patterns.show.v1', {
  scope: z.string(),
  pattern: patternShape,
});
