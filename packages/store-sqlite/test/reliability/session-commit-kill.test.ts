// Guarantee: "kill -9 during session commits and delta folding → the last acknowledged revision
// loads; 0 unreadable, 0 older, 0 mixed" (QUALITY.md reliability table), in the SQLite store: a
// real child process runs turns on one session (a delta row per commit, a fold every 1–5 commits)
// and is killed at random. RELIABILITY_FULL=1 runs 400 kills.

import { createSession, loadSession, type SessionStore } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedTurns, type SessionApi } from '../../../../test-support/session-commit-steps.js';
import { FULL, startWorker, temporaryDirectory } from '../../../../test-support/worker-process.js';
import { createSqliteStore } from '../../src/sqlite-store.js';
import { buildWorker } from './build-worker.js';

const KILLS = FULL ? 400 : 30;
const SESSION_ID = '4d5e6f70-8192-4b3c-8d4e-5f6071829304';
const api = { createSession, loadSession } as unknown as SessionApi<SessionStore>;
let worker = '';
const directory = temporaryDirectory();
beforeAll(async () => {
  worker = await buildWorker('session-committer');
}, 300_000);
afterAll(() => directory.remove());

describe('session committer killed mid-commit and mid-fold', () => {
  it(`survives ${KILLS} kills: the last acknowledged revision or a newer one loads, never a mix`, async () => {
    const filename = `${directory.path}/sessions.db`;
    let lastAcked = 0;
    let foldsSeen = 0;
    let baseRevision = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const child = startWorker(worker, [filename, SESSION_ID, String(1 + (kill % 5))]);
      await child.waitFor((line) => line.startsWith('ack '));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
      child.child.kill('SIGKILL');
      const { signal } = await child.exited;
      expect(signal).toBe('SIGKILL');
      const acks = child.lines.filter((line) => line.startsWith('ack '));
      lastAcked = Math.max(lastAcked, Number(acks.at(-1)?.slice(4)));

      const store = createSqliteStore({ filename });
      try {
        expect(store.database.pragma('quick_check', { simple: true })).toBe('ok');
        const loaded = await committedTurns(api, store.sessions, SESSION_ID);
        expect(loaded.problem).toBeUndefined();
        expect(loaded.consistent).toBe(true);
        expect(loaded.revision).toBeGreaterThanOrEqual(lastAcked);
        lastAcked = loaded.revision;
        const stored = await store.sessions.read(SESSION_ID);
        if ((stored?.baseRevision ?? 0) > baseRevision) foldsSeen++;
        baseRevision = stored?.baseRevision ?? 0;
      } finally {
        await store.close();
      }
    }
    expect(foldsSeen).toBeGreaterThan(KILLS / 4);
    console.log(
      `[figures] session kill -9 (sqlite): ${KILLS} kills during commits and folds, integrity ok, 0 unreadable, 0 older, 0 mixed; last revision ${lastAcked}; base moved by a fold between ${foldsSeen} kills`,
    );
  }, 900_000);
});
