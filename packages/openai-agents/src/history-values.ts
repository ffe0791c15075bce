import { type AgentInputItem, protocol, UserError } from '@openai/agents-core';

/**
 * History values: what an item may hold (JSON values and `Uint8Array` bytes), a canonical copy of
 * it, how it is stored (bytes as base64, their paths listed beside) and read back, and the checks
 * of `applyHistoryTransaction`, whose errors are the SDK `MemorySession`'s own (a runner or a test
 * written against `MemorySession` sees the same `UserError`s).
 */

/** A path into a stored value (object keys and array indexes). */
export type ValuePath = Array<string | number>;

/** A value an item cannot hold, and where. */
export class UnsupportedValue extends Error {
  constructor(
    readonly path: ValuePath,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function isIndex(key: string, length: number): boolean {
  if (!/^(0|[1-9]\d*)$/.test(key)) return false;
  return Number(key) < length;
}

/**
 * A canonical copy of `value`: plain objects (null-prototype objects become plain), dense arrays,
 * strings, finite or not numbers, booleans, null, and `Uint8Array`s (copied, also when backed by a
 * shared buffer). Object keys whose value is `undefined` are left out (as JSON stores them).
 * Anything else (a Date, a BigInt, a Map, another typed array, a cycle, a getter, a symbol key or
 * value, a function, a hole in an array) throws `UnsupportedValue` naming where.
 */
export function canonicalValue(
  value: unknown,
  path: ValuePath = [],
  seen = new Set<object>(),
): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value !== 'object') {
    throw new UnsupportedValue(
      path,
      `a ${typeof value} (only JSON values and Uint8Array bytes are stored)`,
    );
  }
  if (value instanceof Uint8Array && Object.getPrototypeOf(value) === Uint8Array.prototype) {
    const keys = Reflect.ownKeys(value);
    if (
      keys.length !== value.length ||
      keys.some((key) => typeof key !== 'string' || !isIndex(key, value.length))
    ) {
      throw new UnsupportedValue(path, 'a Uint8Array with extra properties');
    }
    return new Uint8Array(value);
  }
  if (seen.has(value)) throw new UnsupportedValue(path, 'a cycle (the value contains itself)');
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const length = value.length;
      const keys = Reflect.ownKeys(value);
      if (
        keys.length !== length + 1 ||
        keys.some((key) => typeof key !== 'string' || (key !== 'length' && !isIndex(key, length)))
      ) {
        throw new UnsupportedValue(path, 'an array with holes or extra properties');
      }
      const copy: unknown[] = [];
      for (let index = 0; index < length; index++) {
        const descriptor = Object.getOwnPropertyDescriptor(value, String(index));
        if (descriptor === undefined || !('value' in descriptor)) {
          throw new UnsupportedValue([...path, index], 'a getter');
        }
        if (descriptor.value === undefined) {
          throw new UnsupportedValue([...path, index], 'undefined in an array');
        }
        copy.push(canonicalValue(descriptor.value, [...path, index], seen));
      }
      return copy;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      throw new UnsupportedValue(
        path,
        `a ${typeof name === 'string' ? name : 'class instance'} (only plain objects are stored)`,
      );
    }
    const copy: Record<string, unknown> = {};
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key !== 'string') throw new UnsupportedValue(path, 'a symbol key');
      const descriptor = Object.getOwnPropertyDescriptor(value, key) as PropertyDescriptor;
      if (!descriptor.enumerable)
        throw new UnsupportedValue([...path, key], 'a non-enumerable property');
      if (!('value' in descriptor)) throw new UnsupportedValue([...path, key], 'a getter');
      if (descriptor.value === undefined) continue;
      Object.defineProperty(copy, key, {
        value: canonicalValue(descriptor.value, [...path, key], seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}

/** Deep equality of two canonical values. */
export function sameValue(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (left instanceof Uint8Array || right instanceof Uint8Array) {
    return (
      left instanceof Uint8Array &&
      right instanceof Uint8Array &&
      left.length === right.length &&
      left.every((byte, index) => byte === right[index])
    );
  }
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((entry, index) => sameValue(entry, right[index]))
    );
  }
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null)
    return false;
  const leftKeys = Object.keys(left).sort();
  const rightKeys = Object.keys(right).sort();
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every(
      (key, index) =>
        key === rightKeys[index] &&
        sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
    )
  );
}

