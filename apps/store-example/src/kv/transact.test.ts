import { expectEpisodicError } from '@episodic/core/testing';
import { describe, expect, it } from 'vitest';
import type { KeyValueStore } from './key-value-store.js';
import { createMemoryKeyValueStore } from './memory-key-value-store.js';
import { transact } from './transact.js';

/** Increments a counter by read, plan, compare-and-set. */
const increment = (kv: KeyValueStore) =>
  transact(kv, async () => {
    const value = await kv.get('counter');
    const next = String(Number(value ?? '0') + 1);
    return {
      checks: [{ key: 'counter', value }],
      writes: [{ key: 'counter', value: next }],
      result: next,
    };
  });

describe('transact', () => {
  it('plans again when another writer changed what a plan read, so no update is lost', async () => {
    const kv = createMemoryKeyValueStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => increment(kv)));
    expect(await kv.get('counter')).toBe('20');
    expect(new Set(results).size).toBe(20);
  });

  it('writes nothing when a plan throws', async () => {
    const kv = createMemoryKeyValueStore();
    await expect(
      transact(kv, async () => {
        throw new Error('stale');
      }),
    ).rejects.toThrow('stale');
    expect(await kv.keys('')).toEqual([]);
  });

  it('gives up with STORAGE_ERROR when every attempt loses its race', async () => {
    const kv = createMemoryKeyValueStore();
    const losing: KeyValueStore = { ...kv, compareAndSet: async () => false };
    await expectEpisodicError(
      transact(losing, async () => ({ checks: [], writes: [], result: 1 })),
      'STORAGE_ERROR',
    );
  });
});
