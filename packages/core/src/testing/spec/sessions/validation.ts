// SessionStore input validation: bad input is VALIDATION_ERROR and stores nothing.
import { expect, it } from 'vitest';
import type { SessionState } from '../../../schema/session-state.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { SESSION_1, stateOf } from './fixtures.js';

/** Registers the tests of how `SessionStore` methods reject bad input. */
export function sessionValidationTests({ open }: ContractGroup<'sessions'>): void {
  it('rejects bad input with VALIDATION_ERROR, storing nothing', async (context) => {
    const { store } = await open(context);
    await expectEpisodicError(store.load('../../etc/passwd'), 'VALIDATION_ERROR');
    await expectEpisodicError(store.delete('x/y'), 'VALIDATION_ERROR');
    await expectEpisodicError(
      store.save({ ...stateOf(SESSION_1, 1), messages: 'nope' } as unknown as SessionState),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      store.save({ ...stateOf(SESSION_1, 1), session_id: '../x' }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      store.save(stateOf(SESSION_1, 1), { expectedRevision: -1 }),
      'VALIDATION_ERROR',
    );
    expect(await store.list()).toEqual([]);
    expect(await store.load(SESSION_1)).toBeNull();
  });
}
