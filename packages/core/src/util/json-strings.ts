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

interface Frame {
  readonly array: boolean;
  /** For an array: the key its items carry. For an object: the key of the entry being read. */
  key: string | undefined;
  /** Objects only: the next string is a key. */
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function decode(raw: string): string {
  // Most strings have no escape: slicing is exact, and far cheaper than parsing.
  return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}

/**
 * Rewrites the string values of a valid JSON text (check it with `safeJsonParse` first) and keeps
 * everything else byte for byte: numbers exactly as written (no rounding of big integers), key
 * order, whitespace, and the escapes of every string left unchanged. Object keys are never
 * rewritten. Returns `text` itself when no value changed.
 */
export function rewriteJsonStrings(text: string, replace: JsonStringReplacer): string {
  const stack: Frame[] = [];
  let output = '';
  let copiedTo = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      let end = index + 1;
      for (;;) {
        const next = text.charCodeAt(end);
        if (next === BACKSLASH) end += 2;
        else if (next === QUOTE || Number.isNaN(next)) break;
        else end++;
      }
      const raw = text.slice(index, end + 1);
      const frame = stack.at(-1);
      if (frame !== undefined && !frame.array && frame.expectKey) {
        frame.key = decode(raw);
        frame.expectKey = false;
      } else {
        const value = decode(raw);
        const next = replace(value, frame?.key, utf8ByteLength(raw));
        if (next !== value) {
          output += text.slice(copiedTo, index) + JSON.stringify(next);
          copiedTo = end + 1;
        }
      }
      index = end + 1;
      continue;
    }
    if (code === 0x7b /* { */) {
      stack.push({ array: false, key: undefined, expectKey: true });
    } else if (code === 0x5b /* [ */) {
      stack.push({ array: true, key: stack.at(-1)?.key, expectKey: false });
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      stack.pop();
    } else if (code === 0x2c /* , */) {
      const frame = stack.at(-1);
      if (frame !== undefined && !frame.array) frame.expectKey = true;
    }
    index++;
  }
  return copiedTo === 0 ? text : output + text.slice(copiedTo);
}
