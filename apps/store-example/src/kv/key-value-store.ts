/** One key and its value; `undefined` means the key is absent (a check) or deleted (a write). */
export interface KvEntry {
  readonly key: string;
  readonly value: string | undefined;
}

/**
 * The whole storage interface the example backend needs: string keys, string values, a prefix
 * listing and one atomic compare-and-set over several keys (as etcd's transactions, Deno KV's
 * `atomic()` or a SQL transaction give). Every Episodic store in this package is written on it.
 */
export interface KeyValueStore {
  /** The value of `key`, or undefined when it is absent. */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value`. */
  set(key: string, value: string): Promise<void>;
  /** Deletes `key`; false when it was absent. */
  delete(key: string): Promise<boolean>;
  /** The keys that start with `prefix`, in ascending code-unit order. */
  keys(prefix: string): Promise<string[]>;
  /**
   * As one atomic step: when every check holds (the key's current value is the check's value,
   * `undefined` for an absent key), applies every write (`undefined` deletes) and returns true;
   * otherwise changes nothing and returns false.
   */
  compareAndSet(checks: readonly KvEntry[], writes: readonly KvEntry[]): Promise<boolean>;
}
