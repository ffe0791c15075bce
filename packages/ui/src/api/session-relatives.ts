import { type Episode, loadSession, type SessionStore } from '@episodic/core';
import type { SessionRelative } from './api-types.js';

/** The episodes of a stored session, through `loadSession` (whatever form the snapshot has). */
export async function sessionEpisodes(
  sessions: SessionStore,
  sessionId: string,
): Promise<readonly Episode[]> {
  const session = await loadSession(sessions, sessionId);
  return session.log.read({ fromId: 0 });
}

/** Two episodes are the same when they are the same JSON: a fork copies its history as it is. */
const sameEpisode = (left: Episode | undefined, right: Episode | undefined) =>
  left !== undefined && right !== undefined && JSON.stringify(left) === JSON.stringify(right);

/**
 * Finds the sessions that share history with a session: forks of it, the session it was forked
 * from, and siblings forked from a common ancestor. A fork starts with a copy of the same episodes
 * (same ids, times and payloads), so sessions whose first episodes are identical share history,
 * up to the last episode both logs still agree on. Snapshots carry no link to their origin, so
 * every other snapshot is loaded once; the first episode of each is remembered by revision.
 */
export function createRelativesFinder(sessions: SessionStore) {
  const firsts = new Map<string, { revision: number; updatedAt: string; first: string | null }>();

  const firstOf = async (sessionId: string, revision: number, updatedAt: string) => {
    const known = firsts.get(sessionId);
    if (known !== undefined && known.revision === revision && known.updatedAt === updatedAt) {
      return known.first;
    }
    const session = await loadSession(sessions, sessionId).catch(() => null);
    // `read` with a limit keeps the newest episodes, so the first one is taken from a full read.
    const first = session === null ? null : (session.log.read({ fromId: 0 })[0] ?? null);
    const fingerprint = first === null ? null : JSON.stringify(first);
    firsts.set(sessionId, { revision, updatedAt, first: fingerprint });
    return fingerprint;
  };

  return {
    async find(sessionId: string, episodes: readonly Episode[]): Promise<SessionRelative[]> {
      const first = episodes[0];
      if (first === undefined) return [];
      const mine = JSON.stringify(first);
      const relatives: SessionRelative[] = [];
      for (const summary of await sessions.list()) {
        if (summary.sessionId === sessionId) continue;
        if ((await firstOf(summary.sessionId, summary.revision, summary.updatedAt)) !== mine)
          continue;
        const theirs = await sessionEpisodes(sessions, summary.sessionId).catch(() => null);
        if (theirs === null) continue;
        let shared = 0;
        while (
          shared < episodes.length &&
          shared < theirs.length &&
          sameEpisode(episodes[shared], theirs[shared])
        ) {
          shared++;
        }
        const sharedTo = (episodes[shared - 1] as Episode).id;
        relatives.push({
          session_id: summary.sessionId,
          shared_to_id: sharedTo,
          relation:
            shared === episodes.length && theirs.length > shared
              ? 'fork'
              : shared === theirs.length && episodes.length > shared
                ? 'parent'
                : 'sibling',
        });
      }
      return relatives;
    },
  };
}

export type RelativesFinder = ReturnType<typeof createRelativesFinder>;
