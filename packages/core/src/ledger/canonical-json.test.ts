import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** Rebuilds a JSON value with every object's keys in a shuffled order. */
function shuffled(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((element) => shuffled(element, random));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  for (let index = entries.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [entries[index], entries[other]] = [
      entries[other] as [string, unknown],
      entries[index] as [string, unknown],
    ];
  }
  return Object.fromEntries(entries.map(([key, field]) => [key, shuffled(field, random)]));
}

describe('canonicalJson', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
    expect(canonicalJson({ a: undefined, b: -0 })).toBe('{"b":0}');
  });

  it('escapes lone surrogates, so the text is always well-formed', () => {
    const text = canonicalJson({ s: 'a\ud800b' });
    expect(text).toBe('{"s":"a\\ud800b"}');
    expect(text.isWellFormed()).toBe(true);
  });

  it('rejects what JSON cannot hold, naming the path', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] }, 'payload')).toThrow(/a\[1\] is NaN/);
    expect(() => canonicalJson({ when: new Date(0) }, 'payload')).toThrow(/when is a Date object/);
    expect(() => canonicalJson({ f: () => 1 }, 'payload')).toThrow(/f is a function/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic, 'payload')).toThrow(/circular/);
    expect(() => canonicalJson(undefined, 'payload')).toThrow(/undefined/);
  });

  it('writes values that are already in canonical order exactly as unordered ones', () => {
    // Sorted input takes the native writer; these are the cases where the two could differ.
    expect(canonicalJson({ '10': 'a', '9': 'b', x: 1 })).toBe('{"10":"a","9":"b","x":1}');
    expect(canonicalJson({ '9': 'b', '10': 'a', x: 1 })).toBe('{"10":"a","9":"b","x":1}');
    expect(canonicalJson({ a: -0, b: [1e21, 0.1], c: 'é\u2028' })).toBe(
      '{"a":0,"b":[1e+21,0.1],"c":"é\u2028"}',
    );
    expect(canonicalJson(Object.assign(Object.create(null), { a: 1 }))).toBe('{"a":1}');
    expect(() => canonicalJson({ a: 1, toJSON: () => 'x' }, 'payload')).toThrow(
      /toJSON is a function/,
    );
    expect(() => canonicalJson({ a: [1, undefined] }, 'payload')).toThrow(/a\[1\] is undefined/);
    // A bigint is an integer read exactly (parseJsonExact): written as its digits.
    expect(canonicalJson({ a: 12345678901234567890n })).toBe('{"a":12345678901234567890}');
  });

  it('writes unsorted objects with the same text whichever writer runs', () => {
    expect(canonicalJson({ b: { y: 1, x: [{ q: 1, p: 2 }] }, a: null })).toBe(
      '{"a":null,"b":{"x":[{"p":2,"q":1}],"y":1}}',
    );
    // Keys read from objects that do not have them: absent, inherited names and __proto__.
    expect(canonicalJson({ z: { toString: 'own' }, y: {}, x: { constructor: 1 } })).toBe(
      '{"x":{"constructor":1},"y":{},"z":{"toString":"own"}}',
    );
    expect(canonicalJson({ b: {}, a: JSON.parse('{"__proto__":1}') })).toBe(
      '{"a":{"__proto__":1},"b":{}}',
    );
    const many = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`k${99 - index}`, { [`n${index}`]: index }]),
    );
    expect(JSON.parse(canonicalJson(many))).toEqual(many);
    expect(Object.keys(JSON.parse(canonicalJson(many)))).toEqual(Object.keys(many).sort());
  });

  it('does not depend on key order, and round-trips through JSON.parse (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        let state = seed >>> 0 || 1;
        const random = () => {
          state = (Math.imul(state, 1103515245) + 12345) >>> 0;
          return state / 2 ** 32;
        };
        const text = canonicalJson(value);
        expect(canonicalJson(shuffled(value, random))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});
