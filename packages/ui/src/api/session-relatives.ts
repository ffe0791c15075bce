import { createEpisodic, type Episode, type SessionStore, sessionEpisodes } from '@episodic/core';
import type { SessionRelative } from './api-types.js';
import { readSession } from './session-runs.js';

/** The episodes of a stored session (base and deltas), as `loadSession` restores them. */
export async function storedEpisodes(
  sessions: SessionStore,
  sessionId: string,
): Promise<readonly Episode[]> {
  return (await readSession(sessions, sessionId)).episodes;
}

/** Two episodes are the same when they are the same JSON: a fork copies its history as it is. */
const sameEpisode = (left: Episode | undefined, right: Episode | undefined) =>
  left !== undefined && right !== undefined && JSON.stringify(left) === JSON.stringify(right);

/**
 * Finds the sessions that share history with a session: forks of it, the session it was forked
 * from, and siblings forked from a common ancestor. A fork starts with a copy of the same episodes
 * (same ids, times and payloads), so sessions whose first episodes are identical share history,
 * up to the last episode both logs still agree on. Snapshots carry no link to their origin, so
 * every other session is read once (`SessionStore.read`) and only its first episode is restored;
 * it is remembered by revision. Only sessions with the same first episode are restored whole.
 */
export function createRelativesFinder(sessions: SessionStore) {
  const firsts = new Map<string, { revision: number; updatedAt: string; first: string | null }>();

  const firstOf = async (sessionId: string, revision: number, updatedAt: string) => {
    const known = firsts.get(sessionId);
    if (known !== undefined && known.revision === revision && known.updatedAt === updatedAt) {
      return known.first;
    }
    const stored = await sessions.read(sessionId).catch(() => null);
    let first: Episode | null = null;
    if (stored !== null) {
      const raw = sessionEpisodes(stored);
      // Restored as `loadSession` would (defaults, key order), from the first stored episode
      // alone; the whole log only when that one cannot be restored on its own.
      first =
        createEpisodic(raw.slice(0, 1)).read({ fromId: 0 })[0] ??
        createEpisodic(raw).read({ fromId: 0 })[0] ??
        null;
    }
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
        const theirs = await storedEpisodes(sessions, summary.sessionId).catch(() => null);
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
