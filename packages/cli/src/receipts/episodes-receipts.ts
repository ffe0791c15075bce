import {
  LEDGER_EVENT_TYPES,
  ledgerDamagedRowSchema,
  ledgerEventSchema,
  metadataSchema,
  REDACTION_REPLACEMENTS,
} from '@episodic/core/schemas';
import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';
import { runRedactionSchema, sessionRedactionSchema } from './redaction-receipts.js';

const countByType = z.object(
  Object.fromEntries(
    LEDGER_EVENT_TYPES.map((type) => [type, z.number().int().nonnegative()]),
  ) as Record<(typeof LEDGER_EVENT_TYPES)[number], z.ZodNumber>,
);
const daysByType = z.object(
  Object.fromEntries(
    LEDGER_EVENT_TYPES.map((type) => [type, z.number().nonnegative().nullable()]),
  ) as Record<(typeof LEDGER_EVENT_TYPES)[number], z.ZodNullable<z.ZodNumber>>,
);

/** The scope part of read and maintenance receipts: the normalized scope, or null for every scope. */
const scopeShape = {
  /** The normalized scope (`"global"` with `--global`); null with `--all-scopes`. */
  scope: z.string().min(1).nullable(),
  /** True for `--all-scopes` (every scope). */
  all_scopes: z.boolean(),
  /**
   * The older name of `all_scopes` (the same value), kept for readers of v1 receipts. It is false
   * with `--global`, which is the one scope named global (`scope: "global"`).
   * @deprecated Read `all_scopes`.
   */
  global: z.boolean(),
};

/** `episodes append --json`. */
export const episodesAppendReceiptSchema = successReceiptSchema('episodic.episodes.append.v1', {
  /** True when this was a retry of an event already stored with the same id and content. */
  duplicate: z.boolean(),
  event: z.object({
    event_id: z.string().min(1),
    ts_ms: z.number().int().nonnegative(),
    scope: z.string().min(1),
    session_id: z.string().min(1),
    agent_id: z.string().min(1),
    type: z.enum(LEDGER_EVENT_TYPES),
    summary: z.string(),
    /** The event's 1-based place in its session (within its scope). */
    position: z.number().int().positive(),
    /** UTF-8 bytes of the stored payload (canonical JSON); 0 without one. */
    payload_bytes: z.number().int().nonnegative(),
    refs_bytes: z.number().int().nonnegative(),
    payload_present: z.boolean(),
    refs_present: z.boolean(),
    metadata: metadataSchema.optional(),
    redacted: z.boolean(),
    schema_version: z.string(),
    created_at: z.string(),
  }),
  caps: z.object({
    payload_cap_bytes: z.number().int().positive(),
    refs_cap_bytes: z.number().int().positive(),
  }),
});

/** `episodes query --json`. */
export const episodesQueryReceiptSchema = successReceiptSchema('episodic.episodes.query.v1', {
  ...scopeShape,
  filters: z.object({
    session_id: z.string().nullable(),
    from_ts_ms: z.number().int().nullable(),
    to_ts_ms: z.number().int().nullable(),
    /** The `--type` values, folded and deduplicated, in the order given. */
    types: z.array(z.enum(LEDGER_EVENT_TYPES)),
    limit: z.number().int().min(1).max(500),
    after_id: z.string().nullable(),
    include_payload: z.boolean(),
    /** The metadata filter built from `--metadata` and `--metadata-filter`, or null. */
    metadata: z.unknown().nullable(),
  }),
  count: z.number().int().nonnegative(),
  /** The events, oldest first; `payload` only with `--include-payload`. */
  events: z.array(ledgerEventSchema),
  /** Pass as `--after-id` for the next page; null on the last page. */
  next_after_id: z.string().nullable(),
  /** Rows of this page that could not be read (e.g. a payload another tool stored that is not JSON); only when there are any. */
  damaged: z.array(ledgerDamagedRowSchema).optional(),
  /** For a person: where the query looked when it found nothing, and which scopes hold events. */
  notes: z.array(z.string()),
});

/** `episodes replay --json`. */
export const episodesReplayReceiptSchema = successReceiptSchema('episodic.episodes.replay.v1', {
  ...scopeShape,
  session_id: z.string().min(1),
  count: z.number().int().nonnegative(),
  limit: z.number().int().min(1).max(500),
  after_id: z.string().nullable(),
  include_payload: z.boolean(),
  events: z.array(ledgerEventSchema),
  next_after_id: z.string().nullable(),
  damaged: z.array(ledgerDamagedRowSchema).optional(),
  notes: z.array(z.string()),
});

/** `episodes redact --json`. */
export const episodesRedactReceiptSchema = successReceiptSchema('episodic.episodes.redact.v1', {
  ...scopeShape,
  target: z.object({
    event_id: z.string().nullable(),
    session_id: z.string().nullable(),
    scope: z.string().nullable(),
  }),
  replacement: z.enum(REDACTION_REPLACEMENTS),
  /** True with `--dry-run`: nothing was redacted or scrubbed; `would_redact` lists what would be. */
  dry_run: z.boolean(),
  /** How many rows are now redacted (rows are kept); 0 with `dry_run`. */
  redacted_count: z.number().int().nonnegative(),
  /** With `dry_run` only: the events a real run would redact, per scope, and the stored runs and snapshots it would scrub. */
  would_redact: z
    .object({
      by_scope: z.array(
        z.object({ scope: z.string().min(1), events: z.number().int().nonnegative() }),
      ),
      runs: z.array(z.string()),
      sessions: z.array(z.string()),
    })
    .optional(),
  /** The stored runs and session snapshots the events came from, scrubbed first (`--runs`). */
  stored: z.object({
    mode: z.enum(['secrets', 'content', 'none']),
    runs: z.array(runRedactionSchema),
    sessions: z.array(sessionRedactionSchema),
  }),
});

/** `episodes gc --json`: aggregate counts only, never content. */
export const episodesGcReceiptSchema = successReceiptSchema('episodic.episodes.gc.v1', {
  ...scopeShape,
  dry_run: z.boolean(),
  now_ts_ms: z.number().int().nonnegative(),
  deleted_total: z.number().int().nonnegative(),
  /** A count for every type (what would be deleted, with `dry_run`). */
  deleted_by_type: countByType,
  /** The same counts per scope, in scope order: the one scope, or (`all_scopes`) every scope that held events. */
  by_scope: z.array(
    z.object({
      scope: z.string().min(1),
      deleted_total: z.number().int().nonnegative(),
      deleted_by_type: countByType,
    }),
  ),
  /** The retention applied, in days per type (null: kept forever). */
  policy_days: daysByType,
});
