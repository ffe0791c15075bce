// RunStore.delete: once, then NOT_FOUND; the id can be used again.
import { expect, it } from 'vitest';
import { completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of `RunStore.delete`. */
export function runDeleteTests({ open }: ContractGroup<'runs'>): void {
  it('deletes a run once: then it is NOT_FOUND and no longer listed', async (context) => {
    const { store } = await open(context);
    const keep = runIdFor(30);
    const remove = runIdFor(31);
    await store.append(keep, completedRun(keep, 1));
    await store.append(remove, completedRun(remove, 1));
    expect(await store.delete(remove)).toBe(true);
    expect(await store.delete(remove)).toBe(false);
    await expectEpisodicError(store.read(remove), 'NOT_FOUND');
    expect((await store.list()).runs.map((run) => run.runId)).toEqual([keep]);
    // The id can be used again for a new run.
    await store.append(remove, [headerFor(remove)]);
    expect((await store.read(remove)).records).toHaveLength(1);
  });
}
