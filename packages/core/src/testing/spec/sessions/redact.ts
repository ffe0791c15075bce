// SessionStore.redact: a redaction is the next revision; secrets and content modes.
import { expect, it } from 'vitest';
import type { SessionState } from '../../../schema/session-state.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { SESSION_1, SESSION_2, stateOf } from './fixtures.js';

/** Registers the tests of `SessionStore.redact`. */
export function sessionRedactTests({ open }: ContractGroup<'sessions'>): void {
  it('redacts secrets in a snapshot as its next revision, and content mode replaces all text', async (context) => {
    const { store } = await open(context);
    const aws = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
    const state: SessionState = {
      ...stateOf(SESSION_1, 3),
      messages: [
        { role: 'system', content: 'You are a coding assistant.' },
        { role: 'user', content: `deploy with ${aws}` },
      ],
      context: { env: { AWS_ACCESS_KEY_ID: aws }, cwd: '/repo' },
    };
    await store.save(state);
    const receipt = await store.redact(SESSION_1);
    expect(receipt).toEqual({
      sessionId: SESSION_1,
      mode: 'secrets',
      changed: true,
      replacements: 2,
      revision: 4,
    });
    const loaded = await store.load(SESSION_1);
    expect(JSON.stringify(loaded)).not.toContain(aws);
    expect(loaded?.messages[0]).toEqual(state.messages[0]);
    expect(loaded?.messages[1]?.content).toBe('deploy with [REDACTED:aws_key]');
    expect(loaded?.revision).toBe(4);
    // A session still holding revision 3 cannot write the secret back.
    await expectEpisodicError(store.save(state, { expectedRevision: 3 }), 'CONFLICT');
    expect(await store.redact(SESSION_1)).toMatchObject({ changed: false, revision: 4 });

    const content = await store.redact(SESSION_1, { mode: 'content' });
    expect(content).toMatchObject({ changed: true, revision: 5 });
    const blank = await store.load(SESSION_1);
    expect(blank?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(blank)).not.toContain('coding assistant');
    expect(blank?.session_id).toBe(SESSION_1);

    await expectEpisodicError(store.redact(SESSION_2), 'NOT_FOUND');
    await expectEpisodicError(store.redact('not-a-uuid'), 'VALIDATION_ERROR');
    await expectEpisodicError(
      store.redact(SESSION_1, { mode: 'all' as never }),
      'VALIDATION_ERROR',
    );
  });
}
