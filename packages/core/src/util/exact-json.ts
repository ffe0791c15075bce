// JSON numbers that a JavaScript number cannot hold (an integer beyond 2^53, a decimal with more
// significant digits than a double) would be silently changed by `JSON.parse`. This parser keeps
// integers exactly (as `bigint`) and refuses anything else it cannot keep, so history is never
// altered on the way in or on the way out. Like `safeJsonParse`, it refuses a key given twice in
// one object and nesting deeper than `MAX_JSON_DEPTH`.

import {
  duplicateKeyMessage,
  findJsonShapeProblem,
  MAX_JSON_DEPTH,
  tooDeepMessage,
} from './json-shape.js';

/** A JSON value as `parseJsonExact` returns it: integers beyond 2^53 are `bigint`s. */
export type ExactJsonValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | ExactJsonValue[]
  | { [key: string]: ExactJsonValue };

/** Why a text is not exact JSON, and where (a UTF-16 index into the text). */
export class ExactJsonError extends Error {
  override readonly name = 'ExactJsonError';
  constructor(
    message: string,
    /** Where the problem starts, as an index into the text. */
    readonly index: number,
  ) {
    super(message);
  }
}

// Texts without a long run of digits (and dots) and without a 3-digit exponent hold only numbers
// of at most 15 significant digits within 1e±113: `JSON.parse` keeps every one of them exactly.
const MAYBE_INEXACT = /\d[\d.]{15}|[eE][+-]?\d{3}/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** The significant digits and the power of ten of a decimal text, e.g. "-1.50e2" → 15, 1. */
function decimalOf(text: string): { negative: boolean; digits: string; exponent: number } {
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const [mantissa = '', power = '0'] = unsigned.toLowerCase().split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  let digits = `${whole}${fraction}`;
  let exponent = Number(power) - fraction.length;
  const leading = /^0*/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(leading);
  const trailing = /0*$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return { negative: negative && digits !== '', digits, exponent: digits === '' ? 0 : exponent };
}

/** True when the double `value` is exactly the decimal written as `text`. */
function sameDecimal(text: string, value: number): boolean {
  const written = decimalOf(text);
  const held = decimalOf(String(value));
  return (
    written.digits === held.digits &&
    written.exponent === held.exponent &&
    (written.digits === '' || written.negative === held.negative)
  );
}

class Parser {
  index = 0;
  /** The keys and indexes from the root to the value being read (for messages). */
  readonly path: (string | number)[] = [];
  constructor(readonly text: string) {}

  fail(message: string, at = this.index): never {
    throw new ExactJsonError(message, at);
  }

  skipSpace(): void {
    const { text } = this;
    while (this.index < text.length) {
      const code = text.charCodeAt(this.index);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      this.index++;
    }
  }

