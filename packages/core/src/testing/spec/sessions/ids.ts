// SessionStore.resolveSessionId: unique prefixes, ambiguous ones name their candidates.
import { expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { SESSION_1, SESSION_2, SESSION_3, stateOf } from './fixtures.js';

/** Registers the tests of `SessionStore.resolveSessionId`. */
export function sessionIdTests({ open }: ContractGroup<'sessions'>): void {
  it('resolves a unique session id prefix; an ambiguous one names its candidates', async (context) => {
    const { store } = await open(context);
    const twin = '6f1c2a4e-3b5d-4c7e-9f80-000000000000';
    for (const sessionId of [SESSION_1, SESSION_2, twin]) await store.save(stateOf(sessionId, 1));
    expect(await store.resolveSessionId('7A2D3B')).toBe(SESSION_2);
    expect(await store.resolveSessionId(SESSION_3.toUpperCase())).toBe(SESSION_3);
    const ambiguous = await expectEpisodicError(
      store.resolveSessionId('6f1c2a4e'),
      'VALIDATION_ERROR',
    );
    expect(ambiguous.details).toMatchObject({ count: 2, candidates: [twin, SESSION_1].sort() });
    expect(ambiguous.message).not.toContain(SESSION_2);
    await expectEpisodicError(store.resolveSessionId('8b3e4c'), 'NOT_FOUND');
    await expectEpisodicError(store.resolveSessionId('6f1c'), 'VALIDATION_ERROR');
  });
}
