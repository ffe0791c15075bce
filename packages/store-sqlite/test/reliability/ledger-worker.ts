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

/** Appends `count` events, each holding the word `needle` and a word of its own, in batches of 1-3. */
async function appendWords(count: number, writer: string): Promise<void> {
  for (let index = 0; index < count; ) {
    const size = Math.min(1 + (index % 3), count - index);
    await ledger.appendBatch(
      Array.from({ length: size }, (_, offset) => ({
        scope: 'search',
        session_id: `s${writer}`,
        agent_id: 'agent',
        type: 'conversation.user' as const,
        summary: `needle w${writer}x${index + offset}`,
      })),
    );
    index += size;
  }
  say('done');
}

/** Searches (so catches the index up) until `${filename}.stop` exists; says how many searches. */
async function searchLoop(): Promise<void> {
  const { existsSync } = await import('node:fs');
  let searches = 0;
  let found = 0;
  while (!existsSync(`${filename}.stop`)) {
    found = Math.max(
      found,
      (await ledger.search({ scope: 'search', text: 'needle', limit: 1 })).hits.length,
    );
    searches += 1;
  }
  say(`searches ${searches} ${found}`);
}

const main: Record<string, () => Promise<void>> = {
  'append-words': () => appendWords(Number(rest[0]), rest[1] ?? '0'),
  'search-loop': () => searchLoop(),
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
