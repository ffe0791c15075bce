import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import type { Metadata } from '../schema/index.js';
import {
  conditionArbitrary,
  filterArbitrary,
  metadataArbitrary,
} from './__fixtures__/arbitraries.js';
import {
  compileMetadataFilter,
  matchesAnyEpisodeMetadata,
  matchesMetadataFilter,
} from './evaluate-filter.js';
import type { MetadataCondition, MetadataFilter } from './metadata-filter.js';

// ---------------------------------------------------------------------------------------------
// A naive reference model of the documented semantics, written independently of the evaluator:
// plain loops, code point arrays for string order, no compilation, no shared helpers.
// ---------------------------------------------------------------------------------------------

type Scalar = string | number | boolean;

function referenceValues(metadata: Metadata | undefined, key: string): Scalar[] {
  if (metadata === undefined) return [];
  const own = Object.getOwnPropertyNames(metadata).includes(key);
  if (!own) return [];
  const value = metadata[key];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function referenceOrder(left: Scalar, right: Scalar): number | null {
  if (typeof left === 'number' && typeof right === 'number') {
    if (left === right) return 0;
    return left < right ? -1 : 1;
  }
  if (typeof left === 'string' && typeof right === 'string') {
    const a = Array.from(left, (character) => character.codePointAt(0) as number);
    const b = Array.from(right, (character) => character.codePointAt(0) as number);
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      if (a[index] !== b[index]) return (a[index] as number) < (b[index] as number) ? -1 : 1;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  return null;
}

function referenceList(value: unknown): Scalar[] {
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0);
  }
  return value as Scalar[];
}

function referenceCondition(condition: MetadataCondition, metadata: Metadata | undefined): boolean {
  const values = referenceValues(metadata, condition.property_name);
  const wanted = condition.property_value as Scalar;
  let found = false;
  switch (condition.comparison_operator) {
    case 'IS NULL':
      return values.length === 0;
    case 'IS NOT NULL':
      return values.length > 0;
    case '=':
      for (const value of values)
        if (typeof value === typeof wanted && value === wanted) found = true;
      return found;
    case '<>':
      if (values.length === 0) return false;
      for (const value of values)
        if (typeof value === typeof wanted && value === wanted) return false;
      return true;
    case 'IN':
    case 'CONTAINS':
      for (const value of values) {
        for (const item of referenceList(condition.property_value)) {
          if (typeof value === typeof item && value === item) found = true;
        }
      }
      return found;
    case 'HAS SUBSTRING': {
      const needles =
        typeof condition.property_value === 'string'
          ? [condition.property_value]
          : (condition.property_value as string[]);
      for (const needle of needles) {
        let hit = false;
        for (const value of values) {
          if (typeof value === 'string' && value.indexOf(needle) !== -1) hit = true;
        }
        if (!hit) return false;
      }
      return true;
    }
    default: {
      for (const value of values) {
        const order = referenceOrder(value, wanted);
        if (order === null) continue;
        if (condition.comparison_operator === '>' && order > 0) found = true;
        if (condition.comparison_operator === '>=' && order >= 0) found = true;
        if (condition.comparison_operator === '<' && order < 0) found = true;
        if (condition.comparison_operator === '<=' && order <= 0) found = true;
      }
      return found;
    }
  }
}

function referenceGroup(group: MetadataFilter, metadata: Metadata | undefined): boolean {
  const results = [
    ...(group.filters ?? []).map((condition) => referenceCondition(condition, metadata)),
    ...(group.groups ?? []).map((child) => referenceGroup(child, metadata)),
  ];
  if (results.length === 0) return true;
  return group.type === 'and' ? !results.includes(false) : results.includes(true);
}

const condition = (
  property_name: string,
  comparison_operator: MetadataCondition['comparison_operator'],
  property_value?: MetadataCondition['property_value'],
): MetadataFilter => ({
  type: 'and',
  filters: [
    property_value === undefined
      ? { property_name, comparison_operator }
      : { property_name, comparison_operator, property_value },
  ],
});

