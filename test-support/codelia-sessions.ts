// Codelia's seed 001 snapshots (seed-data/codelia, written by Codelia's code) and the summaries
// Codelia's own session store lists for them: every session store must list and load them alike.
// Structural types, so this file needs no core import.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const CODELIA_DATA = fileURLToPath(new URL('./seed-data/codelia/', import.meta.url));

/** The folder of Codelia's snapshot files (`<session id>.json`). */
export const CODELIA_SNAPSHOTS = join(CODELIA_DATA, 'sessions', 'state');

/** The part of a session store these checks use. */
interface ListedSessions {
  list(): Promise<
    ReadonlyArray<{ sessionId: string; messageCount: number; lastUserMessage?: string }>
  >;
  load(sessionId: string): Promise<unknown>;
}

/** Codelia's snapshots, as its code wrote them (parsed), in file order. */
export function codeliaSnapshots<State>(): State[] {
  return readdirSync(CODELIA_SNAPSHOTS)
    .sort()
    .map((file) => JSON.parse(readFileSync(join(CODELIA_SNAPSHOTS, file), 'utf8')) as State);
}

/**
 * Checks that `sessions`, holding exactly Codelia's snapshots, lists each with the message count
 * and last_user_message Codelia's store reports, and loads each exactly as Codelia wrote it.
 */
export async function expectCodeliaSessions(sessions: ListedSessions): Promise<void> {
  const expected = JSON.parse(readFileSync(join(CODELIA_DATA, 'summaries.json'), 'utf8')) as Array<{
    session_id: string;
    message_count: number;
    last_user_message?: string;
  }>;
  const snapshots = new Map(
    codeliaSnapshots<{ session_id: string }>().map((state) => [state.session_id, state]),
  );
  const listed = await sessions.list();
  expect(listed).toHaveLength(expected.length);
  for (const summary of expected) {
    const mine = listed.find((entry) => entry.sessionId === summary.session_id);
    expect(mine, summary.session_id).toMatchObject({ messageCount: summary.message_count });
    expect(mine?.lastUserMessage, summary.session_id).toBe(summary.last_user_message);
    expect(await sessions.load(summary.session_id)).toEqual(snapshots.get(summary.session_id));
  }
}
