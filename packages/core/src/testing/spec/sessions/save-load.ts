// SessionStore.save and SessionStore.load: snapshots, expectedRevision, races, idempotent saves,
// fresh copies.
import { expect, it } from 'vitest';
import type { SessionState } from '../../../schema/session-state.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { SESSION_1, stateOf } from './fixtures.js';

/** Registers the tests of `SessionStore.save` and `SessionStore.load`. */
export function sessionSaveLoadTests({ open }: ContractGroup<'sessions'>): void {
  it('saves and loads a snapshot, keeping unknown fields; a missing one loads as null', async (context) => {
    const { store } = await open(context);
    expect(await store.load(SESSION_1)).toBeNull();
    const state = {
      ...stateOf(SESSION_1, 1),
      meta: { runtime: { cwd: '/a' } },
      future_field: { kept: true },
    } as SessionState;
    await store.save(state);
    expect(await store.load(SESSION_1)).toEqual(state);
  });

  it('returns fresh copies: changing a loaded snapshot never changes the store', async (context) => {
    const { store } = await open(context);
    await store.save(stateOf(SESSION_1, 1));
    const loaded = (await store.load(SESSION_1)) as SessionState;
    loaded.messages.push({ role: 'user', content: 'mutated' });
    loaded.revision = 99;
    expect(await store.load(SESSION_1)).toEqual(stateOf(SESSION_1, 1));
  });

  it('enforces expectedRevision: null for a new session, CONFLICT for a stale one, nothing stored', async (context) => {
    const { store } = await open(context);
    await store.save(stateOf(SESSION_1, 1), { expectedRevision: null });
    await expectEpisodicError(
      store.save(stateOf(SESSION_1, 2), { expectedRevision: null }),
      'CONFLICT',
    );
    const stale = await expectEpisodicError(
      store.save(stateOf(SESSION_1, 2), { expectedRevision: 0 }),
      'CONFLICT',
    );
    expect(stale.message).toContain(SESSION_1);
    expect((await store.load(SESSION_1))?.revision).toBe(1);
    await store.save(stateOf(SESSION_1, 2), { expectedRevision: 1 });
    expect((await store.load(SESSION_1))?.revision).toBe(2);
  });

  it('lets exactly one of two saves from the same revision win', async (context) => {
    const { store } = await open(context);
    await store.save(stateOf(SESSION_1, 1));
    const results = await Promise.allSettled([
      store.save(stateOf(SESSION_1, 2), { expectedRevision: 1 }),
      store.save({ ...stateOf(SESSION_1, 2), invoke_seq: 42 }, { expectedRevision: 1 }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected');
    expect((rejected as PromiseRejectedResult).reason.code).toBe('CONFLICT');
  });

  it('is idempotent: saving the same snapshot twice without an expected revision succeeds', async (context) => {
    const { store } = await open(context);
    await store.save(stateOf(SESSION_1, 1));
    await store.save(stateOf(SESSION_1, 1));
    expect(await store.list()).toHaveLength(1);
  });
}
