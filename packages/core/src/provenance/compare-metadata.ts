import type { MetadataScalar } from '../schema/metadata.js';

/** True for a value metadata may hold as a scalar: a string, a finite number or a boolean. */
export function isMetadataScalar(value: unknown): value is MetadataScalar {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/**
 * The values one metadata object holds for `key`, element-wise: a scalar becomes a one-item list,
 * an array its scalar elements. A missing key, `null`, an empty array or anything that is not a
 * metadata value gives `[]` (the key counts as NULL). Only own properties are read, so keys such as
 * `constructor` or `__proto__` never reach the prototype.
 */
export function metadataValuesOf(metadata: unknown, key: string): MetadataScalar[] {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return [];
  if (!Object.hasOwn(metadata, key)) return [];
  const value: unknown = (metadata as Record<string, unknown>)[key];
  if (isMetadataScalar(value)) return [value];
  if (!Array.isArray(value)) return [];
  const values: MetadataScalar[] = [];
  for (const element of value) if (isMetadataScalar(element)) values.push(element);
  return values;
}

/** Equality without coercion: `5` never equals `"5"`, `true` never equals `"true"`. */
export function metadataScalarsEqual(left: MetadataScalar, right: MetadataScalar): boolean {
  return left === right;
}

/** Maps a UTF-16 unit so that comparing mapped units orders strings by code point. */
function codePointOrderUnit(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/**
 * Compares two strings by Unicode code point, which is the order of their UTF-8 bytes (SQLite's
 * BINARY collation). JavaScript's `<` compares UTF-16 units instead, which puts U+E000–U+FFFF after
 * astral characters; this keeps every backend ordering strings the same way.
 */
export function compareCodePoints(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a !== b) return codePointOrderUnit(a) < codePointOrderUnit(b) ? -1 : 1;
  }
  return left.length === right.length ? 0 : left.length < right.length ? -1 : 1;
}

/**
 * Orders two metadata scalars: numbers as numbers, strings by code point. Returns `undefined` when
 * they cannot be ordered (different types, or booleans), so an ordering condition never holds
 * between a number and a string.
 */
export function compareMetadataScalars(
  left: MetadataScalar,
  right: MetadataScalar,
): number | undefined {
  if (typeof left === 'number' && typeof right === 'number') {
    return left < right ? -1 : left > right ? 1 : 0;
  }
  if (typeof left === 'string' && typeof right === 'string') return compareCodePoints(left, right);
  return undefined;
}