  value(depth: number): ExactJsonValue {
    this.skipSpace();
    const { text } = this;
    const character = text[this.index];
    if ((character === '{' || character === '[') && depth >= MAX_JSON_DEPTH) {
      this.fail(tooDeepMessage(this.path, this.index));
    }
    switch (character) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      case undefined:
        return this.fail('unexpected end of JSON');
      default:
        return this.number();
    }
  }

  literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.index))
      this.fail(`unexpected token at position ${this.index}`);
    this.index += word.length;
    return value;
  }

  number(): number | bigint {
    NUMBER.lastIndex = this.index;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail(`unexpected token at position ${this.index}`);
    const token = match[0];
    const start = this.index;
    this.index += token.length;
    const value = Number(token);
    if (INTEGER.test(token)) {
      return Number.isSafeInteger(value) ? value : BigInt(token);
    }
    if (!Number.isFinite(value)) {
      this.fail(`the number ${token} at position ${start} is too large for a double`, start);
    }
    if (!sameDecimal(token, value)) {
      this.fail(
        `the number ${token} at position ${start} cannot be kept exactly (it would become ${String(value)}); write it as a string, or with fewer digits`,
        start,
      );
    }
    return value;
  }

  string(): string {
    const { text } = this;
    const start = this.index;
    let index = start + 1;
    for (;;) {
      const code = text.charCodeAt(index);
      if (Number.isNaN(code)) this.fail('unterminated string', start);
      if (code === 0x22) break;
      if (code === 0x5c) index++;
      index++;
    }
    this.index = index + 1;
    try {
      return JSON.parse(text.slice(start, this.index)) as string;
    } catch (error) {
      return this.fail(`invalid string at position ${start}: ${(error as Error).message}`, start);
    }
  }

  array(depth: number): ExactJsonValue[] {
    this.index++;
    const array: ExactJsonValue[] = [];
    this.skipSpace();
    if (this.text[this.index] === ']') {
      this.index++;
      return array;
    }
    for (;;) {
      this.path.push(array.length);
      array.push(this.value(depth + 1));
      this.path.pop();
      this.skipSpace();
      const separator = this.text[this.index++];
      if (separator === ']') return array;
      if (separator === undefined) this.fail('unexpected end of JSON', this.index - 1);
      if (separator !== ',')
        this.fail(`expected "," or "]" at position ${this.index - 1}`, this.index - 1);
    }
  }

  object(depth: number): { [key: string]: ExactJsonValue } {
    this.index++;
    const object: { [key: string]: ExactJsonValue } = {};
    this.skipSpace();
    if (this.text[this.index] === '}') {
      this.index++;
      return object;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.index] !== '"')
        this.fail(`expected a property name at position ${this.index}`);
      const keyAt = this.index;
      const key = this.string();
      if (Object.hasOwn(object, key)) this.fail(duplicateKeyMessage(key, this.path, keyAt), keyAt);
      this.skipSpace();
      if (this.text[this.index++] !== ':')
        this.fail(`expected ":" at position ${this.index - 1}`, this.index - 1);
      this.path.push(key);
      // An own property even for "__proto__", as JSON.parse makes it.
      Object.defineProperty(object, key, {
        value: this.value(depth + 1),
        writable: true,
        enumerable: true,
        configurable: true,
      });
      this.path.pop();
      this.skipSpace();
      const separator = this.text[this.index++];
      if (separator === '}') return object;
      if (separator === undefined) this.fail('unexpected end of JSON', this.index - 1);
      if (separator !== ',')
        this.fail(`expected "," or "}" at position ${this.index - 1}`, this.index - 1);
    }
  }
}

/**
 * Parses JSON keeping every number exactly: an integer beyond 2^53 becomes a `bigint` (write it
 * back with `canonicalJson` or `stringifyJson`), a decimal a double cannot hold exactly (more
 * significant digits than it keeps, or out of its range) throws `ExactJsonError` naming the number
 * and its position, and so does a key given twice in one object or nesting deeper than
 * `MAX_JSON_DEPTH` (naming the key or the place). Everything else is what `JSON.parse` returns.
 */
export function parseJsonExact(text: string): ExactJsonValue {
  if (!MAYBE_INEXACT.test(text)) {
    let value: ExactJsonValue | undefined;
    try {
      value = JSON.parse(text) as ExactJsonValue;
    } catch {
      // The parser below says where the JSON is broken.
    }
    if (value !== undefined) {
      const problem = findJsonShapeProblem(text);
      if (problem !== null) throw new ExactJsonError(problem.message, problem.index);
      return value;
    }
  }
  const parser = new Parser(text);
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.index < text.length)
    parser.fail(`unexpected text after the JSON at position ${parser.index}`);
  return value;
}

/** The result of `safeParseJsonExact`. */
export type ExactJsonParseResult =
  | { success: true; value: ExactJsonValue }
  | { success: false; error: string };

/** `parseJsonExact` that never throws: for stored data. */
export function safeParseJsonExact(text: string): ExactJsonParseResult {
  try {
    return { success: true, value: parseJsonExact(text) };
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** True when `value` (deeply) holds a `bigint`. */
function holdsBigint(value: unknown, depth: number): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value !== 'object' || value === null || depth > 512) return false;
  for (const key in value) {
    if (holdsBigint((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * `JSON.stringify` that writes a `bigint` as its digits (an exact JSON integer) instead of
 * throwing: receipts and tool results carry payloads read by `parseJsonExact`.
 */
export function stringifyJson(value: unknown, space?: number): string {
  if (!holdsBigint(value, 0)) return JSON.stringify(value, undefined, space);
  // Each bigint is written as a marked string, then the marks (with their quotes) are replaced by
  // the digits. The mark holds a random part, so no string of the data can look like one.
  const mark = `\u0000bigint-${Math.random().toString(36).slice(2)}:`;
  const text = JSON.stringify(
    value,
    (_key, field: unknown) => (typeof field === 'bigint' ? `${mark}${field.toString()}` : field),
    space,
  );
  const escapedMark = JSON.stringify(mark).slice(1, -1);
  return text.replace(
    new RegExp(`"${escapedMark.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(-?\\d+)"`, 'g'),
    '$1',
  );
}
