// Child process for the disk-full reliability test. It runs on a tiny tmpfs mounted only for it
// (see `test-support/small-filesystem.ts`) and prints one JSON report: it fills the disk with run appends, then
// with ever larger snapshots, reads everything back with the real reader, frees space and appends
// again.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EpisodicError, type RunRecord } from '@episodic/core';
import { saveGrowingSnapshots } from '../../../../../test-support/disk-full-steps.js';
import { createFsStore } from '../../index.js';

interface Arguments {
  root: string;
  durability: 'none' | 'run' | 'always';
}

const argument = JSON.parse(process.argv[2] as string) as Arguments;
const RUN_ID = '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a';
const SESSION_ID = '6e5d4c3b-2a1f-4e0d-9c8b-7a6f5e4d3c2b';
const TS = '2026-03-04T05:06:07.000Z';

function failure(error: unknown) {
  return {
    episodic: EpisodicError.isInstance(error),
    code: (error as { code?: string }).code,
    backendCode: EpisodicError.isInstance(error) ? error.details.backendCode : undefined,
    message: (error as Error).message,
  };
}

const fillers = ['filler-a.bin', 'filler-b.bin'].map((name) => join(argument.root, name));
for (const filler of fillers) fs.writeFileSync(filler, Buffer.alloc(96 * 1024, 1));

const store = createFsStore({ root: argument.root, durability: argument.durability });
await store.runs.append(RUN_ID, [
  { type: 'header', schema_version: 1, run_id: RUN_ID, session_id: SESSION_ID, started_at: TS },
]);

// Phase 1: run appends until three of them have failed (smaller records after the first failure).
const acked: Array<{ index: number; length: number }> = [];
const appendFailures: ReturnType<typeof failure>[] = [];
let size = 24 * 1024;
for (let index = 0; index < 10_000 && appendFailures.length < 3; index++) {
  const length = Math.max(16, Math.floor(size * (0.5 + Math.random())));
  const record: RunRecord = {
    type: 'x.test.write',
    run_id: RUN_ID,
    ts: TS,
    index,
    pad: 'p'.repeat(length),
  };
  try {
    await store.runs.append(RUN_ID, [record]);
    acked.push({ index, length });
  } catch (error) {
    appendFailures.push(failure(error));
    size = Math.max(16, Math.floor(size / 8));
  }
}

const readBack = async () => {
  const read = await store.runs.read(RUN_ID);
  const writes = read.records.filter((record) => record.type === 'x.test.write');
  return {
    records: writes.map((record) => ({
      index: record.index as number,
      intact: (record.pad as string).length,
    })),
    errors: read.errors.length,
    header: read.header !== null,
  };
};
const whileFull = await readBack();
const listedWhileFull = await store.runs.list();

// Phase 2: free some room, then save ever larger snapshots until one fails.
fs.rmSync(fillers[0] as string);
const { savedRevision, failure: snapshotFailure } = await saveGrowingSnapshots(
  store.sessions,
  SESSION_ID,
  TS,
  failure,
);
const loaded = await store.sessions.load(SESSION_ID);
const stateDirectory = join(argument.root, 'sessions', 'state');
const leftovers = fs.existsSync(stateDirectory)
  ? fs.readdirSync(stateDirectory).filter((name) => name.endsWith('.tmp'))
  : [];

// Phase 3: free the rest; the store works again and nothing acknowledged was lost.
fs.rmSync(fillers[1] as string);
let recovered: ReturnType<typeof failure> | true;
try {
  await store.runs.append(RUN_ID, [{ type: 'x.test.marker', run_id: RUN_ID, ts: TS }]);
  recovered = true;
} catch (error) {
  recovered = failure(error);
}
const afterRecovery = await store.runs.read(RUN_ID);
await store.close();

process.stdout.write(
  `${JSON.stringify({
    acked,
    appendFailures,
    whileFull,
    listedWhileFull: { runs: listedWhileFull.runs.length, errors: listedWhileFull.errors.length },
    savedRevision,
    snapshotFailure,
    loadedRevision: loaded?.revision ?? null,
    loadedLength: (loaded?.messages[0]?.content as string | undefined)?.length ?? null,
    leftovers,
    recovered,
    lastRecord: afterRecovery.records.at(-1)?.type,
    afterRecovery: {
      writes: afterRecovery.records.filter((record) => record.type === 'x.test.write').length,
      errors: afterRecovery.errors.length,
    },
  })}\n`,
);
