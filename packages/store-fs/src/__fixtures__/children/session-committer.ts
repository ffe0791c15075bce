// Child process for the session kill -9 test: runs turns on one session until killed, printing
// `ack <revision>` after each commit resolved. Its store folds every `foldEvery` commits, so kills
// land in commits and in folds alike.
import { createSession, loadSession, type SessionStore } from '@episodic/core';
import {
  commitForever,
  type SessionApi,
} from '../../../../../test-support/session-commit-steps.js';
import { createFsStore } from '../../index.js';

const { root, sessionId, foldEvery } = JSON.parse(process.argv[2] as string) as {
  root: string;
  sessionId: string;
  foldEvery: number;
};
const store = createFsStore({
  root,
  durability: 'run',
  fold: { currentUpToBytes: 0, deltas: foldEvery, minBytes: 0 },
});
await commitForever(
  { createSession, loadSession } as unknown as SessionApi<SessionStore>,
  store.sessions,
  sessionId,
  (line) => process.stdout.write(`${line}\n`),
);
