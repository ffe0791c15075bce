import * as z from 'zod';
import { metadataScalarSchema } from '../schema/metadata.js';

/** The comparison operators of a metadata filter condition (seed 003). */
export const METADATA_FILTER_OPERATORS = [
  '=',
  '<>',
  '>',
  '<',
  '>=',
  '<=',
  'IN',
  'CONTAINS',
  'HAS SUBSTRING',
  'IS NULL',
  'IS NOT NULL',
] as const;
export type MetadataFilterOperator = (typeof METADATA_FILTER_OPERATORS)[number];

/** How a filter group joins its conditions and subgroups. */
export const METADATA_FILTER_GROUP_TYPES = ['and', 'or'] as const;
export type MetadataFilterGroupType = (typeof METADATA_FILTER_GROUP_TYPES)[number];

/** The deepest nesting of groups a filter may have (the top group is depth 1). */
export const METADATA_FILTER_MAX_DEPTH = 5;
/** The most conditions one filter may hold, counted over all of its groups. */
export const METADATA_FILTER_MAX_CONDITIONS = 100;
/** The most values one `IN`, `CONTAINS` or `HAS SUBSTRING` list may hold. */
export const METADATA_FILTER_MAX_LIST = 100;

/** A value a condition compares with: a scalar, or a list for `IN`, `CONTAINS` and `HAS SUBSTRING`. */
export type MetadataFilterValue =
  | string
  | number
  | boolean
  | ReadonlyArray<string | number | boolean>;

/**
 * One condition on one metadata key, e.g. `{ property_name: 'priority', comparison_operator: '>=',
 * property_value: 3 }`. It is evaluated against ONE episode's metadata at a time.
 */
export interface MetadataCondition {
  /** The metadata key to test. */
  property_name: string;
  /** The comparison. */
  comparison_operator: MetadataFilterOperator;
  /** The value to compare with; absent (or null) for `IS NULL` and `IS NOT NULL`. */
  property_value?: MetadataFilterValue | null | undefined;
}

/**
 * A group of conditions and nested groups joined by `and` or `or`. An empty group (no conditions,
 * no groups) places no constraint: it matches every episode, whatever its `type`.
 */
export interface MetadataFilter {
  /** `and`: every member must hold; `or`: at least one must hold. */
  type: MetadataFilterGroupType;
  /** Conditions of this group. */
  filters?: readonly MetadataCondition[] | undefined;
  /** Nested groups of this group. */
  groups?: readonly MetadataFilter[] | undefined;
}

const ORDERING: ReadonlySet<string> = new Set(['>', '<', '>=', '<=']);

/** The non-empty, trimmed items of a comma-separated list. */
export function splitFilterList(text: string): string[] {
  const items: string[] = [];
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item !== '') items.push(item);
  }
  return items;
}

const metadataFilterValueSchema = z.union([
  metadataScalarSchema,
  z.array(metadataScalarSchema).min(1).max(METADATA_FILTER_MAX_LIST),
]);

/** Explains why `value` does not suit `operator`, or returns null when it does. */
function valueProblem(operator: MetadataFilterOperator, value: unknown): string | null {
  const absent = value === undefined || value === null;
  if (operator === 'IS NULL' || operator === 'IS NOT NULL') {
    return absent ? null : `must be absent for ${operator}: remove property_value`;
  }
  if (absent) return `is required for ${operator}`;
  if (operator === '=' || operator === '<>') {
    return Array.isArray(value)
      ? `must be a single string, number or boolean for ${operator}; use IN to match any of several values`
      : null;
  }
  if (ORDERING.has(operator)) {
    return typeof value === 'number' || typeof value === 'string'
      ? null
      : `must be a number or a string for ${operator} (numbers compare as numbers, strings lexicographically)`;
  }
  if (operator === 'IN' || operator === 'CONTAINS') {
    if (typeof value === 'string') {
      return splitFilterList(value).length > 0
        ? null
        : `must list at least one value for ${operator} (an array, or a comma-separated string)`;
    }
    return Array.isArray(value)
      ? null
      : `must be an array of values, or a comma-separated string, for ${operator}`;
  }
  // HAS SUBSTRING: one text (commas are part of it), or several that must all occur.
  if (typeof value === 'string') {
    return value.length > 0 ? null : 'must be a non-empty text for HAS SUBSTRING';
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item.length > 0)) {
    return null;
  }
  return 'must be a non-empty text, or an array of non-empty texts, for HAS SUBSTRING';
}

