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
