import type { MetadataScalar } from '../schema/metadata.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import {
  compareMetadataScalars,
  metadataScalarsEqual,
  metadataValuesOf,
} from './compare-metadata.js';
import {
  METADATA_FILTER_MAX_DEPTH,
  type MetadataCondition,
  type MetadataFilter,
  metadataFilterSchema,
  splitFilterList,
} from './metadata-filter.js';

/** A compiled filter: tests ONE episode's metadata (any value; never throws). */
export type MetadataPredicate = (metadata: unknown) => boolean;

type ValuesTest = (values: MetadataScalar[]) => boolean;

/** A set of scalars that keeps `5`, `"5"` and `true` apart. */
function scalarSet(items: ReadonlyArray<MetadataScalar>): (value: MetadataScalar) => boolean {
  const strings = new Set<string>();
  const numbers = new Set<number>();
  const booleans = new Set<boolean>();
  for (const item of items) {
    if (typeof item === 'string') strings.add(item);
    else if (typeof item === 'number') numbers.add(item);
    else booleans.add(item);
  }
  return (value) =>
    typeof value === 'string'
      ? strings.has(value)
      : typeof value === 'number'
        ? numbers.has(value)
        : booleans.has(value);
}

function ordering(value: MetadataScalar, accept: (order: number) => boolean): ValuesTest {
  return (values) => {
    for (const candidate of values) {
      const order = compareMetadataScalars(candidate, value);
      if (order !== undefined && accept(order)) return true;
    }
    return false;
  };
}

function compileCondition(condition: MetadataCondition): MetadataPredicate {
  const key = condition.property_name;
  const value = condition.property_value;
  let test: ValuesTest;
  switch (condition.comparison_operator) {
    case '=': {
      const wanted = value as MetadataScalar;
      test = (values) => values.some((candidate) => metadataScalarsEqual(candidate, wanted));
      break;
    }
    case '<>': {
      const unwanted = value as MetadataScalar;
      test = (values) =>
        values.length > 0 && !values.some((candidate) => metadataScalarsEqual(candidate, unwanted));
      break;
    }
    case '>':
      test = ordering(value as MetadataScalar, (order) => order > 0);
      break;
    case '>=':
      test = ordering(value as MetadataScalar, (order) => order >= 0);
      break;
    case '<':
      test = ordering(value as MetadataScalar, (order) => order < 0);
      break;
    case '<=':
      test = ordering(value as MetadataScalar, (order) => order <= 0);
      break;
    case 'IN':
    case 'CONTAINS': {
      // Zep's CONTAINS: a value (element-wise for arrays) equals one of the listed values.
      const member = scalarSet(
        typeof value === 'string' ? splitFilterList(value) : (value as MetadataScalar[]),
      );
      test = (values) => values.some(member);
      break;
    }
    case 'HAS SUBSTRING': {
      const needles = typeof value === 'string' ? [value] : (value as string[]);
      test = (values) =>
        needles.every((needle) =>
          values.some((candidate) => typeof candidate === 'string' && candidate.includes(needle)),
        );
      break;
    }
    case 'IS NULL':
      test = (values) => values.length === 0;
      break;
    case 'IS NOT NULL':
      test = (values) => values.length > 0;
      break;
  }
  return (metadata) => test(metadataValuesOf(metadata, key));
}

function compileGroup(group: MetadataFilter): MetadataPredicate {
  const members: MetadataPredicate[] = [
    ...(group.filters ?? []).map(compileCondition),
    ...(group.groups ?? []).map(compileGroup),
  ];
  if (members.length === 0) return () => true;
  if (group.type === 'and') return (metadata) => members.every((member) => member(metadata));
  return (metadata) => members.some((member) => member(metadata));
}

/**
 * Rejects absurdly deep input before zod walks it recursively (a deeply nested object from an MCP
 * client would otherwise overflow the stack instead of giving a validation error).
 */
function assertNotTooDeep(filter: unknown): void {
  let level: unknown[] = [filter];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > METADATA_FILTER_MAX_DEPTH) {
      throw invalidField(
        'metadata filter',
        'groups',
        '(deeply nested groups)',
        `must not nest groups more than ${METADATA_FILTER_MAX_DEPTH} levels deep: flatten the filter`,
      );
    }
    const next: unknown[] = [];
    for (const group of level) {
      const groups =
        typeof group === 'object' && group !== null
          ? (group as { groups?: unknown }).groups
          : undefined;
      if (Array.isArray(groups)) next.push(...groups.slice(0, 1_000));
    }
    level = next;
  }
}

/**
 * Validates `filter` and returns `{ filter, predicate }`: the parsed filter and a function that
 * tests one episode's metadata. Compile once, then test many rows (ledger queries, artifact
 * listings). Throws `VALIDATION_ERROR` naming the bad field.
 */
export function compileMetadataFilter(filter: unknown): {
  filter: MetadataFilter;
  predicate: MetadataPredicate;
} {
  assertNotTooDeep(filter);
  const parsed = parseInput(metadataFilterSchema, filter, 'metadata filter');
  return { filter: parsed, predicate: compileGroup(parsed) };
}

/**
 * True when ONE episode's (or one ledger event's) metadata satisfies `filter`. Validates the filter
 * on every call; in a loop over many rows use `compileMetadataFilter` once instead. Never throws on
 * the metadata: anything that is not a metadata object counts as empty metadata.
 */
export function matchesMetadataFilter(filter: MetadataFilter, metadata: unknown): boolean {
  return compileMetadataFilter(filter).predicate(metadata);
}

/**
 * The artifact rule (seed 003): true when at least one SINGLE episode's metadata satisfies the
 * whole filter. Conditions are never evaluated against the merged (effective) metadata, so an
 * `and` group whose conditions hold in two different episodes does not match. No episodes: false.
 */
export function matchesAnyEpisodeMetadata(
  filter: MetadataFilter | MetadataPredicate,
  episodesMetadata: Iterable<unknown>,
): boolean {
  const predicate = typeof filter === 'function' ? filter : compileMetadataFilter(filter).predicate;
  for (const metadata of episodesMetadata) if (predicate(metadata)) return true;
  return false;
}
