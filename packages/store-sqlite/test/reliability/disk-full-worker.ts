// A child process for the disk-full reliability test. It runs on a tiny tmpfs mounted only for it
// (see `test-support/small-filesystem.ts`) and prints one JSON report: it fills the disk through the ledger,
// the run store and the session store of one SQLite database, checks what is stored while the disk
// is full, frees space, writes again, and reopens the database. Bundled by the test before it runs.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { saveGrowingSnapshots } from '../../../../test-support/disk-full-steps.js';
import { createSqliteStore } from '../../src/sqlite-store.js';

const [root = '', synchronous = 'NORMAL'] = process.argv.slice(2);
const filename = join(root, 'episodic.db');
const RUN_ID = '7f6e5d4c-3b2a-4f1e-8d0c-9b8a7f6e5d4c';
const SESSION_ID = '8a7f6e5d-4c3b-4a2f-9e1d-0c9b8a7f6e5d';
const TS = '2026-03-04T05:06:07.000Z';

function failure(error: unknown) {
  return {
    episodic: EpisodicError.isInstance(error),
    code: (error as { code?: string }).code,
    backendCode: EpisodicError.isInstance(error) ? error.details.backendCode : undefined,
    message: (error as Error).message,
  };
}

// Space set aside now and freed between the phases, so each phase starts with room and ends full.
const fillers = ['filler-a.bin', 'filler-b.bin', 'filler-c.bin'].map((name) => join(root, name));
for (const filler of fillers) fs.writeFileSync(filler, Buffer.alloc(96 * 1024, 1));
const store = createSqliteStore({ filename, synchronous: synchronous as 'NORMAL' | 'FULL' });

// Phase 1: ledger batches until three have failed (smaller batches after the first failure).
const ackedBatches: Array<{ batch: number; size: number }> = [];
const ledgerFailures: ReturnType<typeof failure>[] = [];
let size = 10;
for (let batch = 0; batch < 5_000 && ledgerFailures.length < 3; batch++) {
  const events = Array.from({ length: size }, (_, index) => ({
    scope: 'disk',
    session_id: 'full',
    agent_id: 'writer',
    type: 'ops.decision' as const,
    event_id: `b${batch}-${index}`,
    summary: `batch ${batch} event ${index}`,
    payload: { text: `${'lorem ipsum dolor sit amet '.repeat(70)}${batch}-${index}` },
  }));
  try {
    await store.ledger.appendBatch(events);
    ackedBatches.push({ batch, size });
  } catch (error) {
    ledgerFailures.push(failure(error));
    size = 1;
  }
}

// Phase 2: free one filler, then run records until one does not fit.
fs.rmSync(fillers[0] as string);
let runAcked = 0;
let runFailure: ReturnType<typeof failure> | undefined;
try {
  await store.runs.append(RUN_ID, [
    { type: 'header', schema_version: 1, run_id: RUN_ID, started_at: TS },
  ]);
  runAcked = 1;
  for (let index = 0; index < 5_000; index++) {
    await store.runs.append(RUN_ID, [
      { type: 'x.test.write', run_id: RUN_ID, ts: TS, index, pad: 'r'.repeat(4096) },
    ]);
    runAcked++;
  }
} catch (error) {
  runFailure = failure(error);
}

const countOf = (sql: string, ...parameters: unknown[]) =>
  store.database
    .prepare(sql)
    .pluck()
    .get(...parameters) as number;
const checkLedger = () => {
  const sizes = store.database
    .prepare(
      "SELECT substr(event_id, 1, instr(event_id, '-') - 1) AS batch, count(*) AS n FROM episodic_events GROUP BY batch",
    )
    .all() as Array<{ batch: string; n: number }>;
  const stored = new Map(sizes.map((row) => [row.batch, row.n]));
  return {
    lost: ackedBatches.filter((acked) => stored.get(`b${acked.batch}`) !== acked.size).length,
    partialOrUnacked: [...stored.keys()].filter(
      (batch) => !ackedBatches.some((acked) => `b${acked.batch}` === batch),
    ).length,
    rows: countOf('SELECT count(*) FROM episodic_events'),
  };
};
const readLedger = async () => {
  let events = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await store.ledger.query({
      scope: 'disk',
      limit: 500,
      ...(afterId === undefined ? {} : { afterId }),
    });
    events += page.events.length;
    if (page.next_after_id === null) return events;
    afterId = page.next_after_id;
  }
};
// Phase 1 and 2 checked while the disk is full.
const whileFull = {
  ledger: checkLedger(),
  queried: await readLedger(),
  quickCheck: store.database.pragma('quick_check', { simple: true }),
  runRecords: (await store.runs.read(RUN_ID).catch(() => ({ records: [] }))).records.length,
};

// Phase 3: free another filler, then snapshots until one does not fit.
fs.rmSync(fillers[1] as string);
const { savedRevision, failure: snapshotFailure } = await saveGrowingSnapshots(
  store.sessions,
  SESSION_ID,
  TS,
  failure,
);
const loadedRevision = (await store.sessions.load(SESSION_ID))?.revision ?? null;

// Phase 4: free the rest; writes work again.
fs.rmSync(fillers[2] as string);
let recovered: true | ReturnType<typeof failure> = true;
try {
  await store.ledger.append({
    scope: 'disk',
    session_id: 'full',
    agent_id: 'writer',
    type: 'ops.decision',
    event_id: 'after-1',
    summary: 'after the disk was freed',
  });
} catch (error) {
  recovered = failure(error);
}
await store.close();

// Phase 5: a new connection finds the same, intact database.
const reopened = createSqliteStore({ filename });
const afterReopen = {
  integrity: reopened.database.pragma('integrity_check', { simple: true }),
  rows: reopened.database.prepare('SELECT count(*) FROM episodic_events').pluck().get(),
  runRecords: (await reopened.runs.read(RUN_ID).catch(() => ({ records: [] }))).records.length,
  loadedRevision: (await reopened.sessions.load(SESSION_ID))?.revision ?? null,
};
await reopened.close();

process.stdout.write(
  `${JSON.stringify({
    ackedBatches: ackedBatches.length,
    ackedRows: ackedBatches.reduce((sum, acked) => sum + acked.size, 0),
    ledgerFailures,
    runAcked,
    runFailure,
    whileFull,
    savedRevision,
    snapshotFailure,
    loadedRevision,
    recovered,
    afterReopen,
  })}\n`,
);
