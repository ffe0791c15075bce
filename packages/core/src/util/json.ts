import { EpisodicError } from '../errors/episodic-error.js';
import { formatPath } from '../validation/describe-value.js';
import { findJsonShapeProblem } from './json-shape.js';

/** A JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

function notJson(subject: string, path: PropertyKey[], what: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: ${formatPath(path)} is ${what}, which cannot be stored as JSON. Use strings, finite numbers, booleans, null, arrays and plain objects; nothing was changed.`,
    details: { subject, issues: [{ field: formatPath(path), message: `is ${what}`, value: what }] },
  });
}

/**
 * A deep, frozen copy of `value` that is guaranteed to survive `JSON.stringify` unchanged:
 * plain objects, arrays, strings, finite numbers, booleans and null. Object keys whose value is
 * `undefined` are dropped, as JSON would. Anything else is a `VALIDATION_ERROR` naming the path.
 */
export function frozenJsonCopy<T>(value: T, subject: string): T {
  const copy = copyAndFreeze(value, 0);
  if (copy === NOT_JSON) assertJson(value, subject);
  return copy as T;
}

/** Throws a `VALIDATION_ERROR` naming the path of the first value JSON cannot represent. */
export function assertJson(value: unknown, subject: string): void {
  const problem = findNonJson(value, 0);
  if (problem !== null) throw notJson(subject, problem.path, problem.what);
}

/** Nesting deeper than this is treated as a cycle. */
const MAX_DEPTH = 256;

interface NonJson {
  path: PropertyKey[];
  what: string;
}

/** Finds the first value JSON cannot represent; the path is built only on the way out of a failure. */
function findNonJson(value: unknown, depth: number): NonJson | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : { path: [], what: String(value) };
    case 'object': {
      if (value === null) return null;
      if (depth > MAX_DEPTH)
        return { path: [], what: `nested more than ${MAX_DEPTH} levels deep (or circular)` };
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const element: unknown = value[index];
          const problem =
            element === undefined
              ? { path: [], what: 'undefined' }
              : findNonJson(element, depth + 1);
          if (problem !== null) return { path: [index, ...problem.path], what: problem.what };
        }
        return null;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) {
        return { path: [], what: `a ${(value as object).constructor?.name ?? 'non-plain'} object` };
      }
      for (const key in value) {
        const field = (value as Record<string, unknown>)[key];
        if (field === undefined) continue;
        const problem = findNonJson(field, depth + 1);
        if (problem !== null) return { path: [key, ...problem.path], what: problem.what };
      }
      return null;
    }
    default:
      return { path: [], what: value === undefined ? 'undefined' : `a ${typeof value}` };
  }
}

/** What `copyAndFreeze` returns for a value JSON cannot represent. */
export const NOT_JSON: unique symbol = Symbol('not-json');

/**
 * One pass that copies, freezes and checks; returns `NOT_JSON` at the first value JSON cannot
 * hold (`assertJson` then explains it). `depth` is the value's depth in the object being built,
 * so a caller assembling a frozen object from parts gets the same limit as one whole copy.
 */
export function copyAndFreeze(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 becomes 0, as JSON would write it, so the log holds exactly what a restore reads back.
      return Number.isFinite(value) ? value + 0 : NOT_JSON;
    case 'object': {
      if (value === null) return null;
      if (depth > MAX_DEPTH) return NOT_JSON;
      if (Array.isArray(value)) {
        const array: unknown[] = new Array(value.length);
        for (let index = 0; index < value.length; index++) {
          const element = copyAndFreeze(value[index], depth + 1);
          if (element === NOT_JSON || element === undefined) return NOT_JSON;
          array[index] = element;
        }
        return Object.freeze(array);
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return NOT_JSON;
      const object: Record<string, unknown> = {};
      for (const key in value) {
        const field = (value as Record<string, unknown>)[key];
        if (field === undefined) continue;
        const copy = copyAndFreeze(field, depth + 1);
        if (copy === NOT_JSON) return NOT_JSON;
        object[key] = copy;
      }
      return Object.freeze(object);
    }
    default:
      return value === undefined ? undefined : NOT_JSON;
  }
}

/** Freezes a value produced by `JSON.parse` in place (it is fresh, so no copy is needed). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** The result of a safe JSON parse. */
export type JsonParseResult = { success: true; value: unknown } | { success: false; error: string };

/**
 * `JSON.parse` that never throws, without `safeJsonParse`'s shape scan: for the lines of a session
 * base and its deltas, which a load reads by the hundred thousand (the scan costs about half a
 * `JSON.parse` again). They hold only what Episodic's writers wrote after `safeJsonParse` or a
 * schema checked it at the boundary, or what a seed 001 writer (`JSON.stringify`) wrote, so no key
 * repeats; a line nested too deep for the code that walks it later is reported by the reader.
 */
export function parseStoredJson(text: string): JsonParseResult {
  try {
    return { success: true, value: JSON.parse(text) };
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * `JSON.parse` that never throws. Use it for every piece of stored data and every JSON text a
 * caller gives. It also refuses what `JSON.parse` would silently change or what would overflow the
 * stack later: a key given twice in one object, and nesting deeper than `MAX_JSON_DEPTH` (512);
 * the error names the key or the place.
 */
export function safeJsonParse(text: string): JsonParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
  const problem = findJsonShapeProblem(text);
  return problem === null ? { success: true, value } : { success: false, error: problem.message };
}
