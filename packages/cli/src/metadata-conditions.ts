import type { MetadataFilter } from '@episodic/core';
import { UsageError } from './usage-error.js';

/** A scalar a `--metadata` condition compares with. */
export type ConditionScalar = string | number | boolean;

/** One condition as the metadata filter language writes it (seed 003). */
export interface ParsedCondition {
  property_name: string;
  comparison_operator:
    | '='
    | '<>'
    | '>'
    | '<'
    | '>='
    | '<='
    | 'IN'
    | 'CONTAINS'
    | 'HAS SUBSTRING'
    | 'IS NULL'
    | 'IS NOT NULL';
  property_value?: ConditionScalar | ConditionScalar[];
}

// Two-character operators first, so `>=` is not read as `>` followed by "=5".
const SYMBOLS = ['<>', '!=', '>=', '<=', '=', '>', '<'] as const;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const WORD_FORMS: ReadonlyArray<{
  pattern: RegExp;
  operator: ParsedCondition['comparison_operator'];
}> = [
  { pattern: /^(\S+)\s+IS\s+NOT\s+NULL$/i, operator: 'IS NOT NULL' },
  { pattern: /^(\S+)\s+IS\s+NULL$/i, operator: 'IS NULL' },
  { pattern: /^(\S+)\s+IN\s+(.+)$/i, operator: 'IN' },
  { pattern: /^(\S+)\s+CONTAINS\s+(.+)$/i, operator: 'CONTAINS' },
  { pattern: /^(\S+)\s+HAS\s+SUBSTRING\s+(.+)$/i, operator: 'HAS SUBSTRING' },
];

const SYNTAX =
  'write key=value, key<>value, key>=5 (also >, <, <=), "key IN a,b", "key CONTAINS a,b", "key HAS SUBSTRING text", "key IS NULL" or "key IS NOT NULL"';

function invalid(condition: string, reason: string): UsageError {
  return new UsageError(
    `Invalid --metadata ${JSON.stringify(condition)}: ${reason}; ${SYNTAX}.`,
    'VALIDATION_ERROR',
  );
}

/**
 * A value as written on the command line: `true`/`false` are booleans, a JSON number is a number,
 * a double-quoted JSON string is that string (write `"5"` to compare with the text 5), anything
 * else is the text itself.
 */
export function parseConditionValue(text: string, condition: string): ConditionScalar {
  const value = text.trim();
  if (value.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // reported below
    }
    throw invalid(condition, `${value} is not a valid double-quoted string`);
  }
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (NUMBER.test(value)) {
    const number = Number(value);
    if (Number.isFinite(number)) return number;
  }
  if (value === '') throw invalid(condition, 'the value is empty (write "" for an empty string)');
  return value;
}

/** The first symbol operator and where it starts, or null. */
function findSymbol(text: string): { index: number; symbol: (typeof SYMBOLS)[number] } | null {
  for (let index = 0; index < text.length; index++) {
    for (const symbol of SYMBOLS) {
      if (text.startsWith(symbol, index)) return { index, symbol };
    }
  }
  return null;
}

/** Parses one `--metadata` condition. Keys cannot contain spaces or operator characters. */
export function parseMetadataCondition(condition: string): ParsedCondition {
  const text = condition.trim();
  const found = findSymbol(text);
  if (found !== null) {
    const key = text.slice(0, found.index).trim();
    if (key !== '' && !/\s/.test(key)) {
      const operator = found.symbol === '!=' ? '<>' : found.symbol;
      const value = parseConditionValue(text.slice(found.index + found.symbol.length), condition);
      return { property_name: key, comparison_operator: operator, property_value: value };
    }
    if (key === '') throw invalid(condition, 'the key is missing');
  }
  for (const { pattern, operator } of WORD_FORMS) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const key = match[1] as string;
    if (operator === 'IS NULL' || operator === 'IS NOT NULL') {
      return { property_name: key, comparison_operator: operator };
    }
    const list = match[2] as string;
    if (operator === 'HAS SUBSTRING') {
      return { property_name: key, comparison_operator: operator, property_value: list.trim() };
    }
    const items = list
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    if (items.length === 0) throw invalid(condition, `the ${operator} list is empty`);
    return {
      property_name: key,
      comparison_operator: operator,
      property_value: items.map((item) => parseConditionValue(item, condition)),
    };
  }
  throw invalid(condition, 'no operator found');
}

/** A metadata filter from `--metadata` conditions (all must hold) and an optional JSON filter. */
export function buildMetadataFilter(
  conditions: readonly string[] | undefined,
  jsonFilter: unknown,
): MetadataFilter | undefined {
  if ((conditions === undefined || conditions.length === 0) && jsonFilter === undefined)
    return undefined;
  const filters = (conditions ?? []).map(parseMetadataCondition);
  return {
    type: 'and',
    filters,
    // The JSON filter is validated by core when the filter is compiled (before any store opens).
    ...(jsonFilter === undefined ? {} : { groups: [jsonFilter as MetadataFilter] }),
  };
}
