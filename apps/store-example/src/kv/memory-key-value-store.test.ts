import { describe, expect, it } from 'vitest';
import { createMemoryKeyValueStore } from './memory-key-value-store.js';

describe('memory key-value store', () => {
  it('lists the keys of a prefix in ascending order', async () => {
    const kv = createMemoryKeyValueStore();
    for (const key of ['b/2', 'a/1', 'b/10', 'b/1']) await kv.set(key, key);
    expect(await kv.keys('b/')).toEqual(['b/1', 'b/10', 'b/2']);
    expect(await kv.delete('b/1')).toBe(true);
    expect(await kv.delete('b/1')).toBe(false);
    expect(await kv.keys('b/')).toEqual(['b/10', 'b/2']);
  });

  it('applies every write of a compare-and-set whose checks all hold, absent keys included', async () => {
    const kv = createMemoryKeyValueStore();
    await kv.set('a', '1');
    await kv.set('gone', 'x');
    const done = await kv.compareAndSet(
      [
        { key: 'a', value: '1' },
        { key: 'new', value: undefined },
      ],
      [
        { key: 'a', value: '2' },
        { key: 'new', value: 'n' },
        { key: 'gone', value: undefined },
      ],
    );
    expect(done).toBe(true);
    expect([await kv.get('a'), await kv.get('new'), await kv.get('gone')]).toEqual([
      '2',
      'n',
      undefined,
    ]);
  });

  it('changes nothing when one check fails', async () => {
    const kv = createMemoryKeyValueStore();
    await kv.set('a', '1');
    const done = await kv.compareAndSet(
      [
        { key: 'a', value: '1' },
        { key: 'b', value: 'expected but absent' },
      ],
      [
        { key: 'a', value: '2' },
        { key: 'b', value: '2' },
      ],
    );
    expect(done).toBe(false);
    expect([await kv.get('a'), await kv.get('b')]).toEqual(['1', undefined]);
  });

  it('lets exactly one of two racing compare-and-sets on the same value win', async () => {
    const kv = createMemoryKeyValueStore();
    await kv.set('counter', '0');
    const results = await Promise.all(
      ['first', 'second'].map((writer) =>
        kv.compareAndSet([{ key: 'counter', value: '0' }], [{ key: 'counter', value: writer }]),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(['first', 'second']).toContain(await kv.get('counter'));
  });
});
