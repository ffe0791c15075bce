import { LEDGER_EVENT_TYPES, retentionPolicySchema } from '@episodic/core/schemas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetentionPolicy } from './retention-option.js';
import { UsageError } from './usage-error.js';

describe('parseRetentionPolicy', () => {
  it('reads TYPE=DAYS and TYPE=forever; later entries win', () => {
    expect(
      parseRetentionPolicy([
        'tool.result=7',
        'ops.decision=forever',
        'tool.result=14',
        'Tool.Call = 1.5',
      ]),
    ).toEqual({
      'tool.result': 14,
      'ops.decision': null,
      'tool.call': 1.5,
    });
    expect(parseRetentionPolicy(undefined)).toBeUndefined();
  });

  it('refuses bad entries with a message naming the entry', () => {
    for (const bad of [
      'tool.result',
      'tool.result=',
      'tools=3',
      'tool.result=-3',
      'tool.result=1e3',
      'tool.result=nan',
      'tool.result=2000000',
      '=5',
    ]) {
      expect(() => parseRetentionPolicy([bad]), bad).toThrow(UsageError);
    }
  });

  it('one rule for policy days: T=0 expires everything older than now, T=inf keeps forever, T=1.5 is 36 hours', () => {
    expect(
      parseRetentionPolicy([
        'tool.result=0',
        'ops.alert=inf',
        'Conversation.User=1.5',
        'tool.call=None',
      ]),
    ).toEqual({
      'tool.result': 0,
      'ops.alert': null,
      'conversation.user': 1.5,
      'tool.call': null,
    });
    const policy = parseRetentionPolicy(['tool.result=0', 'ops.alert=inf', 'tool.call=1.5']);
    expect(retentionPolicySchema.safeParse(policy).success).toBe(true);
  });

  it('produces what core accepts, for any valid entry (property)', () => {
    const entry = fc.tuple(
      fc.constantFrom(...LEDGER_EVENT_TYPES),
      fc.oneof(
        fc.constantFrom('forever', 'INF', 'infinite', 'none'),
        fc.integer({ min: 0, max: 1_000_000 }).map(String),
        fc.integer({ min: 0, max: 999_999 }).map((days) => `${days}.5`),
      ),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        const policy = parseRetentionPolicy(entries.map(([type, days]) => `${type}=${days}`));
        expect(retentionPolicySchema.safeParse(policy).success).toBe(true);
        for (const [type, days] of entries) {
          const last = entries.filter(([other]) => other === type).at(-1)?.[1];
          const kept = /^(forever|inf|infinite|none)$/i.test(last ?? days);
          expect(policy?.[type]).toBe(kept ? null : Number(last ?? days));
        }
      }),
    );
  });
});
