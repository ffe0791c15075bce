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

/** The run id of a writer's `index`-th run. */
function runIdOf(writer: string, index: number): string {
  return `0f0e0d0c-0b0a-4908-8706-${Number(writer).toString(16)}${index.toString(16).padStart(11, '0')}`;
}

/**
 * Appends `count` runs, each a header and a tool output holding `needle` and a word of its own;
 * every fifth run is indexed and deleted right after (its rowids are the highest: SQLite hands them
 * out again).
 */
async function appendRunWords(count: number, writer: string): Promise<void> {
  const ts = '2026-02-03T12:00:00.000Z';
  for (let index = 0; index < count; index++) {
    const runId = runIdOf(writer, index);
    await store.runs.append(runId, [
      { type: 'header', schema_version: 1, run_id: runId, started_at: ts },
      {
        type: 'tool.output',
        run_id: runId,
        ts,
        tool: 'cat',
        tool_call_id: 'c',
        result_raw: `needle w${writer}x${index}`,
      },
    ]);
    if (index % 5 === 4) {
      // Indexed first (the mark passes its rows), then deleted: the next append reuses rowids
      // at or below the mark unless another writer's rows came in between.
      await store.runs.search({ text: `w${writer}x${index}` });
      await store.runs.delete(runId);
    }
  }
  say('done');
}

/** Searches runs (so catches their index up) until `${filename}.stop` exists. */
async function runSearchLoop(): Promise<void> {
  const { existsSync } = await import('node:fs');
  let searches = 0;
  let found = 0;
  while (!existsSync(`${filename}.stop`)) {
    found = Math.max(found, (await store.runs.search({ text: 'needle', limit: 1 })).hits.length);
    searches += 1;
  }
  say(`searches ${searches} ${found}`);
}

const main: Record<string, () => Promise<void>> = {
  'append-run-words': () => appendRunWords(Number(rest[0]), rest[1] ?? '0'),
  'run-search-loop': () => runSearchLoop(),
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
