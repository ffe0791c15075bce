// Session summaries carry seed 001's last_user_message, exactly as Codelia's own session store
// lists it for the same snapshots (test-support/seed-data/codelia, written by Codelia's code).
import type { SessionState } from '@episodic/core';
import { describe, it } from 'vitest';
import { codeliaSnapshots, expectCodeliaSessions } from '../../../test-support/codelia-sessions.js';
import { createSqliteStore } from './sqlite-store.js';

describe('sessions list on SQLite', () => {
  it("lists Codelia's snapshots with its last_user_message and loads them exactly as saved", async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    for (const state of codeliaSnapshots<SessionState>()) await store.sessions.save(state);
    await expectCodeliaSessions(store.sessions);
    await store.close();
  });
});
