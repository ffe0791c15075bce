import type { Episodic } from '../episodic/create-episodic.js';
import { snapshotMessages } from '../messages/snapshot-messages.js';
import { SESSION_STATE_SCHEMA_VERSION, type SessionState } from '../schema/session-state.js';

/** The snapshot fields a session writes itself; everything else in a loaded snapshot is kept. */
const OWN_FIELDS = [
  'schema_version',
  'session_id',
  'updated_at',
  'messages',
  'context',
  'episodic',
  'episodes',
  'episode_count',
  'message_count',
  'revision',
] as const;

export interface SnapshotInput {
  readonly sessionId: string;
  readonly log: Episodic;
  readonly context: Readonly<Record<string, unknown>>;
  readonly revision: number;
  readonly updatedAt: string;
  /** Fields of the loaded snapshot to carry over (`run_id`, `invoke_seq`, `meta`, unknown fields). */
  readonly carried: Readonly<Record<string, unknown>>;
}

/**
 * The whole `SessionState` (schema_version 2) of a committed log: seed 001's fields, the context,
 * the revision, every episode, and the seed 001 `messages` view of them (healed: no unpaired call,
 * no orphan tool message; see `snapshotMessages`). What a store writes as a session's base (a new
 * session, or a fold).
 */
export function buildSnapshot(input: SnapshotInput): SessionState {
  const episodes = input.log.read({ fromId: 0 });
  return {
    ...input.carried,
    schema_version: SESSION_STATE_SCHEMA_VERSION,
    session_id: input.sessionId,
    updated_at: input.updatedAt,
    context: { ...input.context },
    revision: input.revision,
    episodes: episodes.slice(),
    messages: snapshotMessages(episodes),
  };
}

/** The fields of a loaded snapshot that the session does not write itself. */
export function carriedFields(state: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const carried: Record<string, unknown> = { ...state };
  for (const field of OWN_FIELDS) delete carried[field];
  return carried;
}
