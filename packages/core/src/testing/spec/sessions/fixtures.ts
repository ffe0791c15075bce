// Fixed ids, snapshots and commits for the SessionStore tests.
import type { SessionState } from '../../../schema/session-state.js';
import type { SessionStore } from '../../../store/session-store.js';
import { messageEpisode, SESSION_TS, sessionBase } from '../../session-fixtures.js';

/** Session ids of the SessionStore tests. */
export const SESSION_1 = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
export const SESSION_2 = '7a2d3b5f-4c6e-4d8f-8a91-2b3c4d5e6f70';
export const SESSION_3 = '8b3e4c60-5d7f-4e90-9ba2-3c4d5e6f7081';

/** A version 1 snapshot of `sessionId` at `revision`. */
export function stateOf(
  sessionId: string,
  revision: number,
  updatedAt = '2026-02-03T12:00:00.000Z',
): SessionState {
  return {
    schema_version: 1,
    session_id: sessionId,
    updated_at: updatedAt,
    run_id: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
    invoke_seq: revision,
    messages: [
      { role: 'system', content: 'You are a coding assistant.' },
      { role: 'user', content: `message ${revision}` },
    ],
    revision,
  };
}

/**
 * Commits `count` turns of one episode each to `store`, starting from revision `from` with
 * `episodes` already in the log; returns the log after them.
 */
export async function commitTurns(
  store: SessionStore,
  sessionId: string,
  from: number,
  count: number,
  episodes: unknown[] = [],
  fold = false,
): Promise<unknown[]> {
  const log = [...episodes];
  for (let turn = 0; turn < count; turn++) {
    const revision = from + turn + 1;
    const episode = messageEpisode(log.length + 1, `turn ${revision}`);
    log.push(episode);
    const snapshot = [...log];
    await store.commit({
      sessionId,
      expectedRevision: revision === 1 ? null : revision - 1,
      delta: { revision, updated_at: SESSION_TS, episodes: [episode], run_id: `run-${revision}` },
      ...(revision === 1
        ? { state: sessionBase(sessionId, revision, snapshot, { run_id: `run-${revision}` }) }
        : {}),
      fold,
    });
  }
  return log;
}
