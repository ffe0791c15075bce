import * as z from 'zod';
import { baseMessageSchema } from './base-message.js';
import { isoTimestampSchema } from './episode.js';

/**
 * The session state schema version this package writes: 2, a base snapshot plus deltas (see
 * `session-format.ts`). Version 1 snapshots (one JSON document with the log as JSONL in
 * `episodic`) and seed 001 snapshots (only `messages`) still load.
 */
export const SESSION_STATE_SCHEMA_VERSION = 2;

/**
 * The pattern of `uuidSchema`: a UUID of any version, lowercase or uppercase. Written without the
 * `i` flag, because JSON Schema (MCP tool inputs) has no flags: the advertised pattern must accept
 * exactly what the schema accepts.
 */
export const UUID_PATTERN =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A UUID of any version, lowercase or uppercase (seed 001 uses UUIDv4 for new ids). */
export const uuidSchema = z.string().regex(UUID_PATTERN, 'must be a UUID');

/**
 * The run that committed one range of a session's episodes (ids `first_id` to `last_id`, both
 * included): an element of a base's `episode_runs`.
 */
export interface EpisodeRunRange {
  [key: string]: unknown;
  run_id: string;
  first_id: number;
  last_id: number;
}

const episodeRunRangeSchema = z.looseObject({
  run_id: z.string(),
  first_id: z.number().int().positive(),
  last_id: z.number().int().positive(),
});

/**
 * A session state snapshot: seed 001's `SessionState` (for resume) joined with seed 000's
 * `context` and committed log, plus `revision`, which every commit increments and which stores
 * use for optimistic concurrency. The log is `episodes` (an array, version 2) or `episodic`
 * (JSONL, version 1); a seed 001 snapshot has only `messages`. Unknown fields are kept.
 */
export const sessionStateSchema = z.looseObject({
  /** `1` today; an unknown version is read best-effort. */
  schema_version: z.number().int().positive(),
  session_id: uuidSchema,
  updated_at: isoTimestampSchema,
  /** The last run that touched the session. */
  run_id: z.string().optional(),
  /** The last LLM invocation number; the next run continues from it. */
  invoke_seq: z.number().int().nonnegative().optional(),
  /** The conversation as chat messages (seed 001). */
  messages: z.array(baseMessageSchema),
  meta: z.record(z.string(), z.unknown()).optional(),
  /** The agent context (seed 000). */
  context: z.record(z.string(), z.unknown()).optional(),
  /** The committed episodic log as JSONL (seed 000; version 1 snapshots). */
  episodic: z.string().optional(),
  /** The committed episodic log, one episode per element (version 2 snapshots). */
  episodes: z.array(z.unknown()).optional(),
  /** Incremented by every commit; `save` with a stale expected revision fails with `CONFLICT`. */
  revision: z.number().int().nonnegative().optional(),
  /**
   * Which run committed which episodes (Episodic's; seed 001 readers ignore it): one range per
   * commit that named its run (`run_id`) and added episodes, in commit order, a commit of the
   * same run right after the previous one extending its range. Each delta's `run_id` and
   * `episodes` say the same for the commits since the base; a fold carries both over.
   */
  episode_runs: z.array(episodeRunRangeSchema).optional(),
});

export type SessionState = z.infer<typeof sessionStateSchema>;

/**
 * One commit of a session, appended after its base snapshot (version 2): the episodes it added to
 * the committed log (their ids continue the log's), what else it changed, and the revision it
 * made. Unknown fields are kept.
 */
export const sessionDeltaSchema = z.looseObject({
  /** The revision this commit made: the previous one + 1. */
  revision: z.number().int().positive(),
  updated_at: isoTimestampSchema,
  /** Episodes appended to the committed log, in order. */
  episodes: z.array(z.unknown()).optional(),
  /** The committed log was emptied (`clear()`) before `episodes` were appended. */
  reset: z.literal(true).optional(),
  /** The whole new context, when the commit changed it. */
  context: z.record(z.string(), z.unknown()).optional(),
  /** The run that made the commit (seed 001 `run_id`). */
  run_id: z.string().optional(),
  /** The last LLM invocation number after the commit (seed 001 `invoke_seq`). */
  invoke_seq: z.number().int().nonnegative().optional(),
});

export type SessionDelta = z.infer<typeof sessionDeltaSchema>;
