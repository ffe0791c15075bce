// Pins: "kill -9 during session commits and delta folding, 400× → the last acknowledged revision
// loads; 0 unreadable, 0 older, 0 mixed" (QUALITY.md reliability table). A real child process runs
// turns on one session (a delta per commit, a fold every 1–5 commits) and is killed at random;
// after each kill the session must load with a revision no older than the last acknowledged one,
// its log exactly the turns up to that revision. RELIABILITY_FULL=1 runs 400 kills.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { createSession, loadSession, type SessionStore } from '@episodic/core';
import { describe, expect, it } from 'vitest';
import { killCommitters } from '../../../test-support/session-commit-kills.js';
import type { SessionApi } from '../../../test-support/session-commit-steps.js';
import { count, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const SESSION_ID = '3c4d5e6f-7081-4a2b-9c3d-4e5f60718293';
const api = { createSession, loadSession } as unknown as SessionApi<SessionStore>;

describe('kill -9 during session commits and folds (real processes)', () => {
  it('always loads the last acknowledged revision or a newer one, never a mix', async () => {
    const kills = count(30, 400);
    const directory = temporaryDirectory();
    const stateDirectory = join(directory.path, 'sessions', 'state');
    try {
      const { lastRevision, foldsSeen, newerThanAcked } = await killCommitters({
        kills,
        api,
        sessionId: SESSION_ID,
        start(foldEvery) {
          const child = spawnChild('session-committer', {
            root: directory.path,
            sessionId: SESSION_ID,
            foldEvery,
          });
          return {
            child: child.process,
            lines: child.lines,
            exited: child.exited,
            waitFor: child.waitForLine,
          };
        },
        async inspect(round) {
          const store = createFsStore({ root: directory.path });
          try {
            // A killed commit leaves no temporary file behind in the state directory.
            expect(fs.readdirSync(stateDirectory).filter((name) => name.endsWith('.tmp'))).toEqual(
              [],
            );
            await round(store.sessions);
          } finally {
            await store.close();
          }
        },
      });
      console.log(
        `[figures] session kill -9 (fs): ${kills} kills during commits and folds, 0 unreadable, 0 older, 0 mixed; last revision ${lastRevision}; ${newerThanAcked} loads one commit past the last acknowledgement (written, killed before it was acknowledged); base moved by a fold between ${foldsSeen} kills`,
      );
    } finally {
      directory.remove();
    }
  }, 900_000);
});
