// Guarantee: "kill -9 during session commits and delta folding → the last acknowledged revision
// loads; 0 unreadable, 0 older, 0 mixed" (QUALITY.md reliability table), in the SQLite store: a
// real child process runs turns on one session (a delta row per commit, a fold every 1–5 commits)
// and is killed at random. RELIABILITY_FULL=1 runs 400 kills.

import { createSession, loadSession, type SessionStore } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { killCommitters } from '../../../../test-support/session-commit-kills.js';
import type { SessionApi } from '../../../../test-support/session-commit-steps.js';
import { FULL } from '../../../../test-support/worker-process.js';
import { createSqliteStore } from '../../src/sqlite-store.js';
import { useWorker } from './build-worker.js';

const KILLS = FULL ? 400 : 30;
const SESSION_ID = '4d5e6f70-8192-4b3c-8d4e-5f6071829304';
const api = { createSession, loadSession } as unknown as SessionApi<SessionStore>;
const workers = useWorker('session-committer');

describe('session committer killed mid-commit and mid-fold', () => {
  it(`survives ${KILLS} kills: the last acknowledged revision or a newer one loads, never a mix`, async () => {
    const filename = `${workers.directory}/sessions.db`;
    const { lastRevision, foldsSeen } = await killCommitters({
      kills: KILLS,
      api,
      sessionId: SESSION_ID,
      start: (foldEvery) => workers.start([filename, SESSION_ID, String(foldEvery)]),
      async inspect(round) {
        const store = createSqliteStore({ filename });
        try {
          expect(store.database.pragma('quick_check', { simple: true })).toBe('ok');
          await round(store.sessions);
        } finally {
          await store.close();
        }
      },
    });
    console.log(
      `[figures] session kill -9 (sqlite): ${KILLS} kills during commits and folds, integrity ok, 0 unreadable, 0 older, 0 mixed; last revision ${lastRevision}; base moved by a fold between ${foldsSeen} kills`,
    );
  }, 900_000);
});
