import type { SessionState } from '../schema/session-state.js';

/** A fixed time for the session conformance cases. */
export const SESSION_TS = '2026-02-03T12:00:00.000Z';

/** A user message episode with id `id`, as stored in a session's log. */
export function messageEpisode(id: number, text: string) {
  return {
    id,
    type: 'item' as const,
    meta: { source: 'user' as const, ts: SESSION_TS },
    payload: { item: { type: 'message', role: 'user', content: text } },
  };
}

/** The whole state (schema_version 2) of a session whose log is `episodes`. */
export function sessionBase(
  sessionId: string,
  revision: number,
  episodes: readonly unknown[],
  extra: Record<string, unknown> = {},
): SessionState {
  return {
    schema_version: 2,
    session_id: sessionId,
    updated_at: SESSION_TS,
    context: {},
    ...extra,
    revision,
    episodes: [...episodes],
    messages: [],
  };
}
