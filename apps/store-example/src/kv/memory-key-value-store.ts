import type { KeyValueStore, KvEntry } from './key-value-store.js';

/** Lets other callers run between two calls, as a network or a disk would. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * An in-memory `KeyValueStore`. Every call resolves on a later turn of the event loop, so two
 * concurrent writers really interleave between their reads and their compare-and-set.
 */
export function createMemoryKeyValueStore(): KeyValueStore {
  const values = new Map<string, string>();
  const holds = (check: KvEntry) => values.get(check.key) === check.value;
  const apply = (write: KvEntry) => {
    if (write.value === undefined) values.delete(write.key);
    else values.set(write.key, write.value);
  };
  return {
    async get(key) {
      await yieldTurn();
      return values.get(key);
    },
    async set(key, value) {
      await yieldTurn();
      values.set(key, value);
    },
    async delete(key) {
      await yieldTurn();
      return values.delete(key);
    },
    async keys(prefix) {
      await yieldTurn();
      return [...values.keys()].filter((key) => key.startsWith(prefix)).sort();
    },
    async compareAndSet(checks, writes) {
      await yieldTurn();
      // No await between the checks and the writes: nothing else runs in between.
      if (!checks.every(holds)) return false;
      for (const write of writes) apply(write);
      return true;
    },
  };
}
