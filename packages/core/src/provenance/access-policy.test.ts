import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import { compileAccessPolicy, policyAllows, satisfiesAccessPolicy } from './access-policy.js';
import { effectiveMetadata } from './effective-metadata.js';

describe('access policies', () => {
  const acme = { required: { tenant: 'acme' } };

  it('shows an object only when every value of every required key is allowed', () => {
    expect(policyAllows(acme, [{ tenant: 'acme', source: 'crm' }])).toBe(true);
    expect(policyAllows(acme, [{ tenant: 'globex' }])).toBe(false);
    // Derived from an acme episode and a globex episode: it carries globex information too.
    expect(policyAllows(acme, [{ tenant: 'acme' }, { tenant: 'globex' }])).toBe(false);
    expect(policyAllows(acme, [{ tenant: ['acme', 'globex'] }])).toBe(false);
    // A missing key hides the object.
    expect(policyAllows(acme, [{ source: 'crm' }])).toBe(false);
    expect(policyAllows(acme, [])).toBe(false);
    // An untagged episode adds no value, so the acme contribution decides.
    expect(policyAllows(acme, [{ tenant: 'acme' }, {}])).toBe(true);
  });

  it('allows lists of values and requires every listed key', () => {
    const policy = { required: { tenant: 'acme', source: ['crm', 'support'] } };
    const effective = effectiveMetadata([
      { tenant: 'acme', source: 'crm' },
      { tenant: 'acme', source: 'support' },
    ]);
    expect(satisfiesAccessPolicy(policy, effective)).toBe(true);
    expect(satisfiesAccessPolicy(policy, { tenant: ['acme'], source: ['crm', 'erp'] })).toBe(false);
    expect(satisfiesAccessPolicy(policy, { tenant: ['acme'] })).toBe(false);
    expect(satisfiesAccessPolicy({ required: { level: [1, 2] } }, { level: ['1'] })).toBe(false);
    expect(compileAccessPolicy({ required: { level: [1, 2] } })({ level: [2, 1] })).toBe(true);
  });

  it('rejects a malformed policy with VALIDATION_ERROR', () => {
    for (const bad of [
      {},
      { required: {} },
      { required: { a: [] } },
      { required: { a: { b: 1 } } },
      { required: { a: 1 }, extra: 1 },
    ]) {
      expect(() => compileAccessPolicy(bad)).toThrow(EpisodicError);
      try {
        compileAccessPolicy(bad);
      } catch (error) {
        expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
      }
    }
  });
});
