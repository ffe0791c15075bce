import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { truncateUtf8, utf8ByteLength } from './utf8.js';

const encoder = new TextEncoder();

describe('utf8ByteLength', () => {
  it('matches TextEncoder, counting a lone surrogate as U+FFFD (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('truncateUtf8', () => {
  it('never splits a code point', () => {
    expect(truncateUtf8('a😀b', 4)).toBe('a');
    expect(truncateUtf8('a😀b', 5)).toBe('a😀');
    expect(truncateUtf8('ééé', 5)).toBe('éé');
    expect(truncateUtf8('abc', 0)).toBe('');
    expect(truncateUtf8('abc', 10)).toBe('abc');
  });

  it('rejects a negative or fractional cap', () => {
    expect(() => truncateUtf8('abc', -1)).toThrow(RangeError);
    expect(() => truncateUtf8('abc', 1.5)).toThrow(RangeError);
  });

  it('output ≤ cap, well-formed, a prefix of the (well-formed) input, and maximal (property)', () => {
    const texts = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 100 }),
      fc
        .array(fc.constantFrom('😀', 'é', 'a', '中', '\ud800', '\udc00', '👩‍👩‍👧'), {
          maxLength: 100,
        })
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 1200 }), (text, cap) => {
        const output = truncateUtf8(text, cap);
        expect(encoder.encode(output).length).toBeLessThanOrEqual(cap);
        expect(output.isWellFormed()).toBe(true);
        const source = text.toWellFormed();
        expect(source.startsWith(output)).toBe(true);
        if (text.isWellFormed()) expect(text.startsWith(output)).toBe(true);
        if (output.length < source.length) {
          const next = String.fromCodePoint(source.codePointAt(output.length) as number);
          expect(encoder.encode(output + next).length).toBeGreaterThan(cap);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
