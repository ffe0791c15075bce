import { stringifyJson } from '@episodic/core/adapter';
import { MAX_TOOL_TEXT, sanitizeText } from './sanitize-text.js';

/** A JSON value as tool results carry it. */
export type OutputJson =
  | string
  | number
  /** An integer beyond 2^53 read exactly from a payload: written as its digits. */
  | bigint
  | boolean
  | null
  | OutputJson[]
  | { [key: string]: OutputJson };

/**
 * Copies a value into plain JSON with every string and every object key sanitized: no terminal
 * escapes, C0/C1 controls (except tab and newline), bidi, zero-width or tag characters survive,
 * and no string is longer than `maxString` characters. Values JSON cannot hold are dropped.
 */
export function sanitizeJson(value: unknown, maxString = MAX_TOOL_TEXT): OutputJson | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
      return sanitizeText(value, maxString);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
    case 'boolean':
      return value;
    case 'object': {
      if (Array.isArray(value)) {
        return value.map((item) => sanitizeJson(item, maxString) ?? null);
      }
      const copy: { [key: string]: OutputJson } = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const clean = sanitizeJson(item, maxString);
        if (clean !== undefined) copy[sanitizeText(key, 200)] = clean;
      }
      return copy;
    }
    default:
      return undefined;
  }
}

/** Shortens every string to `maxString` and every array to `maxItems` (with a marker item). */
function shrink(value: OutputJson, maxString: number, maxItems: number): OutputJson {
  if (typeof value === 'string') return sanitizeText(value, maxString);
  if (Array.isArray(value)) {
    const kept = value.slice(0, maxItems).map((item) => shrink(item, maxString, maxItems));
    if (value.length > maxItems) kept.push(`…(${value.length - maxItems} more items not shown)`);
    return kept;
  }
  if (value !== null && typeof value === 'object') {
    const copy: { [key: string]: OutputJson } = {};
    for (const [key, item] of Object.entries(value)) copy[key] = shrink(item, maxString, maxItems);
    return copy;
  }
  return value;
}

const SHRINK_STEPS: ReadonlyArray<[maxString: number, maxItems: number]> = [
  [4_096, 1_000],
  [1_024, 200],
  [256, 50],
  [64, 10],
];

/**
 * Serializes a tool's result as sanitized JSON text of at most `maxChars` characters. A result
 * that does not fit is shortened step by step (long strings cut with a marker, long arrays
 * trimmed) and carries `"truncated": true` with a note, so the text is always valid JSON.
 */
export function renderToolJson(value: unknown, maxChars = MAX_TOOL_TEXT): string {
  const clean = sanitizeJson(value, maxChars) ?? null;
  const text = stringifyJson(clean);
  if (text.length <= maxChars) return text;
  for (const [maxString, maxItems] of SHRINK_STEPS) {
    const shrunk = shrink(clean, maxString, maxItems);
    const marked =
      shrunk !== null && typeof shrunk === 'object' && !Array.isArray(shrunk)
        ? {
            ...shrunk,
            truncated: true,
            note: `This result was shortened to fit ${maxChars} characters: long texts end with "…(truncated: …)" and long lists with a "more items not shown" entry.`,
          }
        : shrunk;
    const shortened = stringifyJson(marked);
    if (shortened.length <= maxChars) return shortened;
  }
  return JSON.stringify({
    success: true,
    truncated: true,
    note: `This result is larger than ${maxChars} characters even when shortened; ask for less (a smaller limit or fewer fields).`,
  });
}
