// SessionStore.fold: deltas folded into a new base, on demand or when a commit asks.
import { expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { commitTurns, SESSION_1, SESSION_2 } from './fixtures.js';

/** Registers the tests of `SessionStore.fold` and of commits with `fold: true`. */
export function sessionFoldTests({ open }: ContractGroup<'sessions'>): void {
  it('folds the deltas into a new base on demand, and commits continue after it', async (context) => {
    const { store } = await open(context);
    const log = await commitTurns(store, SESSION_1, 0, 4);
    const before = await store.load(SESSION_1);
    const pending = (await store.read(SESSION_1))?.deltas.length;
    expect(await store.fold(SESSION_1)).toEqual({
      sessionId: SESSION_1,
      revision: 4,
      folded: pending,
    });
    const stored = await store.read(SESSION_1);
    expect(stored?.baseRevision).toBe(4);
    expect(stored?.deltas).toEqual([]);
    expect(await store.load(SESSION_1)).toEqual(before);
    expect(await store.fold(SESSION_1)).toMatchObject({ revision: 4, folded: 0 });
    const after = await commitTurns(store, SESSION_1, 4, 2, log);
    expect((await store.load(SESSION_1))?.episodes).toEqual(after);
    await expectEpisodicError(store.fold(SESSION_2), 'NOT_FOUND');
  });

  it('folds when a commit asks for it, keeping every episode', async (context) => {
    const { store } = await open(context);
    const log = await commitTurns(store, SESSION_1, 0, 3);
    const more = await commitTurns(store, SESSION_1, 3, 1, log, true);
    const stored = await store.read(SESSION_1);
    expect(stored?.baseRevision).toBe(4);
    expect(stored?.deltas).toEqual([]);
    expect((await store.load(SESSION_1))?.episodes).toEqual(more);
  });
}
