// RunStore compare-and-append (append with expectedPosition) and readAfter, in one process and
// across processes.
import { expect, it } from 'vitest';
import { raceEvent } from '../../conformance-child.js';
import { agentEvent, completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError, requireCapability, withoutHeaderLine } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of `RunStore.append` with `expectedPosition` and of `RunStore.readAfter`. */
export function runCompareAndAppendTests({ open, capabilities }: ContractGroup<'runs'>): void {
  it('appends only at the expected position; a stale expectation is CONFLICT and writes nothing', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(70);
    const created = await store.append(runId, [headerFor(runId)], { expectedPosition: 0 });
    expect(created).toEqual({ runId, appended: 1, position: 1 });
    const next = await store.append(runId, [agentEvent(runId, 0), agentEvent(runId, 1)], {
      expectedPosition: 1,
    });
    expect(next).toEqual({ runId, appended: 2, position: 3 });
    const stale = await expectEpisodicError(
      store.append(runId, [agentEvent(runId, 9)], { expectedPosition: 1 }),
      'CONFLICT',
    );
    expect(stale.details).toMatchObject({ runId, expectedPosition: 1, position: 3 });
    await expectEpisodicError(
      store.append(runId, [headerFor(runId)], { expectedPosition: 0 }),
      'CONFLICT',
    );
    const read = await store.read(runId);
    expect(read.position).toBe(3);
    expect(read.records).toEqual([headerFor(runId), agentEvent(runId, 0), agentEvent(runId, 1)]);
    // A plain append still works and moves the position on.
    await store.append(runId, [agentEvent(runId, 2)]);
    expect((await store.read(runId)).position).toBe(4);
  });

  it('is NOT_FOUND (not a new run) when a compare-and-append at position 0 has no header', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(71);
    await expectEpisodicError(
      store.append(runId, [agentEvent(runId, 0)], { expectedPosition: 0 }),
      'NOT_FOUND',
    );
    await expectEpisodicError(
      store.append(runId, [headerFor(runId)], { expectedPosition: 1 }),
      'CONFLICT',
    );
    await expectEpisodicError(store.read(runId), 'NOT_FOUND');
  });

  it('lets exactly one of many appends at the same position win', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(72);
    await store.append(runId, [headerFor(runId)]);
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, (_, seq) =>
        store.append(runId, [agentEvent(runId, seq)], { expectedPosition: 1 }),
      ),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect(attempt.reason.code).toBe('CONFLICT');
    }
    expect((await store.read(runId)).records).toHaveLength(2);
  });

  it('reads only what follows a position with readAfter', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(73);
    const records = completedRun(runId, 5);
    await store.append(runId, records);
    for (let position = 0; position <= records.length; position++) {
      const after = await store.readAfter(runId, position);
      expect(withoutHeaderLine(after)).toEqual({
        runId,
        records: records.slice(position),
        errors: [],
        position: records.length,
      });
    }
    await expectEpisodicError(store.readAfter(runId, records.length + 1), 'CONFLICT');
    await expectEpisodicError(store.readAfter(runIdFor(74), 0), 'NOT_FOUND');
    const read = await store.read(runId);
    expect(read.position).toBe(records.length);
  });

  it('rejects bad positions with VALIDATION_ERROR, writing nothing', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(75);
    await store.append(runId, [headerFor(runId)]);
    for (const bad of [-1, 1.5, Number.NaN, '1', null]) {
      await expectEpisodicError(
        store.append(runId, [agentEvent(runId, 0)], { expectedPosition: bad as never }),
        'VALIDATION_ERROR',
      );
      await expectEpisodicError(store.readAfter(runId, bad as never), 'VALIDATION_ERROR');
    }
    await expectEpisodicError(
      store.append(runId, [agentEvent(runId, 0)], { expectedPostion: 1 } as never),
      'VALIDATION_ERROR',
    );
    expect((await store.read(runId)).position).toBe(1);
  });

  it('holds across processes: racing writers lose nothing and never share a position', async (context) => {
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const opened = await open(context);
    const { store, harness } = opened;
    requireCapability(
      context,
      store.capabilities.crossProcessAppends,
      'crossProcessAppends (RunStore)',
    );
    const runInChild = harness.runInChild;
    if (runInChild === undefined) {
      throw new Error('capabilities.crossProcess needs StoreHarness.runInChild');
    }
    const runId = runIdFor(76);
    await store.append(runId, [headerFor(runId)]);
    const writers = 4;
    const count = 30;
    const results = await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        runInChild({ kind: 'run-append-race', runId, writer, count }),
      ),
    );
    const read = await store.read(runId);
    expect(read.errors).toEqual([]);
    expect(read.position).toBe(1 + writers * count);
    results.forEach((result, writer) => {
      expect(result.acknowledged.map((ack) => ack.n)).toEqual(
        Array.from({ length: count }, (_, n) => n),
      );
      for (const ack of result.acknowledged) {
        // The acknowledged position is exactly where the record is stored.
        expect(read.records[ack.position - 1]).toEqual(
          raceEvent(runId, writer, ack.n, ack.position - 1),
        );
      }
    });
  });
}
