// Pins: "kill -9 during session commits and delta folding, 400× → the last acknowledged revision
// loads; 0 unreadable, 0 older, 0 mixed" (QUALITY.md reliability table). A real child process runs
// turns on one session (a delta per commit, a fold every 1–5 commits) and is killed at random;
// after each kill the session must load with a revision no older than the last acknowledged one,
// its log exactly the turns up to that revision. RELIABILITY_FULL=1 runs 400 kills.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { createSession, loadSession, type SessionStore } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { committedTurns, type SessionApi } from '../../../test-support/session-commit-steps.js';
import { count, randomInt, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const SESSION_ID = '3c4d5e6f-7081-4a2b-9c3d-4e5f60718293';
const api = { createSession, loadSession } as unknown as SessionApi<SessionStore>;

describe('kill -9 during session commits and folds (real processes)', () => {
  it('always loads the last acknowledged revision or a newer one, never a mix', async () => {
    const kills = count(30, 400);
    const directory = temporaryDirectory();
    const stateDirectory = join(directory.path, 'sessions', 'state');
    let lastAcked = 0;
    let newerThanAcked = 0;
    let foldsSeen = 0;
    let baseRevision = 0;
    try {
      for (let iteration = 0; iteration < kills; iteration++) {
        const child = spawnChild('session-committer', {
          root: directory.path,
          sessionId: SESSION_ID,
          foldEvery: 1 + (iteration % 5),
        });
        await child.waitForLine((line) => line.startsWith('ack '));
        await new Promise((resolve) => setTimeout(resolve, randomInt(0, 40)));
        child.process.kill('SIGKILL');
        const exit = await child.exited;
        expect(exit.signal, exit.stderr).toBe('SIGKILL');
        const acks = child.lines.filter((line) => line.startsWith('ack '));
        lastAcked = Math.max(lastAcked, Number(acks.at(-1)?.slice(4)));

        const store = createFsStore({ root: directory.path });
        try {
          expect(fs.readdirSync(stateDirectory).filter((name) => name.endsWith('.tmp'))).toEqual(
            [],
          );
          const loaded = await committedTurns(api, store.sessions, SESSION_ID);
          expect(loaded.problem).toBeUndefined();
          expect(loaded.consistent).toBe(true);
          expect(loaded.revision).toBeGreaterThanOrEqual(lastAcked);
          if (loaded.revision > lastAcked) newerThanAcked++;
          lastAcked = loaded.revision;
          const stored = await store.sessions.read(SESSION_ID);
          if ((stored?.baseRevision ?? 0) > baseRevision) foldsSeen++;
          baseRevision = stored?.baseRevision ?? 0;
        } finally {
          await store.close();
        }
      }
      // Folds really happened between kills (so kills also landed around them).
      expect(foldsSeen).toBeGreaterThan(kills / 4);
      console.log(
        `[figures] session kill -9 (fs): ${kills} kills during commits and folds, 0 unreadable, 0 older, 0 mixed; last revision ${lastAcked}; ${newerThanAcked} loads one commit past the last acknowledgement (written, killed before it was acknowledged); base moved by a fold between ${foldsSeen} kills`,
      );
    } finally {
      directory.remove();
    }
  }, 900_000);
});
