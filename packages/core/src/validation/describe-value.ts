/** A short, single-line rendering of a value for error messages. Never longer than `max` characters. */
export function describeValue(value: unknown, max = 60): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null)
    return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? 'an array' : 'an object';
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The value at `path` inside `root`, or undefined when the path does not exist. */
export function valueAtPath(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Formats a path as `payload.items[2].call_id`; the empty path is `(root)`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? '(root)' : text;
}
