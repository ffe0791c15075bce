import { EpisodicError } from '../errors/episodic-error.js';
import { assertJson } from '../util/json.js';

const MAX_DEPTH = 256;
const FAILED: unique symbol = Symbol('not-json');

function write(value: unknown, depth: number): string | typeof FAILED | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : FAILED;
    case 'bigint':
      // An integer beyond 2^53 read by `parseJsonExact`: its exact digits.
      return value.toString();
    case 'undefined':
      return undefined;
    case 'object': {
      if (value === null) return 'null';
      if (depth > MAX_DEPTH) return FAILED;
      if (Array.isArray(value)) {
        let text = '[';
        for (let index = 0; index < value.length; index++) {
          const element = write(value[index], depth + 1);
          if (element === FAILED || element === undefined) return FAILED;
          text += index === 0 ? element : `,${element}`;
        }
        return `${text}]`;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return FAILED;
      const keys = Object.keys(value).sort();
      let text = '{';
      let first = true;
      for (const key of keys) {
        const field = write((value as Record<string, unknown>)[key], depth + 1);
        if (field === FAILED) return FAILED;
        if (field === undefined) continue;
        text += `${first ? '' : ','}${JSON.stringify(key)}:${field}`;
        first = false;
      }
      return `${text}}`;
    }
    default:
      return FAILED;
  }
}

/** Above this many distinct keys the native writer's key list costs more than it saves. */
const MAX_NATIVE_KEYS = 64;

/**
 * Checks that the native writer would write `value` as canonical JSON, apart from key order:
 * every object plain, every number finite, no `undefined` in an array, nothing else (functions,
 * symbols, bigints, `toJSON`) that it would serialize differently or that canonical JSON rejects.
 * Collects every object key and notes whether some object's keys are out of sorted order.
 */
class NativeWriterCheck {
  /** Every key of every object, with repeats. */
  readonly keys: string[] = [];
  sorted = true;

  accepts(value: unknown, depth: number): boolean {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return true;
      case 'number':
        return Number.isFinite(value);
      case 'object': {
        if (value === null) return true;
        if (depth > MAX_DEPTH) return false;
        if (Array.isArray(value)) {
          for (let index = 0; index < value.length; index++) {
            const element: unknown = value[index];
            if (element === undefined || !this.accepts(element, depth + 1)) return false;
          }
          return true;
        }
        const prototype = Object.getPrototypeOf(value);
        if (prototype !== Object.prototype && prototype !== null) return false;
        const keys = Object.keys(value);
        for (let index = 0; index < keys.length; index++) {
          const key = keys[index] as string;
          if (index > 0 && !((keys[index - 1] as string) < key)) this.sorted = false;
          this.keys.push(key);
          const field = (value as Record<string, unknown>)[key];
          if (field !== undefined && !this.accepts(field, depth + 1)) return false;
        }
        return true;
      }
      default:
        return false;
    }
  }
}

/**
 * The canonical JSON text of `value`: object keys sorted (by UTF-16 code units), no whitespace,
 * keys whose value is `undefined` dropped, lone surrogates escaped (so the text is always
 * well-formed). Two values that are equal as JSON have the same canonical text, whatever the key
 * order. A `bigint` is written as its digits, so an integer beyond 2^53 is kept exactly. Anything JSON cannot represent (a function, `NaN`, a `Date`, a cycle) is a
 * `VALIDATION_ERROR` naming its path under `subject`.
 */
export function canonicalJson(value: unknown, subject = 'value'): string {
  // Common case: plain JSON data. The native writer produces the canonical text as it is when
  // the keys are already sorted (Object.keys order is its order), else when given the sorted list
  // of every key as its property list (it then writes each object's keys in that order).
  const check = new NativeWriterCheck();
  if (check.accepts(value, 0)) {
    if (check.sorted) return JSON.stringify(value);
    // A listed key is read from every object, and `__proto__` read from an object without it
    // as its own key would be its prototype: such values take the general writer.
    const keys = [...new Set(check.keys)];
    if (keys.length <= MAX_NATIVE_KEYS && !keys.includes('__proto__'))
      return JSON.stringify(value, keys.sort());
  }
  const text = write(value, 0);
  if (typeof text === 'string') return text;
  if (text === undefined) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid ${subject}: undefined cannot be stored as JSON. Pass null or leave the field out; nothing was changed.`,
      details: {
        subject,
        issues: [{ field: '(root)', message: 'is undefined', value: 'nothing' }],
      },
    });
  }
  assertJson(value, subject);
  throw new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: it cannot be stored as JSON (nested too deeply or circular). Nothing was changed.`,
    details: { subject },
  });
}
