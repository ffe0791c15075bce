import { createEpisodic, type Episodic } from '../episodic/create-episodic.js';
import { messagesToItemGroups } from '../messages/messages-to-items.js';
import { type EpisodeSource, isoTimestampSchema } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { SESSION_STATE_SCHEMA_VERSION, type SessionState } from '../schema/session-state.js';
import { snapshotMessages } from './snapshot-messages.js';

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
    messages: snapshotMessages(input.log.read({ fromId: 0 })),
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
 * one `error.parse` episode), or, for a seed 001 snapshot without one, its `messages` as items. The
 * items keep every field of their messages (`messagesToItems`), and an episode gets its message's
 * `message_ts` as its time when that is an ISO-8601 UTC time (none otherwise), so the next commit
 * writes the same messages back.
 */
export function restoreLog(state: SessionState, now: () => Date): Episodic {
  if (typeof state.episodic === 'string') return createEpisodic(state.episodic, { now });
  const episodes: unknown[] = [];
  messagesToItemGroups(state.messages).forEach((items, index) => {
    const time = state.messages[index]?.message_ts;
    const ts = isoTimestampSchema.safeParse(time).success ? { ts: time } : {};
    for (const item of items) {
      episodes.push({
        id: episodes.length + 1,
        type: 'item',
        meta: { source: sourceOf(item), ...ts },
        payload: { item },
      });
    }
  });
  return createEpisodic(episodes, { now });
}
