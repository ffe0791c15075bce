/**
 * Deltas between two JSON texts of a channel value. LangGraph state mostly grows at the end (a
 * `messages` list gains messages, a text gains characters), so a value is stored as what was
 * appended to the previous value whenever that is what happened, and whole otherwise.
 */

/** What was appended: JSON text of an array (the new elements) or of a string (the new characters). */
export interface Appended {
  readonly kind: 'array' | 'string';
  /** `[…]` with the new elements, or `"…"` with the new characters. */
  readonly text: string;
}

function isArrayText(text: string): boolean {
  return text.startsWith('[') && text.endsWith(']');
}

function isStringText(text: string): boolean {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"');
}

/**
 * What `next` appends to `previous` (JSON texts of arrays or strings, as `JSON.stringify` writes
 * them), or null when `next` is not `previous` with something added at the end.
 */
export function appendedTo(previous: string, next: string): Appended | null {
  if (next.length <= previous.length) return null;
  if (isArrayText(previous) && isArrayText(next)) {
    if (previous === '[]') return { kind: 'array', text: next };
    const head = previous.slice(0, -1);
    if (!next.startsWith(head) || next[head.length] !== ',') return null;
    return { kind: 'array', text: `[${next.slice(head.length + 1)}` };
  }
  if (isStringText(previous) && isStringText(next)) {
    const head = previous.slice(0, -1);
    if (!next.startsWith(head)) return null;
    return { kind: 'string', text: `"${next.slice(head.length)}` };
  }
  return null;
}

/** `base` with each of `appended` added at the end, in order (texts as `appendedTo` returns). */
export function applyAppended(base: string, appended: readonly string[]): string {
  if (appended.length === 0) return base;
  if (isArrayText(base)) {
    const inner = [base.slice(1, -1), ...appended.map((text) => text.slice(1, -1))].filter(
      (part) => part !== '',
    );
    return `[${inner.join(',')}]`;
  }
  return `${base.slice(0, -1)}${appended.map((text) => text.slice(1, -1)).join('')}"`;
}
