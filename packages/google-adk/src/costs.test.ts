// Costs do not grow with history: a service reads each run whole once, then only what was appended
// since (its own appends cost one compare-and-append each, nothing read). Counted on the run
// store's calls, never on the clock.

import type { RunStore } from '@episodic/core';
import { createEvent, createEventActions } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionService } from './episodic-session-service.js';

/** The run store, counting calls per method and the records its reads returned. */
function counting(runs: RunStore) {
  const calls: Record<string, number> = {};
  let recordsRead = 0;
  const counted = new Proxy(runs, {
    get(target, method, receiver) {
      const value = Reflect.get(target, method, receiver);
      if (typeof value !== 'function' || typeof method !== 'string') return value;
      return async (...args: unknown[]) => {
        calls[method] = (calls[method] ?? 0) + 1;
        const result = await value.apply(target, args);
        if (method === 'read' || method === 'readAfter') {
          recordsRead += (result as { records: unknown[] }).records.length;
        }
        return result;
      };
    },
  });
  return {
    runs: counted,
    take() {
      const taken = { calls: { ...calls }, recordsRead };
      for (const key of Object.keys(calls)) delete calls[key];
      recordsRead = 0;
      return taken;
    },
  };
}

const KEY = { appName: 'app', userId: 'u', sessionId: 's' };

describe.each(BACKENDS)('costs on $name', (backend) => {
  it('appends and reads of a known session touch only what is new', async () => {
    const opened = await backend.open();
    try {
      const store = counting(opened.runs);
      const service = new EpisodicSessionService({ runs: store.runs });
      const session = await service.createSession(KEY);
      for (let index = 0; index < 200; index++) {
        await service.appendEvent({
          session,
          event: createEvent({
            author: 'agent',
            content: { role: 'model', parts: [{ text: `turn ${index}` }] },
            actions: createEventActions({ stateDelta: { turn: index } }),
          }),
        });
      }
      store.take();

      // One more event: one append, nothing read.
      await service.appendEvent({ session, event: createEvent({ author: 'user' }) });
      expect(store.take()).toEqual({ calls: { append: 1 }, recordsRead: 0 });

      // getSession of a long session: no whole-run read, nothing new to read.
      const loaded = await service.getSession(KEY);
      expect(loaded?.events).toHaveLength(201);
      const read = store.take();
      expect(read.calls.read ?? 0).toBe(0);
      expect(read.recordsRead).toBe(0);

      // Another process appends 3 events: this service reads those 3 records, not the run.
      const other = new EpisodicSessionService({ runs: opened.runs });
      const theirs = (await other.getSession(KEY)) ?? session;
      for (let index = 0; index < 3; index++) {
        await other.appendEvent({ session: theirs, event: createEvent({ author: 'other' }) });
      }
      store.take();
      expect((await service.getSession(KEY))?.events).toHaveLength(204);
      const caught = store.take();
      expect(caught.calls.read ?? 0).toBe(0);
      expect(caught.recordsRead).toBe(3);

      // And this service's next append lands after them without re-reading anything more.
      await service.appendEvent({ session, event: createEvent({ author: 'user' }) });
      expect(store.take()).toEqual({ calls: { append: 1 }, recordsRead: 0 });
    } finally {
      await opened.close();
    }
  });
});
