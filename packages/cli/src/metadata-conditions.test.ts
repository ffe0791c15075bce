import { compileMetadataFilter, matchesMetadataFilter } from '@episodic/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildMetadataFilter,
  parseConditionValue,
  parseMetadataCondition,
} from './metadata-conditions.js';
import { UsageError } from './usage-error.js';

const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,20}$/);
const text = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,15}[A-Za-z0-9]$/)
  .filter((value) => !['true', 'false'].includes(value.trim()));
const scalar = fc.oneof(text, fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.boolean());

describe('parseMetadataCondition', () => {
  it('reads every symbol operator, with or without spaces', () => {
    expect(parseMetadataCondition('source=crm')).toEqual({
      property_name: 'source',
      comparison_operator: '=',
      property_value: 'crm',
    });
    expect(parseMetadataCondition('priority >= 5')).toEqual({
      property_name: 'priority',
      comparison_operator: '>=',
      property_value: 5,
    });
    expect(parseMetadataCondition('priority<5')).toMatchObject({
      comparison_operator: '<',
      property_value: 5,
    });
    expect(parseMetadataCondition('priority<=5')).toMatchObject({ comparison_operator: '<=' });
    expect(parseMetadataCondition('priority>5')).toMatchObject({ comparison_operator: '>' });
    expect(parseMetadataCondition('reviewed<>true')).toEqual({
      property_name: 'reviewed',
      comparison_operator: '<>',
      property_value: true,
    });
    expect(parseMetadataCondition('reviewed!=false')).toMatchObject({
      comparison_operator: '<>',
      property_value: false,
    });
  });

  it('reads the word operators', () => {
    expect(parseMetadataCondition('tags IN billing, auth ,5')).toEqual({
      property_name: 'tags',
      comparison_operator: 'IN',
      property_value: ['billing', 'auth', 5],
    });
    expect(parseMetadataCondition('tags contains billing, 5')).toEqual({
      property_name: 'tags',
      comparison_operator: 'CONTAINS',
      property_value: ['billing', 5],
    });
    expect(parseMetadataCondition('note has substring rate, limit')).toEqual({
      property_name: 'note',
      comparison_operator: 'HAS SUBSTRING',
      property_value: 'rate, limit',
    });
    expect(parseMetadataCondition('reviewed IS NULL')).toEqual({
      property_name: 'reviewed',
      comparison_operator: 'IS NULL',
    });
    expect(parseMetadataCondition('reviewed is not null')).toEqual({
      property_name: 'reviewed',
      comparison_operator: 'IS NOT NULL',
    });
  });

  it('keeps a symbol in the value, and a value with spaces', () => {
    expect(parseMetadataCondition('note=is in stock')).toEqual({
      property_name: 'note',
      comparison_operator: '=',
      property_value: 'is in stock',
    });
    expect(parseMetadataCondition('formula=a>=b')).toEqual({
      property_name: 'formula',
      comparison_operator: '=',
      property_value: 'a>=b',
    });
    expect(parseMetadataCondition('name IN a=b,c')).toEqual({
      property_name: 'name',
      comparison_operator: 'IN',
      property_value: ['a=b', 'c'],
    });
  });

  it('types values: numbers, booleans, quoted strings', () => {
    expect(parseConditionValue('5', 'c')).toBe(5);
    expect(parseConditionValue('-2.5e3', 'c')).toBe(-2500);
    expect(parseConditionValue('"5"', 'c')).toBe('5');
    expect(parseConditionValue('"true"', 'c')).toBe('true');
    expect(parseConditionValue('05', 'c')).toBe('05');
    expect(parseConditionValue('""', 'c')).toBe('');
  });

  it('refuses what it cannot read, naming the condition', () => {
    for (const bad of ['nokey', '=5', 'key=', 'key IN ,', 'key="unterminated', '  ']) {
      expect(() => parseMetadataCondition(bad)).toThrow(UsageError);
      try {
        parseMetadataCondition(bad);
      } catch (error) {
        expect((error as UsageError).code).toBe('VALIDATION_ERROR');
        expect((error as Error).message).toContain(JSON.stringify(bad));
      }
    }
  });

  it('round-trips key, operator and value (property)', () => {
    const operators = ['=', '<>', '>', '<', '>=', '<='] as const;
    fc.assert(
      fc.property(
        key,
        fc.constantFrom(...operators),
        scalar,
        fc.boolean(),
        (name, operator, value, spaced) => {
          const written = typeof value === 'string' ? value : String(value);
          const condition = spaced
            ? `${name} ${operator} ${written}`
            : `${name}${operator}${written}`;
          expect(parseMetadataCondition(condition)).toEqual({
            property_name: name,
            comparison_operator: operator,
            property_value: value,
          });
        },
      ),
    );
  });

  it('never throws anything but a UsageError, and whatever it returns core accepts (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (condition) => {
        try {
          const parsed = parseMetadataCondition(condition);
          const filter = buildMetadataFilter([condition], undefined);
          expect(filter?.filters).toEqual([parsed]);
          try {
            compileMetadataFilter(filter);
          } catch (error) {
            // Core may still refuse a value for an operator (a boolean for >): as a validation error.
            expect((error as { code?: string }).code).toBe('VALIDATION_ERROR');
          }
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
      }),
    );
  });

  it('builds an AND of conditions, with the JSON filter as a group', () => {
    const filter = buildMetadataFilter(['source=crm', 'priority>=5'], {
      type: 'or',
      filters: [{ property_name: 'x', comparison_operator: 'IS NULL' }],
    });
    expect(matchesMetadataFilter(filter as never, { source: 'crm', priority: 7 })).toBe(true);
    expect(matchesMetadataFilter(filter as never, { source: 'crm', priority: 7, x: 1 })).toBe(
      false,
    );
    expect(matchesMetadataFilter(filter as never, { source: 'erp', priority: 7 })).toBe(false);
    expect(buildMetadataFilter(undefined, undefined)).toBeUndefined();
  });
});
