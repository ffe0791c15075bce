// `JSON.parse` keeps the last of two equal keys (`{"a":1,"a":2}` reads as `{"a":2}`), silently
// dropping a value, and accepts any nesting, which later recursion turns into a stack overflow.
// This scanner runs over a text `JSON.parse` accepted and finds either, so the safe parses refuse
// them with the place named instead of changing or crashing on what they were given.

/** The deepest nesting of arrays and objects a JSON text may have. */
export const MAX_JSON_DEPTH = 512;

/** How a JSON text's shape is refused: the message names the key or the place. */
export interface JsonShapeProblem {
  readonly message: string;
  /** Where the problem starts, as an index into the text. */
  readonly index: number;
}

/** One open array or object: its keys so far, or its next item index. */
interface Frame {
  /** Objects: the keys seen (a short list is cheaper than a set for the usual few keys). */
  readonly keys: string[] | null;
  set: Set<string> | null;
  /** The key being read (objects) or the item index (arrays): for the path in a message. */
  at: string | number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

const SIMPLE_KEY = /^[A-Za-z_$][\w$]*$/;

/** `$.a[2]["b c"]`: where a value sits, the first levels and the last few when it is deep. */
function jsonPathOf(path: ReadonlyArray<string | number>): string {
  const part = (segment: string | number) =>
    typeof segment === 'number'
      ? `[${segment}]`
      : SIMPLE_KEY.test(segment)
        ? `.${segment}`
        : `[${JSON.stringify(segment)}]`;
  if (path.length <= 12) return `$${path.map(part).join('')}`;
  return `$${path.slice(0, 4).map(part).join('')}…(${path.length - 8} more)…${path.slice(-4).map(part).join('')}`;
}

/** The message for a key given twice in one object. */
export function duplicateKeyMessage(
  key: string,
  path: ReadonlyArray<string | number>,
  index: number,
): string {
  return `the key ${JSON.stringify(key)} appears twice in the object at ${jsonPathOf(path)} (the second at position ${index}); JSON.parse would keep only the last value. Give each key once`;
}

/** The message for nesting deeper than `MAX_JSON_DEPTH`. */
export function tooDeepMessage(path: ReadonlyArray<string | number>, index: number): string {
  return `nested more than ${MAX_JSON_DEPTH} arrays and objects deep at ${jsonPathOf(path)} (position ${index}); flatten the data or store the deep part as a string`;
}

/** The end of the string that opens at `start` (the index of its closing quote), or -1. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/** Whether the object of `frame` already has `key`; records it when not. */
function seenBefore(frame: Frame, key: string): boolean {
  const keys = frame.keys as string[];
  if (frame.set !== null) {
    if (frame.set.has(key)) return true;
    frame.set.add(key);
    return false;
  }
  if (keys.includes(key)) return true;
  keys.push(key);
  if (keys.length > 16) frame.set = new Set(keys);
  return false;
}

function pathOf(stack: readonly Frame[]): (string | number)[] {
  return stack.map((frame) => frame.at);
}

/**
 * The first key given twice in one object (compared after unescaping, so `"a"` and `"\u0061"` are
 * the same key), or the first place nested deeper than `MAX_JSON_DEPTH`; null when there is
 * neither. Meant for a text `JSON.parse` accepted; on any other text it stops without throwing.
 */
export function findJsonShapeProblem(text: string): JsonShapeProblem | null {
  const stack: Frame[] = [];
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      if (end === -1) return null;
      const frame = stack[stack.length - 1];
      if (frame?.keys != null) {
        let after = end + 1;
        while (after < text.length && text.charCodeAt(after) <= 0x20) after++;
        if (text.charCodeAt(after) === COLON) {
          const raw = text.slice(index, end + 1);
          let key: string;
          try {
            key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
          } catch {
            return null;
          }
          if (seenBefore(frame, key)) {
            const path = pathOf(stack.slice(0, -1));
            return { message: duplicateKeyMessage(key, path, index), index };
          }
          frame.at = key;
          index = after + 1;
          continue;
        }
      }
      index = end + 1;
      continue;
    }
    if (code === 0x7b || code === 0x5b) {
      if (stack.length >= MAX_JSON_DEPTH) {
        return { message: tooDeepMessage(pathOf(stack), index), index };
      }
      stack.push({ keys: code === 0x7b ? [] : null, set: null, at: code === 0x7b ? '' : 0 });
    } else if (code === 0x7d || code === 0x5d) {
      stack.pop();
    } else if (code === COMMA) {
      const frame = stack[stack.length - 1];
      if (frame !== undefined && frame.keys === null) frame.at = (frame.at as number) + 1;
    }
    index++;
  }
  return null;
}
