import fc from 'fast-check';
import type { Metadata, MetadataScalar } from '../../schema/index.js';
import type { MetadataCondition, MetadataFilter } from '../metadata-filter.js';

/** A few keys, so that generated filters and metadata actually meet. */
export const keyArbitrary = fc.constantFrom(
  'source',
  'priority',
  'tags',
  'reviewed',
  'constructor',
);

/** Scalars that exercise every comparison: equal-looking values of different types, astral
 * characters and the U+E000 block (where UTF-16 order and code point order disagree). */
export const scalarArbitrary: fc.Arbitrary<MetadataScalar> = fc.oneof(
  fc.constantFrom('crm', 'support', 'su', '5', 'true', '', 'a,b', '\u{1F600}', '\uE000', 'Zed'),
  fc.constantFrom(-1, 0, 2.5, 5, 10),
  fc.boolean(),
);

export const metadataArbitrary: fc.Arbitrary<Metadata> = fc.dictionary(
  keyArbitrary,
  fc.oneof(scalarArbitrary, fc.array(scalarArbitrary, { maxLength: 3 })),
  { maxKeys: 4 },
);

const orderable = fc.oneof(
  fc.constantFrom('crm', 'su', '5', '', '\u{1F600}', '\uE000', 'Zed'),
  fc.constantFrom(-1, 0, 2.5, 5, 10),
);

export const conditionArbitrary: fc.Arbitrary<MetadataCondition> = fc.oneof(
  fc.record({
    property_name: keyArbitrary,
    comparison_operator: fc.constantFrom('=' as const, '<>' as const),
    property_value: scalarArbitrary,
  }),
  fc.record({
    property_name: keyArbitrary,
    comparison_operator: fc.constantFrom('>' as const, '<' as const, '>=' as const, '<=' as const),
    property_value: orderable,
  }),
  fc.record({
    property_name: keyArbitrary,
    comparison_operator: fc.constant('IN' as const),
    property_value: fc.oneof(
      fc.array(scalarArbitrary, { minLength: 1, maxLength: 3 }),
      fc.constantFrom('crm, support', 'su', '5,true'),
    ),
  }),
  fc.record({
    property_name: keyArbitrary,
    comparison_operator: fc.constant('CONTAINS' as const),
    property_value: fc.oneof(
      fc.array(scalarArbitrary, { minLength: 1, maxLength: 3 }),
      fc.constantFrom('crm, support', 'su', 'a,b', 'auth ,api'),
    ),
  }),
  fc.record({
    property_name: keyArbitrary,
    comparison_operator: fc.constant('HAS SUBSTRING' as const),
    property_value: fc.oneof(
      fc.constantFrom('su', 'r', 'crm,su', 'a,b', ' upp '),
      fc.array(fc.constantFrom('s', 'up', '\u{1F600}'), { minLength: 1, maxLength: 2 }),
    ),
  }),
  fc.record({
    property_name: keyArbitrary,
    comparison_operator: fc.constantFrom('IS NULL' as const, 'IS NOT NULL' as const),
  }),
);

/** Filters up to three levels deep. */
export const filterArbitrary: fc.Arbitrary<MetadataFilter> = fc.letrec<{ group: MetadataFilter }>(
  (tie) => ({
    group: fc.record(
      {
        type: fc.constantFrom('and' as const, 'or' as const),
        filters: fc.array(conditionArbitrary, { maxLength: 3 }),
        groups: fc.oneof(
          { depthSize: 'small', maxDepth: 3, depthIdentifier: 'filter', withCrossShrink: true },
          fc.constant([] as MetadataFilter[]),
          fc.array(tie('group'), { maxLength: 2 }),
        ),
      },
      { requiredKeys: ['type'] },
    ),
  }),
).group;
