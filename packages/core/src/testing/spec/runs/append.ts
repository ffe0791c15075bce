// RunStore.append: records stored in call order, headers written once, no run without a header.
import { expect, it } from 'vitest';
import type { RunRecord } from '../../../schema/run-record.js';
import { agentEvent, completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/**
 * Registers the tests of `RunStore.append` (plain appends; compare-and-append is `compare-and-
 * append.ts`).
 */
export function runAppendTests({ open }: ContractGroup<'runs'>): void {
  it('reads back every appended record in order, unknown fields and custom types included', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(1);
    const records = completedRun(runId, 4);
    const custom: RunRecord = {
      type: 'x.acme.checkpoint',
      run_id: runId,
      ts: '2026-02-03T12:02:00.000Z',
      label: 'custom',
    };
    const withExtra = { ...agentEvent(runId, 4), future_field: { nested: [1, 2] } };
    // A seed type newer than this version (a file or export written by a newer Episodic).
    const later: RunRecord = {
      type: 'run.plan',
      run_id: runId,
      ts: '2026-02-03T12:02:30.000Z',
      steps: ['a', 'b'],
    };
    const receipt = await store.append(runId, records.slice(0, 3));
    expect(receipt).toMatchObject({ runId, appended: 3 });
    await store.append(runId, [custom, withExtra, later]);
    await store.append(runId, records.slice(3));

    const read = await store.read(runId);
    expect(read.runId).toBe(runId);
    expect(read.errors).toEqual([]);
    expect(read.bestEffort).toBe(false);
    expect(read.ended).toBe(true);
    expect(read.header).toEqual(records[0]);
    expect(read.records).toEqual([
      ...records.slice(0, 3),
      custom,
      withExtra,
      later,
      ...records.slice(3),
    ]);
  });

  it('keeps the call order of appends issued without awaiting each other', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(2);
    await store.append(runId, [headerFor(runId)]);
    await Promise.all(
      Array.from({ length: 40 }, (_, seq) => store.append(runId, [agentEvent(runId, seq)])),
    );
    const read = await store.read(runId);
    expect(read.records.slice(1).map((record) => record.seq)).toEqual(
      Array.from({ length: 40 }, (_, seq) => seq),
    );
  });

  it('is NOT_FOUND for a run that does not exist, and never creates one without a header', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(4);
    await expectEpisodicError(store.append(runId, [agentEvent(runId, 0)]), 'NOT_FOUND');
    await expectEpisodicError(store.read(runId), 'NOT_FOUND');
    await expectEpisodicError(store.tail(runId), 'NOT_FOUND');
    expect(await store.delete(runId)).toBe(false);
    expect((await store.list()).runs).toEqual([]);
  });

  it('never rewrites a header: an identical one is skipped (idempotent), a different one is CONFLICT', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(5);
    const header = headerFor(runId);
    await store.append(runId, [header, agentEvent(runId, 0)]);
    const again = await store.append(runId, [{ ...header }, agentEvent(runId, 1)]);
    expect(again.appended).toBe(1);
    const conflict = await expectEpisodicError(
      store.append(runId, [
        headerFor(runId, { startedAt: '2026-02-04T00:00:00.000Z' }),
        agentEvent(runId, 2),
      ]),
      'CONFLICT',
    );
    expect(conflict.message).toContain(runId);
    const read = await store.read(runId);
    expect(read.header).toEqual(header);
    expect(read.records.map((record) => record.type)).toEqual([
      'header',
      'agent.event',
      'agent.event',
    ]);
  });
}
