// Property: any sequence of createSession / appendEvent / getSession / listSessions / deleteSession
// gives the same sessions (state after the app:/user:/temp: rules, events, getSession config) on
// EpisodicSessionService as on ADK's own InMemorySessionService, both as the writing service sees
// them and as a fresh service reads them back from the store.

import { createMemoryRunStore } from '@episodic/core';
import { fc, test } from '@fast-check/vitest';
import { createEvent, createEventActions, InMemorySessionService, type Session } from '@google/adk';
import { expect } from 'vitest';
import { EpisodicSessionService } from './episodic-session-service.js';

const APP = 'app';
const users = fc.constantFrom('u1', 'u2');
const sessions = fc.constantFrom('s1', 's2');
const keys = fc.constantFrom(
  'a',
  'b',
  'app:a',
  'app:b',
  'user:a',
  'user:b',
  'temp:a',
  'user:__proto__',
  '__proto__',
);
const values = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('x', 'y'), fc.integer(), { maxKeys: 2 }),
);
const state = fc
  .array(fc.tuple(keys, values), { maxLength: 4 })
  .map((pairs) => JSON.parse(JSON.stringify(Object.fromEntries(pairs))) as Record<string, unknown>);

const create = fc.record({
  op: fc.constant('create' as const),
  userId: users,
  sessionId: sessions,
  state,
});
const operation = fc.oneof(
  { arbitrary: create, weight: 2 },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('append' as const),
      userId: users,
      sessionId: sessions,
      eventId: fc.constantFrom('e1', 'e2', 'e3', 'e4'),
      delta: state,
      text: fc.string({ maxLength: 12 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('get' as const),
      userId: users,
      sessionId: sessions,
      numRecentEvents: fc.option(fc.nat(4), { nil: undefined, freq: 2 }),
      afterTimestamp: fc.option(fc.nat(6), { nil: undefined, freq: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('list' as const),
      userId: fc.option(users, { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      userId: users,
      sessionId: sessions,
    }),
  },
);
/** Sessions made first, then anything (a session may be deleted and made again). */
const operations = fc
  .tuple(
    fc.array(create, { minLength: 2, maxLength: 4 }),
    fc.array(operation, { minLength: 5, maxLength: 40, size: 'large' }),
  )
  .map(([first, rest]) => [...first, ...rest]);

/** A session without its creation time (each service takes its own clock reading). */
function comparable(session: Session | undefined) {
  if (session === undefined) return undefined;
  const { lastUpdateTime, ...rest } = session;
  return { ...rest, lastUpdateTime: session.events.length === 0 ? 'created' : lastUpdateTime };
}

test.prop([operations], { numRuns: 60 })(
  'behaves as InMemorySessionService',
  async (operations) => {
    const runs = createMemoryRunStore();
    const reference = new InMemorySessionService();
    const episodic = new EpisodicSessionService({ runs });
    const services = [reference, episodic] as const;
    const exists = new Set<string>();
    let clock = 0;
    for (const step of operations) {
      const key = 'sessionId' in step ? `${step.userId}/${step.sessionId}` : '';
      if (step.op === 'create') {
        if (exists.has(key)) continue; // InMemory replaces a session silently; Episodic refuses.
        exists.add(key);
        const made = await Promise.all(
          services.map((service) =>
            service.createSession({ appName: APP, ...step, state: structuredClone(step.state) }),
          ),
        );
        expect(comparable(made[1])).toEqual(comparable(made[0]));
      } else if (step.op === 'append') {
        if (!exists.has(key)) continue;
        clock += 1;
        for (const service of services) {
          const session = (await service.getSession({ appName: APP, ...step })) as Session;
          const event = createEvent({
            id: step.eventId,
            author: 'agent',
            timestamp: clock,
            content: { role: 'model', parts: [{ text: step.text }] },
            actions: createEventActions({ stateDelta: structuredClone(step.delta) }),
          });
          await service.appendEvent({ session, event });
        }
      } else if (step.op === 'get') {
        const request = {
          appName: APP,
          userId: step.userId,
          sessionId: step.sessionId,
          config: { numRecentEvents: step.numRecentEvents, afterTimestamp: step.afterTimestamp },
        };
        const [expected, got] = await Promise.all(services.map((s) => s.getSession(request)));
        expect(comparable(got)).toEqual(comparable(expected));
        const stored = await new EpisodicSessionService({ runs }).getSession(request);
        expect(comparable(stored)).toEqual(comparable(expected));
      } else if (step.op === 'list') {
        const request = { appName: APP, userId: step.userId };
        const expected = await reference.listSessions(request);
        const got = await episodic.listSessions(request);
        const ids = (listed: typeof got) =>
          listed.sessions.map((s) => `${s.userId}/${s.id}`).sort();
        expect(ids(got)).toEqual(ids(expected));
        expect(got.totalItems).toBe(expected.totalItems);
      } else {
        exists.delete(key);
        for (const service of services) await service.deleteSession({ appName: APP, ...step });
      }
    }
    await runs.close();
  },
);
