// `RunStoreCapabilities.chain` (docs/design/verify.md, issue #34): what a chaining run store shows
// through the public API. Every test skips, with the reason, for a store that does not declare the
// capability: no store declares it yet (the stores turn it on one by one, behind their `chain`
// option), so these pin the contract the first one must meet.
import { expect, it } from 'vitest';
import type { RunRecord } from '../../../schema/run-record.js';
import { agentEvent, completedRun, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError, requireCapability } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

const RUN = runIdFor(0x70);

/** Registers the tests of a chaining run store. */
export function runChainTests({ open }: ContractGroup<'runs'>): void {
  it('a chaining store reads records back without their chain member, exactly as appended', async (context) => {
    const { store } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    const records = completedRun(RUN, 2);
    await store.append(RUN, records);
    const read = await store.read(RUN);
    expect(read.records).toEqual(records);
    for (const record of read.records) expect(Object.hasOwn(record, 'chain')).toBe(false);
    const tail = await store.tail(RUN, { count: 2 });
    for (const record of tail.records) expect(Object.hasOwn(record, 'chain')).toBe(false);
  });

  it('a chaining store skips a repeated identical header (its chain member differs) and refuses a record that carries a chain member', async (context) => {
    const { store } = await open(context);
    requireCapability(context, store.capabilities.chain, 'chain (RunStoreCapabilities)');
    const records = completedRun(RUN, 2);
    await store.append(RUN, records);
    await store.append(RUN, [records[0] as RunRecord, agentEvent(RUN, 9)]);
    expect((await store.read(RUN)).records).toHaveLength(records.length + 1);
    const forged = { ...agentEvent(RUN, 10), chain: { n: 99 } } as RunRecord;
    const error = await expectEpisodicError(store.append(RUN, [forged]), 'VALIDATION_ERROR');
    expect(error.message).toMatch(/chain/);
    expect((await store.read(RUN)).records).toHaveLength(records.length + 1);
  });
}
