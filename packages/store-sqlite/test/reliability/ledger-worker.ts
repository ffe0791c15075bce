// A child process for the reliability tests: it drives the real SQLite store and reports each
// acknowledged operation as one line on stdout. Bundled by `build-worker.ts` before the tests run.
import { EpisodicError } from '@episodic/core';
import { ledgerWorkerSteps } from '../../../../test-support/ledger-worker-steps.js';
import { createSqliteStore } from '../../src/sqlite-store.js';

const [mode = '', filename = '', ...rest] = process.argv.slice(2);
const store = createSqliteStore({ filename });
const ledger = store.ledger;
const say = (line: string) => process.stdout.write(`${line}\n`);
const steps = ledgerWorkerSteps(ledger, say, (error) =>
  EpisodicError.isInstance(error) ? error.code : 'NOT_EPISODIC',
);

async function holdWriteLock(milliseconds: number): Promise<void> {
  const database = store.database;
  database.exec('BEGIN IMMEDIATE');
  say('locked');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
  database.exec('COMMIT');
  say('released');
}

const main: Record<string, () => Promise<void>> = {
  writers: () => steps.writers(Number(rest[0]), rest[1] ?? '0'),
  kill: () => steps.killLoop(Number(rest[0] ?? 20), rest[1] ?? 'k'),
  race: () => steps.race(Number(rest[0]), rest[1] ?? ''),
  crash: () => steps.appendThenCrash(rest[0] ?? 'retry-1', process.env.CRASH_AT === 'after-commit'),
  lock: () => holdWriteLock(Number(rest[0] ?? 1500)),
};
const run = main[mode];
if (run === undefined) throw new Error(`unknown mode ${mode}`);
await run();
await store.close();
