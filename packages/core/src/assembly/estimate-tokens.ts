import type { InputItem } from '../schema/input-item.js';

/** Counts the tokens of one input item. Must return a finite number ≥ 0. */
export type TokenCounter = (item: InputItem) => number;

/** Characters per token assumed by the default counter. */
export const CHARS_PER_TOKEN = 4;

/**
 * The default token counter: the item's JSON length divided by four, rounded up. Crude but
 * provider-independent; pass a real tokenizer as `countTokens` when the budget must be exact.
 */
export function estimateTokens(item: InputItem): number {
  // Items from the log are frozen, so their estimate cannot change: later turns reuse it.
  const frozen = Object.isFrozen(item);
  if (frozen) {
    const known = estimates.get(item);
    if (known !== undefined) return known;
  }
  const count = Math.ceil(JSON.stringify(item).length / CHARS_PER_TOKEN);
  if (frozen) estimates.set(item, count);
  return count;
}

const estimates = new WeakMap<object, number>();
