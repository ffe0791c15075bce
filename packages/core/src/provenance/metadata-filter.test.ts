import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { accessPolicySchema } from './access-policy.js';
import { metadataFilterSchema } from './metadata-filter.js';

describe('metadataFilterSchema', () => {
  it('converts to JSON Schema (for MCP tool inputs) with descriptions', () => {
    const schema = JSON.stringify(z.toJSONSchema(metadataFilterSchema));
    expect(schema).toContain('comparison_operator');
    expect(schema).toContain('IS NOT NULL');
    expect(schema).toContain('ONE of its episodes');
    expect(() => z.toJSONSchema(accessPolicySchema)).not.toThrow();
  });

  it('limits depth and the number of conditions', () => {
    const condition = { property_name: 'a', comparison_operator: '=', property_value: 1 };
    const wide = {
      type: 'and',
      filters: Array.from({ length: 60 }, () => condition),
      groups: [{ type: 'or', filters: Array.from({ length: 60 }, () => condition) }],
    };
    expect(metadataFilterSchema.safeParse(wide).success).toBe(false);
    let deep: object = { type: 'and' };
    for (let level = 1; level < 5; level++) deep = { type: 'and', groups: [deep] };
    expect(metadataFilterSchema.safeParse(deep).success).toBe(true);
    expect(metadataFilterSchema.safeParse({ type: 'and', groups: [deep] }).success).toBe(false);
  });

  it('accepts null as "no value" for IS NULL and rejects it elsewhere', () => {
    const parse = (operator: string, value: unknown) =>
      metadataFilterSchema.safeParse({
        type: 'and',
        filters: [{ property_name: 'a', comparison_operator: operator, property_value: value }],
      }).success;
    expect(parse('IS NULL', null)).toBe(true);
    expect(parse('IS NOT NULL', undefined)).toBe(true);
    expect(parse('=', null)).toBe(false);
    expect(parse('>', 'b')).toBe(true);
    expect(parse('IN', [1, 'a', true])).toBe(true);
    expect(parse('CONTAINS', [1, 'a', true])).toBe(true);
    expect(parse('HAS SUBSTRING', ['a', ''])).toBe(false);
  });
});
