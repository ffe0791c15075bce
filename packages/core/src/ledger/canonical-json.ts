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

/**
 * The canonical JSON text of `value`: object keys sorted (by UTF-16 code units), no whitespace,
 * keys whose value is `undefined` dropped, lone surrogates escaped (so the text is always
 * well-formed). Two values that are equal as JSON have the same canonical text, whatever the key
 * order. Anything JSON cannot represent (a function, `NaN`, a `Date`, a cycle) is a
 * `VALIDATION_ERROR` naming its path under `subject`.
 */
export function canonicalJson(value: unknown, subject = 'value'): string {
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
