import * as z from 'zod';
import type { StoredValue } from './stored-value.js';

/**
 * The run records a LangGraph thread is kept as (custom seed 001 record types, so every Episodic
 * reader and `episodic runs show` reads them). One run per thread: its `header`, then one
 * `x.langgraph.checkpoint` per `put` and one `x.langgraph.writes` per `putWrites`, appended.
 */

/** The record type of a checkpoint. */
export const CHECKPOINT_RECORD_TYPE = 'x.langgraph.checkpoint';
/** The record type of the pending writes of one task. */
export const WRITES_RECORD_TYPE = 'x.langgraph.writes';

const storedValueSchema = z.union([
  z.looseObject({ type: z.string().min(1), json: z.unknown() }),
  z.looseObject({ type: z.string().min(1), text: z.string() }),
  z.looseObject({ type: z.string().min(1), base64: z.string() }),
]) as unknown as z.ZodType<StoredValue>;

/**
 * How a checkpoint holds one channel's value: `value`, the whole serialized value; `same`, the
 * value is held by the checkpoint record with that `key` (the channel did not change); `base` +
 * `append`, the value of the record `base` with `append` added at the end (array elements or
 * characters).
 */
export type ValueEntry =
  | { readonly value: StoredValue }
  | { readonly same: string }
  | { readonly base: string; readonly append: StoredValue };

const valueEntrySchema = z.union([
  z.looseObject({ value: storedValueSchema }),
  z.looseObject({ same: z.string().min(1) }),
  z.looseObject({ base: z.string().min(1), append: storedValueSchema }),
]) as unknown as z.ZodType<ValueEntry>;

export const checkpointRecordSchema = z.looseObject({
  type: z.literal(CHECKPOINT_RECORD_TYPE),
  run_id: z.string(),
  ts: z.string(),
  /** A one-line description for `episodic runs show`. */
  summary: z.string().optional(),
  /** Unique per record: what other records refer to. */
  key: z.string().min(1),
  thread_id: z.string(),
  checkpoint_ns: z.string(),
  checkpoint_id: z.string().min(1),
  parent_checkpoint_id: z.string().min(1).optional(),
  /** The checkpoint without `channel_values`, serialized. */
  checkpoint: storedValueSchema,
  /** The checkpoint's `channel_versions` (also in `checkpoint`), for finding a value by version. */
  channel_versions: z.record(z.string(), z.union([z.number(), z.string()])),
  metadata: storedValueSchema,
  /** Every channel of `channel_values`. */
  values: z.record(z.string(), valueEntrySchema),
});

export const writesRecordSchema = z.looseObject({
  type: z.literal(WRITES_RECORD_TYPE),
  run_id: z.string(),
  ts: z.string(),
  summary: z.string().optional(),
  thread_id: z.string(),
  checkpoint_ns: z.string(),
  checkpoint_id: z.string().min(1),
  task_id: z.string(),
  task_path: z.string(),
  writes: z.array(
    z.looseObject({ idx: z.number().int(), channel: z.string(), value: storedValueSchema }),
  ),
});

export type CheckpointRecord = z.infer<typeof checkpointRecordSchema>;
export type WritesRecord = z.infer<typeof writesRecordSchema>;
