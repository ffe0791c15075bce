import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Metadata } from '../schema/index.js';
import { metadataArbitrary } from './__fixtures__/arbitraries.js';
import { effectiveMetadata } from './effective-metadata.js';

/** Reference: flatten every (key, value) in episode order, keep the first of each equal pair. */
function referenceEffective(episodes: Array<Metadata | undefined>): Record<string, unknown[]> {
  const pairs: Array<[string, unknown]> = [];
  for (const metadata of episodes) {
    for (const [key, value] of Object.entries(metadata ?? {})) {
      for (const element of Array.isArray(value) ? value : [value]) pairs.push([key, element]);
    }
  }
  const result: Array<[string, unknown[]]> = [];
  for (const [key, value] of pairs) {
    let entry = result.find(([name]) => name === key);
    if (entry === undefined) {
      entry = [key, []];
      result.push(entry);
    }
    if (!entry[1].some((seen) => Object.is(seen, value) || (seen === 0 && value === 0))) {
      entry[1].push(value);
    }
  }
  return Object.fromEntries(result);
}

describe('effectiveMetadata', () => {
  it("projects seed 003's example exactly", () => {
    const projected = effectiveMetadata([
      { source: 'crm', priority: 5 },
      { source: 'support_ticket', reviewed: true },
    ]);
    expect(projected).toStrictEqual({
      source: ['crm', 'support_ticket'],
      priority: [5],
      reviewed: [true],
    });
    expect(Object.keys(projected)).toEqual(['source', 'priority', 'reviewed']);
  });

  it('keeps first-seen order, flattens arrays and keeps 5, "5" and true apart', () => {
    expect(
      effectiveMetadata([
        { tags: ['b', 'a'], n: 5 },
        undefined,
        null,
        { tags: ['a', 'c'], n: '5' },
        { tags: 'b', n: [5, true, -0, 0] },
      ]),
    ).toStrictEqual({ tags: ['b', 'a', 'c'], n: [5, '5', true, -0] });
    expect(effectiveMetadata([])).toStrictEqual({});
    expect(effectiveMetadata([{ empty: [] }])).toStrictEqual({});
  });

  it('keeps a key named __proto__ as a plain key', () => {
    const projected = effectiveMetadata([JSON.parse('{"__proto__": "x"}') as Metadata]);
    expect(Object.getPrototypeOf(projected)).toBe(Object.prototype);
    expect(Object.hasOwn(projected, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(projected, '__proto__')?.value).toEqual(['x']);
  });

  it('equals the reference projection: distinct values, first-seen order (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(metadataArbitrary, { nil: undefined }), { maxLength: 5 }),
        (episodes) => {
          const projected = effectiveMetadata(episodes);
          expect(projected).toEqual(referenceEffective(episodes));
          for (const values of Object.values(projected)) {
            expect(new Set(values.map((value) => `${typeof value}:${String(value)}`)).size).toBe(
              values.length,
            );
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('does not depend on repeated episodes: projecting [a, b, a] equals projecting [a, b] (property)', () => {
    fc.assert(
      fc.property(metadataArbitrary, metadataArbitrary, (first, second) => {
        expect(effectiveMetadata([first, second, first])).toEqual(
          effectiveMetadata([first, second]),
        );
      }),
    );
  });
});
