// SessionStore.list and SessionStore.delete: summaries newest first, delete once.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';
import { SESSION_1, SESSION_2, SESSION_3, stateOf } from './fixtures.js';

/** Registers the tests of `SessionStore.list` and `SessionStore.delete`. */
export function sessionListDeleteTests({ open }: ContractGroup<'sessions'>): void {
  it('lists summaries newest first and deletes once', async (context) => {
    const { store } = await open(context);
    await store.save(stateOf(SESSION_1, 1, '2026-02-01T00:00:00.000Z'));
    await store.save(stateOf(SESSION_2, 3, '2026-02-03T00:00:00.000Z'));
    await store.save(stateOf(SESSION_3, 2, '2026-02-02T00:00:00.000Z'));
    const listed = await store.list();
    expect(listed.map((summary) => summary.sessionId)).toEqual([SESSION_2, SESSION_3, SESSION_1]);
    expect(listed[0]).toEqual({
      sessionId: SESSION_2,
      updatedAt: '2026-02-03T00:00:00.000Z',
      revision: 3,
      runId: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
      messageCount: 2,
      baseRevision: 3,
      // Seed 001's last_user_message.
      lastUserMessage: 'message 3',
    });
    expect(await store.delete(SESSION_3)).toBe(true);
    expect(await store.delete(SESSION_3)).toBe(false);
    expect(await store.load(SESSION_3)).toBeNull();
    expect((await store.list()).map((summary) => summary.sessionId)).toEqual([
      SESSION_2,
      SESSION_1,
    ]);
  });
}
