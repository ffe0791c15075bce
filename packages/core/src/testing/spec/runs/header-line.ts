// `RunReadAfterResult.headerLine` / `RunTailResult.headerLine`: the run's stored first line, read
// with the entries (optional), and the scoped store that trusts it instead of listing the run: a
// run deleted and created again in another scope (here or in another process) is never served.
import { expect, it } from 'vitest';
import type { RunRecord } from '../../../schema/run-record.js';
import type { RunStore } from '../../../store/run-store.js';
import { scopeRunStore } from '../../../store/scoped-run-store.js';
import { agentEvent, completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError, requireCapability } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

const RUN = runIdFor(0x60);
const MISSING = runIdFor(0x61);
/** A key the default secret detectors find (assembled so this file does not look like a leak). */
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

/** The run `completedRun(runId, 2)` again (7 records), under a header that starts later. */
function laterRun(runId: string, scope?: string): RunRecord[] {
  const header = headerFor(runId, { startedAt: '2026-02-04T08:00:00.000Z' });
  const [, ...rest] = completedRun(runId, 2);
  return [scope === undefined ? header : ({ ...header, scope } as RunRecord), ...rest];
}

/** The header lines `readAfter` and `tail` report now (`undefined` where the backend reports none). */
async function headerLines(store: RunStore, runId: string) {
  const after = await store.readAfter(runId, (await store.read(runId)).position);
  const tail = await store.tail(runId, { count: 1 });
  return [after.headerLine, tail.headerLine];
}

