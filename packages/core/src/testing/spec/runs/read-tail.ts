// RunStore.read and RunStore.tail: what a reader gets back, best-effort reads, fresh copies.
import { expect, it } from 'vitest';
import { completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of `RunStore.read` and `RunStore.tail`. */
export function runReadTailTests({ open }: ContractGroup<'runs'>): void {
  it('accepts unknown enum strings and reads an unknown schema_version best-effort, saying so', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(3);
    await store.append(runId, [
      headerFor(runId, { schemaVersion: 7 }),
      {
        type: 'run.status',
        run_id: runId,
        ts: '2026-02-03T12:00:01.000Z',
        status: 'paused_for_review',
      },
    ]);
    const read = await store.read(runId);
    expect(read.bestEffort).toBe(true);
    expect(read.bestEffortReason).toContain('schema_version 7');
    expect(read.records[1]).toMatchObject({ status: 'paused_for_review' });
    expect(read.ended).toBe(false);
    const { runs } = await store.list();
    expect(runs).toEqual([expect.objectContaining({ runId, schemaVersion: 7, bestEffort: true })]);
  });

  it('returns fresh copies: changing a read result never changes the store', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(8);
    const records = completedRun(runId, 2);
    await store.append(runId, records);
    const first = await store.read(runId);
    (first.records[1] as { input: { text: string } }).input.text = 'changed';
    first.records.pop();
    const tail = await store.tail(runId, { count: 2 });
    (tail.records[0] as { status: string }).status = 'changed';
    const { runs } = await store.list();
    (runs[0] as { startedAt: string }).startedAt = 'changed';
    const second = await store.read(runId);
    expect(second.records).toEqual(records);
    expect((await store.list()).runs[0]?.startedAt).toBe('2026-02-03T12:00:00.000Z');
  });

  it('tails the last records, oldest first', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(9);
    const records = completedRun(runId, 150);
    await store.append(runId, records);
    const last3 = await store.tail(runId, { count: 3 });
    expect(last3.records).toEqual(records.slice(-3));
    expect(last3.errors).toEqual([]);
    expect((await store.tail(runId)).records).toEqual(records.slice(-100));
    expect((await store.tail(runId, { count: 10_000 })).records).toEqual(records);
  });

  it('reads a run whose writer crashed before run.end', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(32);
    const records = completedRun(runId, 2).slice(0, -2);
    await store.append(runId, records);
    const read = await store.read(runId);
    expect(read.ended).toBe(false);
    expect(read.records).toEqual(records);
  });
}