/** One condition of a metadata filter. */
export const metadataConditionSchema = z
  .strictObject({
    property_name: z
      .string()
      .min(1)
      .max(64)
      .describe('The metadata key to test, e.g. "source" or "priority".'),
    comparison_operator: z
      .enum(METADATA_FILTER_OPERATORS)
      .describe(
        'The comparison: "=", "<>", ">", "<", ">=", "<=", "IN" and "CONTAINS" (a value equals one of a list, as in Zep), "HAS SUBSTRING" (every given text occurs in a string value), "IS NULL" (key missing), "IS NOT NULL" (key present).',
      ),
    property_value: metadataFilterValueSchema
      .nullable()
      .optional()
      .describe(
        'The value to compare with. A string, number or boolean for "=" and "<>"; a number or string for ordering operators; an array or a comma-separated string for "IN" and "CONTAINS"; a text (or an array of texts) for "HAS SUBSTRING"; omitted for "IS NULL" and "IS NOT NULL".',
      ),
  })
  .superRefine((condition, context) => {
    const problem = valueProblem(condition.comparison_operator, condition.property_value);
    if (problem !== null) {
      context.addIssue({ code: 'custom', path: ['property_value'], message: problem });
    }
  })
  .describe('One condition on one metadata key, evaluated against a single episode.');

const filterGroupSchema: z.ZodType<MetadataFilter> = z
  .strictObject({
    type: z
      .enum(METADATA_FILTER_GROUP_TYPES)
      .describe('"and": every condition and subgroup must hold; "or": at least one must hold.'),
    filters: z
      .array(metadataConditionSchema)
      .max(METADATA_FILTER_MAX_CONDITIONS)
      .optional()
      .describe('The conditions of this group.'),
    get groups() {
      return z
        .array(filterGroupSchema)
        .max(METADATA_FILTER_MAX_CONDITIONS)
        .optional()
        .describe('Nested groups, each with its own "type".');
    },
  })
  .describe(
    'A group of metadata conditions. An object matches when ONE of its episodes satisfies the whole group. An empty group matches everything.',
  );

function measure(group: MetadataFilter, depth: number): { depth: number; conditions: number } {
  let deepest = depth;
  let conditions = group.filters?.length ?? 0;
  for (const child of group.groups ?? []) {
    const inner = measure(child, depth + 1);
    deepest = Math.max(deepest, inner.depth);
    conditions += inner.conditions;
  }
  return { depth: deepest, conditions };
}

/**
 * A metadata filter (seed 003): a group `{ type: 'and' | 'or', filters, groups }` of conditions
 * and nested groups, at most 5 levels deep and 100 conditions in all. The schema has no
 * transforms, so `z.toJSONSchema` describes it for MCP tool inputs.
 */
export const metadataFilterSchema = filterGroupSchema.superRefine((filter, context) => {
  const { depth, conditions } = measure(filter, 1);
  if (depth > METADATA_FILTER_MAX_DEPTH) {
    context.addIssue({
      code: 'custom',
      path: ['groups'],
      message: `nests groups ${depth} levels deep; at most ${METADATA_FILTER_MAX_DEPTH} are allowed: flatten the filter`,
    });
  }
  if (conditions > METADATA_FILTER_MAX_CONDITIONS) {
    context.addIssue({
      code: 'custom',
      path: ['filters'],
      message: `holds ${conditions} conditions; at most ${METADATA_FILTER_MAX_CONDITIONS} are allowed: use IN lists or split the query`,
    });
  }
});
