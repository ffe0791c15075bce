// Ledger input guards: caps, secrets, PII and control characters rejected without echoing content;
// allow and redact.
import { expect, it } from 'vitest';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { eventOf } from './fixtures.js';

/** Registers the tests of the guards every appended event passes. */
export function ledgerGuardTests({ open }: ContractGroup<'ledger'>): void {
  it('rejects bad events without changing anything and without echoing their content', async (context) => {
    const { store: ledger } = await open(context);
    const { scope: _scope, ...unscoped } = eventOf();
    await expectEpisodicError(ledger.append(unscoped), 'SCOPE_REQUIRED');
    await expectEpisodicError(ledger.append(eventOf({ scope: 'global' })), 'VALIDATION_ERROR');
    const type = await expectEpisodicError(
      ledger.append(eventOf({ type: 'tool.output' as never })),
      'VALIDATION_ERROR',
    );
    expect(type.message).toContain('"conversation.assistant", "conversation.user", "ops.alert"');
    await expectEpisodicError(ledger.append(eventOf({ summary: '' })), 'VALIDATION_ERROR');
    await expectEpisodicError(
      ledger.append(eventOf({ payload: { when: Number.NaN } })),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(ledger.append(eventOf({ extra: 1 } as never)), 'VALIDATION_ERROR');
    await expectEpisodicError(
      ledger.append(eventOf({ metadata: { tooMany: [{}] } as never })),
      'VALIDATION_ERROR',
    );

    const big = await expectEpisodicError(
      ledger.append(eventOf({ payload: { text: 'x'.repeat(8200) } })),
      'VALIDATION_ERROR',
    );
    expect(big.message).toMatch(
      /payload is 8211 bytes as canonical JSON, over the cap of 8192 bytes/,
    );
    const refs = await expectEpisodicError(
      ledger.append(eventOf({ refs: { path: 'é'.repeat(2100) } })),
      'VALIDATION_ERROR',
    );
    expect(refs.details).toMatchObject({ field: 'refs', bytes: 4211, cap: 4096 });

    const secret = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    for (const event of [
      eventOf({ summary: `token ${secret}` }),
      eventOf({ payload: { nested: [`use ${secret}`] } }),
      eventOf({ refs: { url: `https://x.test/?t=${secret}` } }),
      eventOf({ summary: 'x'.repeat(2000) + secret }),
    ]) {
      const error = await expectEpisodicError(ledger.append(event), 'VALIDATION_ERROR');
      expect(JSON.stringify(error.toJSON())).not.toContain(secret);
      expect(error.message).not.toContain('a1B2c3D4e5');
    }
    await expectEpisodicError(
      ledger.append(eventOf({ summary: 'mail jane.doe@example.com' })),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.append(eventOf({ payload: { out: '\u001b[31mred' } })),
      'VALIDATION_ERROR',
    );
    expect((await ledger.query({ global: true })).events).toEqual([]);

    const allowed = await ledger.append(eventOf({ summary: 'mail jane.doe@example.com' }), {
      allow: ['pii'],
    });
    expect(allowed.event.summary).toBe('mail jane.doe@example.com');
    const redacted = await ledger.append(
      eventOf({ payload: { key: secret, mail: 'jane.doe@example.com' } }),
      { redact: true },
    );
    expect(redacted.event.payload).toEqual({
      key: '[REDACTED:github_token]',
      mail: '[REDACTED:email]',
    });
    expect(redacted.event.redacted).toBe(false);
  });
}
