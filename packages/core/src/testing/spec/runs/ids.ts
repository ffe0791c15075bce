// Run ids: case-insensitive everywhere, and RunStore.resolveRunId (unique prefixes, the visibility
// wall).
import { expect, it } from 'vitest';
import { agentEvent, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of run ids and `RunStore.resolveRunId`. */
export function runIdTests({ open }: ContractGroup<'runs'>): void {
  it('treats run ids case-insensitively', async (context) => {
    const { store } = await open(context);
    const runId = runIdFor(7);
    await store.append(runId.toUpperCase(), [headerFor(runId)]);
    await store.append(runId, [agentEvent(runId.toUpperCase(), 0)]);
    expect((await store.read(runId.toUpperCase())).records).toHaveLength(2);
    expect((await store.list()).runs.map((run) => run.runId)).toEqual([runId]);
  });

  it('resolves a unique id prefix; an ambiguous one names its candidates, an unknown one is NOT_FOUND', async (context) => {
    const { store } = await open(context);
    // Three runs: two share their first 8 characters with each other, one differs at the 2nd.
    const first = 'a1b2c3d4-0000-4000-8000-000000000001';
    const second = 'a1b2c3d4-0000-4000-8000-000000000002';
    const other = 'a9b2c3d4-0000-4000-8000-000000000003';
    for (const runId of [first, second, other]) await store.append(runId, [headerFor(runId)]);
    expect(await store.resolveRunId('A9B2C3')).toBe(other);
    expect(await store.resolveRunId('a1b2c3d4-0000-4000-8000-000000000002')).toBe(second);
    await expectEpisodicError(
      store.resolveRunId('a1b2c3d4-0000-4000-8000-00000000000'),
      'VALIDATION_ERROR',
    );
    const ambiguous = await expectEpisodicError(store.resolveRunId('a1b2c3d4'), 'VALIDATION_ERROR');
    expect(ambiguous.message).toContain(first);
    expect(ambiguous.message).toContain(second);
    expect(ambiguous.message).not.toContain(other);
    expect(ambiguous.details).toMatchObject({ count: 2, candidates: [first, second] });
    await expectEpisodicError(store.resolveRunId('a1b2c3e'), 'NOT_FOUND');
    // A prefix that is the start of an id but runs past it in the next character range.
    await expectEpisodicError(store.resolveRunId('a1b2c3d5'), 'NOT_FOUND');
    const short = await expectEpisodicError(store.resolveRunId('a1b2c'), 'VALIDATION_ERROR');
    expect(short.message).toContain('UUID');
    await expectEpisodicError(store.resolveRunId('a1b2c3d4-0000-40zz'), 'VALIDATION_ERROR');
    // The caller's visibility filter is a wall: what it hides is never resolved, named or counted.
    const onlyFirst = { visible: (runId: string) => runId === first };
    expect(await store.resolveRunId('a1b2c3d4', onlyFirst)).toBe(first);
    const hidden = await expectEpisodicError(store.resolveRunId('a9b2c3', onlyFirst), 'NOT_FOUND');
    expect(hidden.message).not.toContain(other);
  });
}
