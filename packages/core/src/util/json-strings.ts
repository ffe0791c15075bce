import { utf8ByteLength } from './utf8.js';

/**
 * Called for each string value of a JSON text: `value` decoded, `key` the object key it belongs to
 * (array items carry their array's key; a top-level string has none) and `encodedBytes` the UTF-8
 * length of its JSON form as stored, quotes included. Returns the replacement, or `value` itself
 * to keep the stored text.
 */
export type JsonStringReplacer = (
  value: string,
  key: string | undefined,
  encodedBytes: number,
) => string;

/** Where a string sits in a JSON text: object keys and array indexes from the top. */
export type JsonPath = ReadonlyArray<string | number>;

/** What `rewriteJsonText` calls for each string of a JSON text. */
export interface JsonTextRewrite {
  /**
   * A string value at `path` (its own key or index last): returns the replacement, or `value`
   * itself to keep the stored text. `encodedBytes` as for `JsonStringReplacer`.
   */
  value(value: string, path: JsonPath, encodedBytes: number): string;
  /**
   * An object key of the object at `parent`: returns the replacement, or `key` itself. `taken`
   * holds every key of that object as stored and every replacement chosen so far: a replacement
   * must not be one of them (the object keeps as many distinct keys as it had).
   */
  key?(key: string, parent: JsonPath, encodedBytes: number, taken: ReadonlySet<string>): string;
}

interface Frame {
  readonly array: boolean;
  /** For an array: the index of the next item. For an object: the key of the entry being read. */
  key: string | number | undefined;
  /** Objects only: the next string is a key. */
  expectKey: boolean;
  /** Objects only, when keys are rewritten: the keys it holds and the replacements chosen. */
  taken?: Set<string>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function decode(raw: string): string {
  // Most strings have no escape: slicing is exact, and far cheaper than parsing.
  return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}

function stringEnd(text: string, start: number): number {
  let end = start + 1;
  for (;;) {
    const next = text.charCodeAt(end);
    if (next === BACKSLASH) end += 2;
    else if (next === QUOTE || Number.isNaN(next)) return end;
    else end++;
  }
}

/** The keys of each object of `text`, in the order the objects open. */
function keysByObject(text: string): Array<Set<string>> {
  const objects: Array<Set<string>> = [];
  const stack: Array<{ keys: Set<string> | null; expectKey: boolean }> = [];
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      const frame = stack.at(-1);
      if (frame?.keys && frame.expectKey) {
        frame.keys.add(decode(text.slice(index, end + 1)));
        frame.expectKey = false;
      }
      index = end;
    } else if (code === 0x7b /* { */) {
      const keys = new Set<string>();
      objects.push(keys);
      stack.push({ keys, expectKey: true });
    } else if (code === 0x5b /* [ */) {
      stack.push({ keys: null, expectKey: false });
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      stack.pop();
    } else if (code === 0x2c /* , */) {
      const frame = stack.at(-1);
      if (frame?.keys) frame.expectKey = true;
    }
  }
  return objects;
}

function pathOf(stack: readonly Frame[]): Array<string | number> {
  const path: Array<string | number> = [];
  for (const frame of stack) if (frame.key !== undefined) path.push(frame.key);
  return path;
}

/**
 * Rewrites the strings of a valid JSON text (check it with `safeJsonParse` first), values and,
 * with `rewrite.key`, object keys, and keeps everything else byte for byte: numbers exactly as
 * written (no rounding of big integers), key order, whitespace, and the escapes of every string
 * left unchanged. Returns `text` itself when nothing changed.
 */
export function rewriteJsonText(text: string, rewrite: JsonTextRewrite): string {
  const objectKeys = rewrite.key === undefined ? undefined : keysByObject(text);
  let objectCount = 0;
  const stack: Frame[] = [];
  let output = '';
  let copiedTo = 0;
  let index = 0;
  const emit = (start: number, end: number, next: string) => {
    output += text.slice(copiedTo, start) + JSON.stringify(next);
    copiedTo = end + 1;
  };
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      const raw = text.slice(index, end + 1);
      const frame = stack.at(-1);
      if (frame !== undefined && !frame.array && frame.expectKey) {
        const key = decode(raw);
        frame.expectKey = false;
        frame.key = key;
        if (rewrite.key !== undefined && frame.taken !== undefined) {
          const parent = pathOf(stack.slice(0, -1));
          const next = rewrite.key(key, parent, utf8ByteLength(raw), frame.taken);
          if (next !== key) {
            frame.taken.add(next);
            emit(index, end, next);
          }
        }
      } else {
        const value = decode(raw);
        const next = rewrite.value(value, pathOf(stack), utf8ByteLength(raw));
        if (next !== value) emit(index, end, next);
      }
      index = end + 1;
      continue;
    }
    if (code === 0x7b /* { */) {
      const frame: Frame = { array: false, key: undefined, expectKey: true };
      if (objectKeys !== undefined) frame.taken = new Set(objectKeys[objectCount]);
      objectCount++;
      stack.push(frame);
    } else if (code === 0x5b /* [ */) {
      stack.push({ array: true, key: 0, expectKey: false });
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      stack.pop();
    } else if (code === 0x2c /* , */) {
      const frame = stack.at(-1);
      if (frame !== undefined) {
        if (frame.array) frame.key = (frame.key as number) + 1;
        else frame.expectKey = true;
      }
    }
    index++;
  }
  return copiedTo === 0 ? text : output + text.slice(copiedTo);
}

/**
 * Rewrites the string values of a valid JSON text (check it with `safeJsonParse` first) and keeps
 * everything else byte for byte (see `rewriteJsonText`). Object keys are never rewritten.
 */
export function rewriteJsonStrings(text: string, replace: JsonStringReplacer): string {
  return rewriteJsonText(text, {
    value(value, path, encodedBytes) {
      // Array items carry their array's key.
      let key: string | undefined;
      for (let depth = path.length - 1; depth >= 0; depth--) {
        const part = path[depth];
        if (typeof part === 'string') {
          key = part;
          break;
        }
      }
      return replace(value, key, encodedBytes);
    },
  });
}
