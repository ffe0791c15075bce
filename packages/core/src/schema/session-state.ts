import * as z from 'zod';
import { baseMessageSchema } from './base-message.js';
import { isoTimestampSchema } from './episode.js';

/** The session state schema version this package writes. */
export const SESSION_STATE_SCHEMA_VERSION = 1;

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
 * A session state snapshot: seed 001's `SessionState` (for resume) joined with seed 000's
 * `{ context, episodic }` (the committed log as JSONL), plus `revision`, which every commit
 * increments and which stores use for optimistic concurrency. Unknown fields are kept.
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
  /** The committed episodic log as JSONL (seed 000). */
  episodic: z.string().optional(),
  /** Incremented by every commit; `save` with a stale expected revision fails with `CONFLICT`. */
  revision: z.number().int().nonnegative().optional(),
});

export type SessionState = z.infer<typeof sessionStateSchema>;
