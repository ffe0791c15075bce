import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

const storeKind = z.enum(['sqlite', 'fs']);
/** Why the store is the one read: `--store`, `EPISODIC_STORE`, the home's config, what it holds, or the default. */
export const storeSourceSchema = z.enum([
  'option',
  'environment',
  'home-config',
  'detected',
  'default',
]);
/**
 * Where a run stands: the `run.end` outcome (`completed`, `cancelled`, `error`, or a newer value),
 * else the last `run.status`, `error` after a final `run.error`, or `unfinished` (no end yet).
 */
const runStatus = z.string().min(1);
/** A run record as stored (seed 001): unknown fields and custom types are kept. */
const runRecord = z.looseObject({ type: z.string().min(1) });
/** A damaged line of a run. */
export const runDamageSchema = z.object({
  line: z.number().int().positive().optional(),
  byte_offset: z.number().int().nonnegative().optional(),
  message: z.string(),
  /** The start of the line, JSON-quoted. */
  excerpt: z.string(),
});

/** `runs list --json`. */
export const runsListReceiptSchema = successReceiptSchema('episodic.runs.list.v1', {
  store: storeKind,
  store_source: storeSourceSchema,
  filters: z.object({
    session_id: z.string().nullable(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    limit: z.number().int().positive().nullable(),
  }),
  count: z.number().int().nonnegative(),
  /** Newest first. */
  runs: z.array(
    z.object({
      run_id: z.string(),
      session_id: z.string().nullable(),
      started_at: z.string(),
      status: runStatus,
      /** The `run.end` time; null while unfinished. */
      ended_at: z.string().nullable(),
      schema_version: z.number().int(),
      best_effort: z.boolean(),
      model: z.looseObject({}).nullable(),
      /** The first user input (or task description) on one line, cut with `…`; null without one or when not read. */
      title: z.string().nullable(),
      /** Milliseconds from start to `run.end`; null while unfinished. */
      duration_ms: z.number().nonnegative().nullable(),
      /** Input tokens summed over the run's model responses; null when none reports usage or not read. */
      input_tokens: z.number().nonnegative().nullable(),
      /** Output tokens summed over the run's model responses; null when none reports usage or not read. */
      output_tokens: z.number().nonnegative().nullable(),
      /** Model responses the run recorded; null when the run was not read (beyond the newest 200). */
      model_responses: z.number().int().nonnegative().nullable(),
    }),
  ),
  /** One entry per run that could not be listed; it hides nothing else. */
  errors: z.array(
    z.object({ run_id: z.string().optional(), location: z.string(), message: z.string() }),
  ),
  /** For a person: where it looked when it found nothing, and what the other store holds. */
  notes: z.array(z.string()),
});

/** `runs show --json`. */
export const runsShowReceiptSchema = successReceiptSchema('episodic.runs.show.v1', {
  store: storeKind,
  run_id: z.string(),
  status: runStatus,
  ended_at: z.string().nullable(),
  header: z.looseObject({ type: z.literal('header') }).nullable(),
  /** True when a `run.end` record was read. */
  ended: z.boolean(),
  best_effort: z.boolean(),
  best_effort_reason: z.string().optional(),
  count: z.number().int().nonnegative(),
  records: z.array(runRecord),
  errors: z.array(runDamageSchema),
});

/** `runs replay --json`: seed 001 UI events. */
export const runsReplayReceiptSchema = successReceiptSchema('episodic.runs.replay.v1', {
  session_id: z.string().nullable(),
  run_ids: z.array(z.string()),
  /** True when older events or runs were left out. */
  truncated: z.boolean(),
  count: z.number().int().nonnegative(),
  events: z.array(
    z.looseObject({
      kind: z.enum(['user_message', 'agent_event']),
      run_id: z.string(),
      seq: z.number().int(),
      ts: z.string(),
    }),
  ),
});

/** `runs tail --json` (with `-f`, the first line of the stream). */
export const runsTailReceiptSchema = successReceiptSchema('episodic.runs.tail.v1', {
  store: storeKind,
  run_id: z.string(),
  /** True with `-f`: more lines follow, one per new record or damaged line. */
  following: z.boolean(),
  count: z.number().int().nonnegative(),
  records: z.array(runRecord),
  errors: z.array(runDamageSchema),
});

/** `runs tail -f --json`: one line per record appended after the first receipt. */
export const runsTailRecordLineSchema = z.object({
  kind: z.literal('episodic.runs.tail.record.v1'),
  ok: z.literal(true),
  run_id: z.string(),
  record: runRecord,
});

/** `runs tail -f --json`: one line per damaged line met while following. */
export const runsTailDamageLineSchema = z.object({
  kind: z.literal('episodic.runs.tail.damage.v1'),
  ok: z.literal(true),
  run_id: z.string(),
  damage: runDamageSchema,
});

/** `runs gc --json`: counts only, never content or run ids. */
export const runsGcReceiptSchema = successReceiptSchema('episodic.runs.gc.v1', {
  store: storeKind,
  /** The normalized scope; null with `--all-scopes`. Runs without a scope are in `default`. */
  scope: z.string().min(1).nullable(),
  /** True for `--all-scopes` (every scope). */
  all_scopes: z.boolean(),
  /** `--session-id`, lowercase; null when every session's runs were considered. */
  session_id: z.string().nullable(),
  dry_run: z.boolean(),
  now_ts_ms: z.number().int().nonnegative(),
  /** `--older-than`, in days. */
  older_than_days: z.number().nonnegative(),
  /** Runs whose last record is older than this instant (ms since the epoch) expire. */
  cutoff_ts_ms: z.number().int(),
  /** Runs deleted (what would be deleted, with `dry_run`). */
  deleted_total: z.number().int().nonnegative(),
  /** The same count per scope, in scope order (only scopes with runs deleted). */
  by_scope: z.array(
    z.object({ scope: z.string().min(1), deleted_total: z.number().int().nonnegative() }),
  ),
  /** Runs that could not be listed: kept, never deleted. */
  unreadable_total: z.number().int().nonnegative(),
});