/** A canonical value as stored: each `Uint8Array` as its base64 text, its path listed in `binary`. */
export function toStored(value: unknown): { value: unknown; binary: ValuePath[] } {
  const binary: ValuePath[] = [];
  const walk = (current: unknown, path: ValuePath): unknown => {
    if (current instanceof Uint8Array) {
      binary.push(path);
      return Buffer.from(current.buffer, current.byteOffset, current.byteLength).toString('base64');
    }
    if (Array.isArray(current)) return current.map((entry, index) => walk(entry, [...path, index]));
    if (typeof current === 'object' && current !== null) {
      const copy: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(current)) {
        Object.defineProperty(copy, key, {
          value: walk(entry, [...path, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    return current;
  };
  return { value: walk(value, []), binary };
}

/**
 * A stored value read back: the base64 text at each `binary` path becomes its `Uint8Array` again
 * (in place; a path that no longer leads to a string, e.g. after a content redaction, is left as
 * it is).
 */
export function fromStored<T>(value: T, binary: readonly ValuePath[] | undefined): T {
  if (binary === undefined || binary.length === 0) return value;
  let root: unknown = value;
  for (const path of binary) {
    if (!Array.isArray(path)) continue;
    if (path.length === 0) {
      if (typeof root === 'string') root = new Uint8Array(Buffer.from(root, 'base64'));
      continue;
    }
    let parent: unknown = root;
    for (const part of path.slice(0, -1)) {
      parent =
        typeof parent === 'object' && parent !== null
          ? (parent as Record<string | number, unknown>)[part]
          : undefined;
    }
    const last = path.at(-1) as string | number;
    if (typeof parent !== 'object' || parent === null) continue;
    const text = (parent as Record<string | number, unknown>)[last];
    if (typeof text === 'string') {
      (parent as Record<string | number, unknown>)[last] = new Uint8Array(
        Buffer.from(text, 'base64'),
      );
    }
  }
  return root as T;
}

/** A copy of an item: what `getItems` and `popItem` hand out. */
export function copyItem(item: AgentInputItem): AgentInputItem {
  return structuredClone(item);
}

// ---------------------------------------------------------------------------------------------
// applyHistoryTransaction's input, checked as MemorySession checks it
// ---------------------------------------------------------------------------------------------

export type StoredTransaction =
  | { type: 'append_items'; items: AgentInputItem[] }
  | { type: 'replace_suffix'; expectedSuffix: AgentInputItem[]; replacement: AgentInputItem[] };

export interface CheckedTransaction {
  operationId: string;
  transaction: StoredTransaction;
}

const INVALID_DATA = 'Session history transaction items contain invalid or unsupported data.';

function agentItems(values: unknown[]): AgentInputItem[] {
  for (const value of values) {
    if (!protocol.ModelItem.safeParse(value).success) throw new UserError(INVALID_DATA);
  }
  return values as AgentInputItem[];
}

function hasExactly(record: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(record);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(record, key));
}

/**
 * `applyHistoryTransaction`'s arguments, read once and canonicalized; a `UserError` with the SDK
 * `MemorySession`'s message when they are invalid (its messages never quote the items).
 */
export function checkTransaction(args: unknown): CheckedTransaction {
  let operationId: unknown;
  let transaction: unknown;
  try {
    if (typeof args !== 'object' || args === null) throw new Error('no arguments');
    operationId = Reflect.get(args, 'operationId');
    transaction = Reflect.get(args, 'transaction');
  } catch {
    throw new UserError('Session history transaction arguments are invalid.');
  }
  if (typeof operationId !== 'string' || operationId.trim() === '') {
    throw new UserError('Session history transaction operationId must be a non-empty string.');
  }
  if (typeof transaction !== 'object' || transaction === null) {
    throw new UserError('Session history transaction must be an object.');
  }
  let copy: Record<string, unknown>;
  try {
    copy = canonicalValue(transaction) as Record<string, unknown>;
    structuredClone(transaction);
  } catch {
    throw new UserError(INVALID_DATA);
  }
  if (copy.type === 'append_items') {
    if (!hasExactly(copy, ['type', 'items']) || !Array.isArray(copy.items)) {
      throw new UserError('Session history append transaction fields are invalid.');
    }
    return { operationId, transaction: { type: 'append_items', items: agentItems(copy.items) } };
  }
  if (copy.type !== 'replace_suffix') {
    throw new UserError('Unsupported session history transaction type.');
  }
  if (
    !hasExactly(copy, ['type', 'expectedSuffix', 'replacement']) ||
    !Array.isArray(copy.expectedSuffix) ||
    !Array.isArray(copy.replacement)
  ) {
    throw new UserError('Session history suffix transaction fields are invalid.');
  }
  return {
    operationId,
    transaction: {
      type: 'replace_suffix',
      expectedSuffix: agentItems(copy.expectedSuffix),
      replacement: agentItems(copy.replacement),
    },
  };
}

/** Whether `items` end with `suffix` (compared canonically). */
export function endsWith(
  items: readonly AgentInputItem[],
  suffix: readonly AgentInputItem[],
): boolean {
  const start = items.length - suffix.length;
  if (start < 0) return false;
  try {
    return suffix.every((expected, index) =>
      sameValue(canonicalValue(items[start + index]), expected),
    );
  } catch {
    return false;
  }
}