describe('matchesMetadataFilter (one episode)', () => {
  const episode: Metadata = { source: 'crm', priority: 5, reviewed: true, tags: ['auth', 'api'] };

  it('compares numbers as numbers and strings lexicographically', () => {
    expect(matchesMetadataFilter(condition('priority', '>', 4), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('priority', '>', 10), { priority: 9 })).toBe(false);
    // "10" < "9" as strings: no numeric coercion of string values.
    expect(matchesMetadataFilter(condition('version', '<', '9'), { version: '10' })).toBe(true);
    expect(matchesMetadataFilter(condition('source', '>=', 'crm'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('source', '<', 'crl'), episode)).toBe(false);
  });

  it('never coerces across types: priority > "5" does not match a numeric priority', () => {
    expect(matchesMetadataFilter(condition('priority', '>', '4'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('priority', '<=', '9'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('priority', '=', '5'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('reviewed', '=', 'true'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('reviewed', '=', true), episode)).toBe(true);
    // <> is "present and not equal": a number is never equal to a string.
    expect(matchesMetadataFilter(condition('priority', '<>', '5'), episode)).toBe(true);
  });

  it('treats a missing key as NULL: <> and comparisons fail, IS NULL holds', () => {
    expect(matchesMetadataFilter(condition('owner', '<>', 'bob'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('owner', 'IS NULL'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('owner', 'IS NOT NULL'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('owner', 'IS NULL'), undefined)).toBe(true);
    expect(matchesMetadataFilter(condition('tags', 'IS NULL'), { tags: [] })).toBe(true);
    expect(matchesMetadataFilter(condition('source', 'IS NOT NULL'), episode)).toBe(true);
  });

  it('matches array values element-wise', () => {
    expect(matchesMetadataFilter(condition('tags', '=', 'api'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('tags', '<>', 'api'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('tags', '<>', 'billing'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('scores', '>', 8), { scores: [1, 9] })).toBe(true);
    expect(matchesMetadataFilter(condition('scores', '>', 9), { scores: [1, 9] })).toBe(false);
  });

  it('IN takes an array or a comma-separated list', () => {
    expect(matchesMetadataFilter(condition('source', 'IN', ['crm', 'erp']), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('source', 'IN', 'erp, crm'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('priority', 'IN', [1, 5]), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('priority', 'IN', '1,5'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('tags', 'IN', ['billing', 'api']), episode)).toBe(true);
  });

  it('a filter moved from Zep: CONTAINS matches when a value equals one of the listed values', () => {
    expect(matchesMetadataFilter(condition('source', 'CONTAINS', 'erp, crm'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('source', 'CONTAINS', 'cr'), episode)).toBe(false);
    // Array values element-wise: one element equal to one listed value is enough.
    expect(matchesMetadataFilter(condition('tags', 'CONTAINS', 'billing,api'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('tags', 'CONTAINS', 'au, ap'), episode)).toBe(false);
    expect(matchesMetadataFilter(condition('priority', 'CONTAINS', [1, 5]), episode)).toBe(true);
    // No coercion, as for IN: the text "5" is not the number 5.
    expect(matchesMetadataFilter(condition('priority', 'CONTAINS', '5'), episode)).toBe(false);
  });

  it('HAS SUBSTRING needs every given text as a substring of some string value', () => {
    expect(matchesMetadataFilter(condition('source', 'HAS SUBSTRING', 'cr'), episode)).toBe(true);
    expect(matchesMetadataFilter(condition('tags', 'HAS SUBSTRING', ['au', 'ap']), episode)).toBe(
      true,
    );
    expect(
      matchesMetadataFilter(condition('tags', 'HAS SUBSTRING', ['au', 'billing']), episode),
    ).toBe(false);
    // One text: a comma is part of it, not a separator.
    expect(
      matchesMetadataFilter(condition('note', 'HAS SUBSTRING', 'a, b'), { note: 'x a, b' }),
    ).toBe(true);
    expect(matchesMetadataFilter(condition('priority', 'HAS SUBSTRING', '5'), episode)).toBe(false);
  });

  it('orders strings by code point, as SQLite BINARY does', () => {
    // '\uE000' sorts before an emoji by code point, after it by UTF-16 unit.
    expect(matchesMetadataFilter(condition('mark', '<', '\u{1F600}'), { mark: '\uE000' })).toBe(
      true,
    );
    expect(matchesMetadataFilter(condition('mark', '>', '\u{1F600}'), { mark: '\uE000' })).toBe(
      false,
    );
  });

  it('reads only own keys and survives any stored value', () => {
    expect(matchesMetadataFilter(condition('constructor', 'IS NOT NULL'), {})).toBe(false);
    expect(matchesMetadataFilter(condition('toString', 'IS NULL'), {})).toBe(true);
    const odd = JSON.parse('{"__proto__": "x", "nested": {"a": 1}, "n": null}') as Metadata;
    expect(matchesMetadataFilter(condition('__proto__', '=', 'x'), odd)).toBe(true);
    expect(matchesMetadataFilter(condition('nested', 'IS NULL'), odd)).toBe(true);
    expect(matchesMetadataFilter(condition('n', 'IS NULL'), odd)).toBe(true);
    expect(matchesMetadataFilter(condition('x', 'IS NULL'), 'not an object')).toBe(true);
  });

  it('joins groups with and/or, nests them, and treats an empty group as no constraint', () => {
    const filter: MetadataFilter = {
      type: 'or',
      filters: [{ property_name: 'source', comparison_operator: '=', property_value: 'erp' }],
      groups: [
        {
          type: 'and',
          filters: [
            { property_name: 'priority', comparison_operator: '>=', property_value: 5 },
            { property_name: 'reviewed', comparison_operator: '=', property_value: true },
          ],
        },
      ],
    };
    expect(matchesMetadataFilter(filter, episode)).toBe(true);
    expect(matchesMetadataFilter(filter, { ...episode, reviewed: false })).toBe(false);
    expect(matchesMetadataFilter({ type: 'or' }, {})).toBe(true);
    expect(matchesMetadataFilter({ type: 'and', filters: [], groups: [] }, undefined)).toBe(true);
  });

  it('rejects a malformed filter with VALIDATION_ERROR naming the field', () => {
    const bad = (filter: unknown) => {
      try {
        matchesMetadataFilter(filter as MetadataFilter, {});
      } catch (error) {
        if (EpisodicError.hasCode(error, 'VALIDATION_ERROR')) return error.message;
        throw error;
      }
      throw new Error('expected a VALIDATION_ERROR');
    };
    expect(bad(condition('priority', '>', true))).toContain('filters[0].property_value');
    expect(bad(condition('priority', '=', [1, 2]))).toContain('use IN');
    expect(bad(condition('priority', 'IS NULL', 1))).toContain('must be absent');
    expect(bad(condition('priority', 'IN', ' , '))).toContain('at least one value');
    expect(bad(condition('priority', 'CONTAINS', ' , '))).toContain('at least one value');
    expect(bad(condition('priority', 'HAS SUBSTRING', [1]))).toContain('HAS SUBSTRING');
    expect(bad(condition('priority', 'HAS SUBSTRING', ''))).toContain('HAS SUBSTRING');
    expect(bad(condition('priority', 'LIKE' as never, 'x'))).toContain('comparison_operator');
    expect(bad({ type: 'xor' })).toContain('type');
    expect(bad({ type: 'and', filter: [] })).toContain('filter');
    let deep: MetadataFilter = { type: 'and' };
    for (let level = 0; level < 10_000; level++) deep = { type: 'and', groups: [deep] };
    expect(bad(deep)).toContain('levels deep');
  });

  it('agrees with the naive reference model on every filter and metadata', () => {
    fc.assert(
      fc.property(filterArbitrary, metadataArbitrary, (filter, metadata) => {
        expect(matchesMetadataFilter(filter, metadata)).toBe(referenceGroup(filter, metadata));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees with the reference model condition by condition (exhaustive operators)', () => {
    fc.assert(
      fc.property(conditionArbitrary, metadataArbitrary, (single, metadata) => {
        const filter: MetadataFilter = { type: 'and', filters: [single] };
        expect(matchesMetadataFilter(filter, metadata)).toBe(referenceCondition(single, metadata));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('matchesAnyEpisodeMetadata (the single-episode rule)', () => {
  const crmAndHigh: MetadataFilter = {
    type: 'and',
    filters: [
      { property_name: 'source', comparison_operator: '=', property_value: 'crm' },
      { property_name: 'priority', comparison_operator: '>=', property_value: 5 },
    ],
  };

  it('does not match when the conditions hold in two different episodes', () => {
    const episodes = [
      { source: 'crm', priority: 1 },
      { source: 'support_ticket', priority: 9 },
    ];
    expect(matchesAnyEpisodeMetadata(crmAndHigh, episodes)).toBe(false);
    // The merged metadata would have matched: that is exactly what the rule forbids.
    expect(
      matchesMetadataFilter(crmAndHigh, { source: ['crm', 'support_ticket'], priority: [1, 9] }),
    ).toBe(true);
    expect(
      matchesAnyEpisodeMetadata(crmAndHigh, [...episodes, { source: 'crm', priority: 5 }]),
    ).toBe(true);
    expect(matchesAnyEpisodeMetadata(crmAndHigh, [])).toBe(false);
    expect(matchesAnyEpisodeMetadata({ type: 'and' }, [])).toBe(false);
  });

  it('matches exactly when some single episode matches (property)', () => {
    const { predicate } = compileMetadataFilter(crmAndHigh);
    fc.assert(
      fc.property(
        filterArbitrary,
        fc.array(metadataArbitrary, { maxLength: 4 }),
        (filter, episodes) => {
          expect(matchesAnyEpisodeMetadata(filter, episodes)).toBe(
            episodes.some((metadata) => referenceGroup(filter, metadata)),
          );
          expect(matchesAnyEpisodeMetadata(predicate, episodes)).toBe(
            episodes.some((metadata) => referenceGroup(crmAndHigh, metadata)),
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('an and-group split across episodes never matches unless one episode holds it all (property)', () => {
    // Two equality conditions on two keys; each episode carries only one of the two keys, so no
    // single episode can satisfy both, while their union always would.
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }), (which) => {
        const episodes = which.map((first) => (first ? { a: 1 } : { b: 2 }));
        const filter: MetadataFilter = {
          type: 'and',
          filters: [
            { property_name: 'a', comparison_operator: '=', property_value: 1 },
            { property_name: 'b', comparison_operator: '=', property_value: 2 },
          ],
        };
        expect(matchesAnyEpisodeMetadata(filter, episodes)).toBe(false);
        expect(matchesAnyEpisodeMetadata(filter, [...episodes, { a: 1, b: 2 }])).toBe(true);
      }),
    );
  });
});

describe('the README example', () => {
  it('accepts a filter written `as const` and evaluates it as documented', () => {
    const urgentCrm = {
      type: 'and',
      filters: [
        { property_name: 'source', comparison_operator: '=', property_value: 'crm' },
        { property_name: 'priority', comparison_operator: '>=', property_value: 5 },
      ],
      groups: [
        {
          type: 'or',
          filters: [
            { property_name: 'tags', comparison_operator: 'IN', property_value: 'billing, auth' },
            { property_name: 'reviewed', comparison_operator: 'IS NULL' },
          ],
        },
      ],
    } as const;
    expect(matchesMetadataFilter(urgentCrm, { source: 'crm', priority: 7, tags: ['auth'] })).toBe(
      true,
    );
    expect(
      matchesAnyEpisodeMetadata(urgentCrm, [
        { source: 'crm', priority: 1 },
        { source: 'erp', priority: 9 },
      ]),
    ).toBe(false);
  });
});
