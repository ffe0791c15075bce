import { LEDGER_EVENT_TYPES, retentionPolicySchema } from '@episodic/core';
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
      'tool.result=0',
      'tool.result=1e3',
      'tool.result=2000000',
      '=5',
    ]) {
      expect(() => parseRetentionPolicy([bad]), bad).toThrow(UsageError);
    }
  });

  it('produces what core accepts, for any valid entry (property)', () => {
    const entry = fc.tuple(
      fc.constantFrom(...LEDGER_EVENT_TYPES),
      fc.oneof(fc.constant('forever'), fc.integer({ min: 1, max: 1_000_000 }).map(String)),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        const policy = parseRetentionPolicy(entries.map(([type, days]) => `${type}=${days}`));
        expect(retentionPolicySchema.safeParse(policy).success).toBe(true);
        for (const [type, days] of entries) {
          const last = entries.filter(([other]) => other === type).at(-1)?.[1];
          expect(policy?.[type]).toBe(last === 'forever' ? null : Number(last ?? days));
        }
      }),
    );
  });
});
