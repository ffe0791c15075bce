// A child process for the session kill -9 test: runs turns on one session in the SQLite store
// until killed, printing `ack <revision>` after each commit resolved. The store folds every
// `foldEvery` commits, so kills land in commits and in folds alike. Bundled by `build-worker.ts`.
import { createSession, loadSession, type SessionStore } from '@episodic/core';
import { commitForever, type SessionApi } from '../../../../test-support/session-commit-steps.js';
import { createSqliteStore } from '../../src/sqlite-store.js';

const [filename = '', sessionId = '', foldEvery = '3'] = process.argv.slice(2);
const store = createSqliteStore({
  filename,
  fold: { currentUpToBytes: 0, deltas: Number(foldEvery), minBytes: 0 },
});
await commitForever(
  { createSession, loadSession } as unknown as SessionApi<SessionStore>,
  store.sessions,
  sessionId,
  (line) => process.stdout.write(`${line}\n`),
);
