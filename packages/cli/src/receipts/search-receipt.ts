import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';
import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

/** `search TEXT --json`: one page of hits, best first. */
export const searchReceiptSchema = successReceiptSchema('episodic.search.v1', {
  /** The normalized scope (`"global"` with `--global`); null with `--all-scopes`. */
  scope: z.string().min(1).nullable(),
  /** True for `--all-scopes` (every scope). */
  all_scopes: z.boolean(),
  /**
   * The older name of `all_scopes`, as in the other ledger receipts.
   * @deprecated Read `all_scopes`.
   */
  global: z.boolean(),
  /** The TEXT searched for, as given. */
  query: z.string().min(1),
  filters: z.object({
    session_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    /** The `--type` values, folded and deduplicated, in the order given. */
    types: z.array(z.enum(LEDGER_EVENT_TYPES)),
    from_ts_ms: z.number().int().nullable(),
    to_ts_ms: z.number().int().nullable(),
    /** The metadata filter built from `--metadata` and `--metadata-filter`, or null. */
    metadata: z.unknown().nullable(),
    limit: z.number().int().min(1).max(100),
    /** The `--cursor` this page continues from, or null for the first page. */
    cursor: z.string().nullable(),
  }),
  count: z.number().int().nonnegative(),
  hits: z.array(
    z.object({
      event_id: z.string().min(1),
      session_id: z.string().min(1),
      agent_id: z.string().min(1),
      type: z.enum(LEDGER_EVENT_TYPES),
      ts_ms: z.number().int(),
      /** Higher is better; comparable within one search only. */
      score: z.number(),
      /** Text around the matches, each matched word between `«` and `»`, cuts as `…`. */
      snippet: z.string(),
    }),
  ),
  /** Pass as `--cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
  /** Why nothing was found, when nothing was. */
  notes: z.array(z.string()),
});

/** `search TEXT --runs --json`: one page of run records, best first. */
export const searchRunsReceiptSchema = successReceiptSchema('episodic.search.v1', {
  /** Always true: the hits are run records (runs are not scoped). */
  runs: z.literal(true),
  /** The TEXT searched for, as given. */
  query: z.string().min(1),
  filters: z.object({
    /** The `--run` id (a prefix resolved to the whole id), or null. */
    run_id: z.string().nullable(),
    /** The `--session-id` the runs' headers must name, or null. */
    session_id: z.string().nullable(),
    /** The `--type` record types, deduplicated, in the order given. */
    types: z.array(z.string().min(1)),
    from_ts_ms: z.number().int().nullable(),
    to_ts_ms: z.number().int().nullable(),
    limit: z.number().int().min(1).max(100),
    /** The `--cursor` this page continues from, or null for the first page. */
    cursor: z.string().nullable(),
  }),
  count: z.number().int().nonnegative(),
  hits: z.array(
    z.object({
      run_id: z.string().min(1),
      /** The record's place in its run (the header is 1), as `runs show` numbers lines. */
      position: z.number().int().min(1),
      /** The record's type (`tool.output`, `agent.event`…). */
      type: z.string(),
      /** The record's time (ISO 8601 UTC), or null when it has none. */
      ts: z.string().nullable(),
      /** Higher is better; comparable within one search only. */
      score: z.number(),
      /** Text around the matches, each matched word between `«` and `»`, cuts as `…`. */
      snippet: z.string(),
    }),
  ),
  /** Pass as `--cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
  /** Why nothing was found, when nothing was. */
  notes: z.array(z.string()),
});
