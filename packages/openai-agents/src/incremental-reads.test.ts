// The folded history stays in the process: a call reads only what other processes appended since
// (readAfter from the position the session knows), never the whole run again.
import { createMemoryRunStore, type RunStore } from '@episodic/core';
import { expect, it } from 'vitest';
import { EpisodicSession } from './episodic-session.js';

function counted(runs: RunStore): { runs: RunStore; calls: string[]; records: () => number } {
  const calls: string[] = [];
  let records = 0;
  const wrapped = new Proxy(runs, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        if (name === 'readAfter') {
          calls.push(`readAfter ${args[1]}`);
          records += (result as { records: unknown[] }).records.length;
        } else if (name === 'read') {
          calls.push('read');
        }
        return result;
      };
    },
  });
  return { runs: wrapped, calls, records: () => records };
}

it('reads the run once, then only what others added', async () => {
  const store = createMemoryRunStore();
  const other = new EpisodicSession({ runs: store, sessionId: 's' });
  await other.addItems(Array.from({ length: 50 }, (_, n) => ({ role: 'user', content: `${n}` })));
  const { runs, calls, records } = counted(store);
  const session = new EpisodicSession({ runs, sessionId: 's' });
  expect(await session.getItems()).toHaveLength(50);
  expect(records()).toBe(51); // the header and 50 items, once
  for (let n = 0; n < 5; n++) await session.getItems(3);
  await session.addItems([{ role: 'user', content: 'mine' }]);
  await session.popItem();
  expect(records()).toBe(51); // nothing new was read: its own writes are folded as written
  await other.addItems([{ role: 'user', content: 'theirs' }]);
  expect((await session.getItems(1))[0]).toEqual({ role: 'user', content: 'theirs' });
  expect(records()).toBe(52); // just the other session's item
  expect(calls).not.toContain('read');
  expect(calls.every((call) => call.startsWith('readAfter'))).toBe(true);
  await store.close();
});
