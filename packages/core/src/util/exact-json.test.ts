import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../ledger/canonical-json.js';
import { ExactJsonError, parseJsonExact, safeParseJsonExact, stringifyJson } from './exact-json.js';

describe('parseJsonExact', () => {
  it('an integer beyond 2^53 reads back with every digit (12345678901234567890 stays …890)', () => {
    const value = parseJsonExact(
      '{"id":12345678901234567890,"small":5,"neg":-98765432109876543210}',
    );
    expect(value).toEqual({ id: 12345678901234567890n, small: 5, neg: -98765432109876543210n });
    expect(canonicalJson(value)).toBe(
      '{"id":12345678901234567890,"neg":-98765432109876543210,"small":5}',
    );
    expect(stringifyJson(value)).toBe(
      '{"id":12345678901234567890,"small":5,"neg":-98765432109876543210}',
    );
  });

  it('refuses a number it cannot keep, naming it and its position', () => {
    const failure = (text: string) => {
      try {
        parseJsonExact(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ExactJsonError);
        return error as ExactJsonError;
      }
      throw new Error(`expected ${text} to be refused`);
    };
    expect(failure('[0.1000000000000000055511151231257827]').message).toContain(
      'cannot be kept exactly (it would become 0.1)',
    );
    expect(failure('{"a": 1e400}').message).toContain('1e400 at position 6 is too large');
    expect(failure('1e-400').message).toContain('cannot be kept exactly');
    expect(failure('12345678901234567890.5').index).toBe(0);
    expect(failure('{"a": Infinity}').index).toBe(6);
    expect(failure('[1, 2').message).toContain('end of JSON');
    expect(safeParseJsonExact('{"ratio":Infinity}')).toMatchObject({ success: false });
  });

  it('keeps notation-only differences: 1.50, 1e2, -0 and 0.1 are exactly their doubles', () => {
    expect(parseJsonExact('[1.50, 1e2, -0, 0.1, 1E+21, 9007199254740991]')).toEqual([
      1.5, 100, -0, 0.1, 1e21, 9007199254740991,
    ]);
  });

  it('property: equals JSON.parse on every JSON text, integers beyond 2^53 as bigints of the same value', () => {
    // An integer written beyond the safe range stays a bigint even when a double holds its value
    // (1e21 is exact as a double, but a double would be written back as "1e+21").
    const asNumbers = (value: unknown): unknown => {
      if (typeof value === 'bigint') {
        expect(Number.isSafeInteger(Number(value))).toBe(false);
        return Number(value);
      }
      if (Array.isArray(value)) return value.map(asNumbers);
      if (typeof value === 'object' && value !== null) {
        return Object.fromEntries(
          Object.entries(value).map(([key, item]) => [key, asNumbers(item)]),
        );
      }
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(asNumbers(parseJsonExact(text))).toEqual(JSON.parse(text));
        expect(asNumbers(parseJsonExact(JSON.stringify(value, null, 2)))).toEqual(JSON.parse(text));
      }),
    );
  });

  it('property: any integer, however long, survives parse and canonical JSON digit for digit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.string(), (big, key) => {
        const text = `{${JSON.stringify(key)}:[${big}]}`;
        expect(canonicalJson(parseJsonExact(text))).toBe(text);
        expect(stringifyJson(parseJsonExact(text))).toBe(text);
      }),
    );
  });

  it('stringifyJson cannot be fooled by a string that looks like its marker', () => {
    const tricky = { text: '\u0000bigint-abc:123', big: 2n ** 70n };
    expect(JSON.parse(stringifyJson(tricky)).text).toBe(tricky.text);
    expect(stringifyJson(tricky)).toContain(`"big":${2n ** 70n}`);
    expect(stringifyJson({ a: [1, 'x'] }, 2)).toBe(JSON.stringify({ a: [1, 'x'] }, null, 2));
  });
});
