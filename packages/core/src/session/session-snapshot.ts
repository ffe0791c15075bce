import type { Episodic } from '../episodic/create-episodic.js';
import { baseMessages } from '../messages/snapshot-messages.js';
import {
  type EpisodeRunRange,
  SESSION_STATE_SCHEMA_VERSION,
  type SessionState,
} from '../schema/session-state.js';
import { markBuiltState } from '../store/built-state.js';

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
  'episode_runs',
] as const;

export interface SnapshotInput {
  readonly sessionId: string;
  readonly log: Episodic;
  readonly context: Readonly<Record<string, unknown>>;
  readonly revision: number;
  readonly updatedAt: string;
  /** Fields of the loaded snapshot to carry over (`run_id`, `invoke_seq`, `meta`, unknown fields). */
  readonly carried: Readonly<Record<string, unknown>>;
  /** The run of each range of the log's episodes (`episode_runs`), this commit's included. */
  readonly episodeRuns?: readonly EpisodeRunRange[];
}

/**
 * The whole `SessionState` (schema_version 2) of a committed log: seed 001's fields, the context,
 * the revision, every episode, and the seed 001 `messages` view of them (healed: no unpaired call,
 * no orphan tool message; see `snapshotMessages`). What a store writes as a session's base (a new
 * session, or a fold). Its fields are in the order `sessionStateSchema` gives a parsed state's,
 * so a store writes the same bytes whether or not it validated the state (see `markBuiltState`).
 */
export function buildSnapshot(input: SnapshotInput): SessionState {
  const episodes = input.log.read({ fromId: 0 });
  const { run_id, invoke_seq, meta, ...others } = input.carried;
  return markBuiltState({
    schema_version: SESSION_STATE_SCHEMA_VERSION,
    session_id: input.sessionId,
    updated_at: input.updatedAt,
    ...(run_id === undefined ? {} : { run_id: run_id as string }),
    ...(invoke_seq === undefined ? {} : { invoke_seq: invoke_seq as number }),
    messages: baseMessages(episodes),
    ...(meta === undefined ? {} : { meta: meta as Record<string, unknown> }),
    context: { ...input.context },
    episodes: episodes.slice(),
    revision: input.revision,
    ...(input.episodeRuns === undefined || input.episodeRuns.length === 0
      ? {}
      : { episode_runs: input.episodeRuns.slice() }),
    ...others,
  });
}

/** The fields of a loaded snapshot that the session does not write itself. */
export function carriedFields(state: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const carried: Record<string, unknown> = { ...state };
  for (const field of OWN_FIELDS) delete carried[field];
  return carried;
}
