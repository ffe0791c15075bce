import { createEpisodic, type Episodic } from '../episodic/create-episodic.js';
import { episodesToMessages } from '../messages/items-to-messages.js';
import { messagesToItems } from '../messages/messages-to-items.js';
import type { EpisodeSource } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { SESSION_STATE_SCHEMA_VERSION, type SessionState } from '../schema/session-state.js';

/** The snapshot fields a session writes itself; everything else in a loaded snapshot is kept. */
const OWN_FIELDS = [
  'schema_version',
  'session_id',
  'updated_at',
  'messages',
  'context',
  'episodic',
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

/** The `SessionState` for a committed log: seed 001's fields plus seed 000's context and JSONL. */
export function buildSnapshot(input: SnapshotInput): SessionState {
  return {
    ...input.carried,
    schema_version: SESSION_STATE_SCHEMA_VERSION,
    session_id: input.sessionId,
    updated_at: input.updatedAt,
    messages: episodesToMessages(input.log.read({ fromId: 0 })),
    context: { ...input.context },
    episodic: input.log.toJSONL(),
    revision: input.revision,
  };
}

/** The fields of a loaded snapshot that the session does not write itself. */
export function carriedFields(state: SessionState): Record<string, unknown> {
  const carried: Record<string, unknown> = { ...state };
  for (const field of OWN_FIELDS) delete carried[field];
  return carried;
}

function sourceOf(item: InputItem): EpisodeSource {
  if (item.type === 'function_call_output') return 'tool';
  if (item.type === 'message') {
    if (item.role === 'user') return 'user';
    if (item.role === 'assistant') return 'model';
    return 'runtime';
  }
  return 'model';
}

/**
 * The committed log of a snapshot: its `episodic` JSONL (damaged lines are skipped and reported by
 * one `error.parse` episode), or, for a seed 001 snapshot without one, its `messages` as items.
 */
export function restoreLog(state: SessionState, now: () => Date): Episodic {
  if (typeof state.episodic === 'string') return createEpisodic(state.episodic, { now });
  const log = createEpisodic(undefined, { now });
  for (const item of messagesToItems(state.messages)) {
    log.append({ type: 'item', meta: { source: sourceOf(item) }, payload: { item } });
  }
  return log;
}