/** Registers the tests of the reported header line and the scoped store over it. */
export function runHeaderLineTests({ open, capabilities }: ContractGroup<'runs'>): void {
  it('readAfter and tail report the stored header line (when they report one): the same across appends and redaction, another once the run is created again', async (context) => {
    const { store } = await open(context);
    const [header, ...rest] = completedRun(RUN, 2);
    await store.append(RUN, [header as RunRecord, ...rest]);
    const stored = JSON.stringify(header);
    const first = await headerLines(store, RUN);
    for (const line of first) if (line !== undefined) expect(line).toBe(stored);

    await store.append(RUN, [agentEvent(RUN, 8, { event: { type: 'text', content: SECRET } })]);
    expect(await headerLines(store, RUN)).toEqual(first);
    if (store.capabilities.redaction === true) {
      expect((await store.redact(RUN)).changedLines).toBe(1);
      expect(await headerLines(store, RUN)).toEqual(first);
    }

    expect(await store.delete(RUN)).toBe(true);
    const later = laterRun(RUN);
    await store.append(RUN, later);
    const again = await headerLines(store, RUN);
    for (const line of again) if (line !== undefined) expect(line).toBe(JSON.stringify(later[0]));
    // A backend reports a line for a method always or never.
    expect(again.map((line) => line === undefined)).toEqual(
      first.map((line) => line === undefined),
    );
  });

  it('a store declaring headerLine reports it from readAfter and checks expectedHeaderLine with the position: another line is CONFLICT (reason header) and writes nothing', async (context) => {
    const { store } = await open(context);
    const records = completedRun(RUN, 2);
    const position = (await store.append(RUN, records)).position ?? records.length;
    const stored = JSON.stringify(records[0]);
    const event = agentEvent(RUN, 9);
    if (store.capabilities.headerLine !== true) {
      // Without the capability the option is refused, never silently ignored.
      await expectEpisodicError(
        store.append(RUN, [event], { expectedPosition: position, expectedHeaderLine: stored }),
        'UNSUPPORTED',
      );
      expect((await store.read(RUN)).records).toHaveLength(records.length);
      return;
    }
    expect((await store.readAfter(RUN, 0)).headerLine).toBe(stored);
    const conflict = await expectEpisodicError(
      store.append(RUN, [event], { expectedPosition: position, expectedHeaderLine: `${stored} ` }),
      'CONFLICT',
    );
    expect(conflict.details).toMatchObject({ runId: RUN, reason: 'header' });
    // A run that no longer exists has no header line either.
    await expectEpisodicError(
      store.append(MISSING, [agentEvent(MISSING, 1)], {
        expectedPosition: 1,
        expectedHeaderLine: stored,
      }),
      'CONFLICT',
    );
    expect((await store.read(RUN)).records).toHaveLength(records.length);
    // The option belongs to a compare-and-append.
    await expectEpisodicError(
      store.append(RUN, [event], { expectedHeaderLine: stored }),
      'VALIDATION_ERROR',
    );
    const receipt = await store.append(RUN, [event], {
      expectedPosition: position,
      expectedHeaderLine: stored,
    });
    expect(receipt.position).toBe(position + 1);
    expect((await store.read(RUN)).records).toHaveLength(records.length + 1);
  });

  it('a compare-and-append through a scoped store to a run recreated in another scope at the same position is NOT_FOUND and writes nothing; the new owner sees its run', async (context) => {
    const { store } = await open(context);
    const mine = scopeRunStore(store, { scope: 'team-a' });
    const theirs = scopeRunStore(store, { scope: 'team-b' });
    const receipt = await mine.append(RUN, completedRun(RUN, 2), { expectedPosition: 0 });
    const position = receipt.position as number;
    // Both scoped stores have decided on the run as it is now.
    expect((await mine.readAfter(RUN, position)).records).toEqual([]);
    expect((await mine.tail(RUN, { count: 1 })).records).toHaveLength(1);
    await expectEpisodicError(theirs.readAfter(RUN, 0), 'NOT_FOUND');
    await expectEpisodicError(theirs.tail(RUN), 'NOT_FOUND');

    expect(await store.delete(RUN)).toBe(true);
    expect((await theirs.append(RUN, laterRun(RUN), { expectedPosition: 0 })).position).toBe(
      position,
    );

    const event = agentEvent(RUN, 9);
    const refused = await expectEpisodicError(
      mine.append(RUN, [event], { expectedPosition: position }),
      'NOT_FOUND',
    );
    const none = await expectEpisodicError(
      mine.append(MISSING, [agentEvent(MISSING, 9)], { expectedPosition: position }),
      'NOT_FOUND',
    );
    expect(refused.message.replace(RUN, MISSING)).toBe(none.message);
    await expectEpisodicError(mine.readAfter(RUN, position), 'NOT_FOUND');
    await expectEpisodicError(mine.tail(RUN), 'NOT_FOUND');
    // A position beyond the other scope's run does not tell that it exists either.
    await expectEpisodicError(mine.readAfter(RUN, position + 5), 'NOT_FOUND');
    await expectEpisodicError(
      mine.append(RUN, [event], { expectedPosition: position + 5 }),
      'NOT_FOUND',
    );

    expect((await store.read(RUN)).records).toHaveLength(position);
    expect((await theirs.readAfter(RUN, 0)).records).toHaveLength(position);
    expect((await theirs.tail(RUN, { count: 1 })).records.map((r) => r.type)).toEqual(['run.end']);
    await theirs.append(RUN, [event], { expectedPosition: position });
    expect((await store.read(RUN)).records).toHaveLength(position + 1);
  });

  it('holds across processes: a run another process deletes and creates again in another scope answers NOT_FOUND through the scoped store that read it', async (context) => {
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const { harness, store } = await open(context);
    const runInChild = harness.runInChild;
    if (runInChild === undefined) {
      throw new Error('capabilities.crossProcess needs StoreHarness.runInChild');
    }
    const mine = scopeRunStore(store, { scope: 'team-a' });
    const position = (await mine.append(RUN, completedRun(RUN, 2), { expectedPosition: 0 }))
      .position as number;
    expect((await mine.readAfter(RUN, 0)).records).toHaveLength(position);
    expect((await mine.tail(RUN, { count: 2 })).records).toHaveLength(2);
    await mine.append(RUN, [agentEvent(RUN, 8)], { expectedPosition: position });

    const child = await runInChild({
      kind: 'run-recreate',
      runId: RUN,
      scope: 'team-b',
      records: laterRun(RUN),
    });
    expect(child.acknowledged).toEqual([{ n: 0, position }]);

    await expectEpisodicError(mine.readAfter(RUN, 0), 'NOT_FOUND');
    await expectEpisodicError(mine.readAfter(RUN, position), 'NOT_FOUND');
    await expectEpisodicError(mine.tail(RUN), 'NOT_FOUND');
    await expectEpisodicError(
      mine.append(RUN, [agentEvent(RUN, 9)], { expectedPosition: position }),
      'NOT_FOUND',
    );
    const stored = await store.read(RUN);
    expect(stored.header).toMatchObject({ scope: 'team-b' });
    expect(stored.records).toHaveLength(position);
  });
}
