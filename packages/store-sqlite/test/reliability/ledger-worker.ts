// A child process for the reliability tests: it drives the real SQLite store and reports each
// acknowledged operation as one line on stdout. Bundled by `build-worker.ts` before the tests run.
import { EpisodicError } from '@episodic/core';
import { createSqliteStore } from '../../src/sqlite-store.js';

const [mode = '', filename = '', ...rest] = process.argv.slice(2);
const store = createSqliteStore({ filename });
const ledger = store.ledger;
const say = (line: string) => process.stdout.write(`${line}\n`);
const base = {
  scope: 'reliability',
  agent_id: `worker-${process.pid}`,
  type: 'ops.decision' as const,
};

async function writers(count: number, writer: string): Promise<void> {
  // Each append is a read-then-write transaction: read the session head, insert at head + 1.
  let busy = 0;
  for (let index = 0; index < count; index++) {
    try {
      await ledger.append({
        ...base,
        session_id: 'shared',
        summary: `${writer} #${index}`,
        event_id: `w${writer}-${index}`,
      });
    } catch (error) {
      busy++;
      say(`error ${(error as Error).message}`);
    }
  }
  say(`done ${busy}`);
}

async function killLoop(size: number, prefix: string): Promise<void> {
  say('ready');
  for (let batch = 0; ; batch++) {
    await ledger.appendBatch(
      Array.from({ length: size }, (_, index) => ({
        ...base,
        session_id: 'killed',
        event_id: `${prefix}-b${batch}-${index}`,
        summary: `batch ${batch} event ${index} ${'x'.repeat(200)}`,
      })),
    );
    say(`ack ${batch}`);
  }
}

async function race(count: number, goFile: string): Promise<void> {
  const { existsSync } = await import('node:fs');
  say('ready');
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 2));
  for (let round = 0; round < count; round++) {
    try {
      await ledger.append(
        {
          ...base,
          session_id: `race-${round}`,
          summary: `round ${round}`,
          event_id: `r${round}-${process.pid}`,
        },
        { expectedPosition: 0 },
      );
      say(`win ${round}`);
    } catch (error) {
      say(
        EpisodicError.hasCode(error, 'CONFLICT')
          ? `conflict ${round}`
          : `error ${round} ${(error as Error).message}`,
      );
    }
  }
}

async function appendThenCrash(eventId: string): Promise<void> {
  const receipt = await ledger.append({
    ...base,
    session_id: 'retry',
    event_id: eventId,
    summary: 'retried event',
    ts_ms: 1_767_225_600_000,
  });
  say(`committed ${receipt.event.created_at}`);
  // Named crash point: after the commit, before the caller could see an acknowledgement.
  if (process.env.CRASH_AT === 'after-commit') process.kill(process.pid, 'SIGKILL');
}

async function holdWriteLock(milliseconds: number): Promise<void> {
  const database = store.database;
  database.exec('BEGIN IMMEDIATE');
  say('locked');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
  database.exec('COMMIT');
  say('released');
}

const main: Record<string, () => Promise<void>> = {
  writers: () => writers(Number(rest[0]), rest[1] ?? '0'),
  kill: () => killLoop(Number(rest[0] ?? 20), rest[1] ?? 'k'),
  race: () => race(Number(rest[0]), rest[1] ?? ''),
  crash: () => appendThenCrash(rest[0] ?? 'retry-1'),
  lock: () => holdWriteLock(Number(rest[0] ?? 1500)),
};
const run = main[mode];
if (run === undefined) throw new Error(`unknown mode ${mode}`);
await run();
await store.close();
