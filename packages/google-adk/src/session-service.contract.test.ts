// ADK's BaseSessionService contract as ADK documents it (base_session_service.d.ts, session.d.ts,
// state.d.ts) and as its InMemorySessionService behaves, run on every Episodic backend. Every read
// goes through a second service on the same store too, so what is checked is what was stored, not
// what one process remembers. (ADK's own InMemorySessionService tests are run unchanged by
// vitest.config.ts when EPISODIC_ADK_SESSION_TESTS names their file.)

import type { RunStore } from '@episodic/core';
import { createEvent, createEventActions, type Event, type Session } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionService } from './episodic-session-service.js';
import { appRunId, sessionRunId, userRunId } from './session-records.js';

const KEY = { appName: 'weather', userId: 'ada', sessionId: 's1' };
/** Whether the event carries ADK's event mark (`createEvent`'s symbol). */
const marked = (event: Event) =>
  (event as unknown as Record<symbol, unknown>)[Symbol.for('google.adk.event')] === true;

const said = (author: string, text: string, fields: Partial<Event> = {}): Event =>
  createEvent({ author, content: { role: author, parts: [{ text }] }, ...fields });

describe.each(BACKENDS)('EpisodicSessionService contract on $name', (backend) => {
  async function withRuns(test: (runs: RunStore) => Promise<void>): Promise<void> {
    const opened = await backend.open();
    try {
      await test(opened.runs);
    } finally {
      await opened.close();
    }
  }
  /** The session as a fresh service (nothing cached) reads it from the store. */
  const reread = (runs: RunStore, key = KEY) =>
    new EpisodicSessionService({ runs }).getSession(key);

  it('returns appended events deep-equal, unknown fields and the event mark kept', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      const session = await service.createSession(KEY);
      const events = [
        said('user', 'Weather in Paris?', { invocationId: 'inv-1' }),
        createEvent({
          author: 'agent',
          invocationId: 'inv-1',
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'c1', name: 'weather', args: { city: 'Paris' } } }],
          },
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3 },
          customMetadata: { nested: [1, 'two', null, { deep: true }] },
        }),
        {
          ...said('agent', 'Sunny, 21°C', { branch: 'root.weather' }),
          unknownField: { kept: ['as', 'is'] },
        } as Event,
      ];
      for (const event of events) await service.appendEvent({ session, event });
      for (const loaded of [await service.getSession(KEY), await reread(runs)]) {
        expect(loaded?.events).toEqual(events);
        expect(loaded?.events.every((event) => marked(event))).toBe(true);
        expect(loaded?.lastUpdateTime).toBe(events.at(-1)?.timestamp);
      }
      expect(session.events).toEqual(events);
    }));

  it('applies state deltas by prefix: app: for the app, user: for the user, temp: never stored', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      const session = await service.createSession({
        ...KEY,
        state: { topic: 'weather', 'temp:scratch': 1 },
      });
      expect(session.state).toEqual({ topic: 'weather' });
      const event = createEvent({
        author: 'agent',
        actions: createEventActions({
          stateDelta: {
            city: 'Paris',
            'app:units': 'metric',
            'user:home': 'Lyon',
            'temp:draft': 'not kept',
          },
        }),
      });
      await service.appendEvent({ session, event });
      // The caller's session is updated as ADK's own services update it (temp: dropped).
      expect(session.state).toEqual({
        topic: 'weather',
        city: 'Paris',
        'app:units': 'metric',
        'user:home': 'Lyon',
      });
      expect(event.actions.stateDelta).not.toHaveProperty('temp:draft');
      const expected = {
        topic: 'weather',
        city: 'Paris',
        'app:units': 'metric',
        'user:home': 'Lyon',
      };
      expect((await service.getSession(KEY))?.state).toEqual(expected);
      expect((await reread(runs))?.state).toEqual(expected);

      const fresh = new EpisodicSessionService({ runs });
      const sameUser = await fresh.createSession({ ...KEY, sessionId: 's2' });
      expect(sameUser.state).toEqual({ 'app:units': 'metric', 'user:home': 'Lyon' });
      const otherUser = await fresh.createSession({ ...KEY, userId: 'bob', sessionId: 's3' });
      expect(otherUser.state).toEqual({ 'app:units': 'metric' });
      const otherApp = await fresh.createSession({ ...KEY, appName: 'other', sessionId: 's4' });
      expect(otherApp.state).toEqual({});

      // A write through another session reaches this one (app and user state are shared).
      await fresh.appendEvent({
        session: otherUser,
        event: createEvent({
          actions: createEventActions({ stateDelta: { 'app:units': 'imperial' } }),
        }),
      });
      expect((await service.getSession(KEY))?.state['app:units']).toBe('imperial');

      // Nothing stored anywhere holds the temp: keys.
      for (const runId of [
        sessionRunId('weather', 'ada', 's1'),
        appRunId('weather'),
        userRunId('weather', 'ada'),
      ]) {
        const stored = JSON.stringify((await runs.read(runId)).records);
        expect(stored).not.toContain('temp:');
        expect(stored).not.toContain('not kept');
      }
    }));

  it('getSession: numRecentEvents keeps the last n, afterTimestamp the events at or after it', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      const session = await service.createSession(KEY);
      for (let index = 1; index <= 5; index++) {
        await service.appendEvent({
          session,
          event: createEvent({ id: `e${index}`, timestamp: index * 1000 }),
        });
      }
      const ids = async (config: { numRecentEvents?: number; afterTimestamp?: number }) => {
        const local = (await service.getSession({ ...KEY, config }))?.events.map((e) => e.id);
        const stored = (
          await new EpisodicSessionService({ runs }).getSession({ ...KEY, config })
        )?.events.map((e) => e.id);
        expect(stored).toEqual(local);
        return local;
      };
      expect(await ids({ numRecentEvents: 2 })).toEqual(['e4', 'e5']);
      expect(await ids({ numRecentEvents: 0 })).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
      expect(await ids({ numRecentEvents: 9 })).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
      expect(await ids({ afterTimestamp: 2500 })).toEqual(['e3', 'e4', 'e5']);
      expect(await ids({ afterTimestamp: 3000 })).toEqual(['e3', 'e4', 'e5']);
      expect(await ids({ afterTimestamp: 9000 })).toEqual(['e1', 'e2', 'e3', 'e4', 'e5'].slice(5));
      expect(await ids({ numRecentEvents: 3, afterTimestamp: 3500 })).toEqual(['e4', 'e5']);
    }));

  it('an event appended again with its id replaces it; partial events are not stored', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      const session = await service.createSession(KEY);
      await service.appendEvent({ session, event: said('user', 'hi', { id: 'e1', timestamp: 1 }) });
      await service.appendEvent({
        session,
        event: said('agent', 'draft', { id: 'e2', timestamp: 2 }),
      });
      const partial = said('agent', 'stream…', { id: 'e3', timestamp: 3, partial: true });
      expect(await service.appendEvent({ session, event: partial })).toBe(partial);
      await service.appendEvent({
        session,
        event: said('agent', 'final', { id: 'e2', timestamp: 4 }),
      });
      for (const loaded of [await service.getSession(KEY), await reread(runs)]) {
        expect(loaded?.events.map((e) => [e.id, e.content?.parts?.[0]?.text])).toEqual([
          ['e1', 'hi'],
          ['e2', 'final'],
        ]);
        expect(loaded?.lastUpdateTime).toBe(4);
      }
    }));

  it('lists sessions per user or for the whole app, paginated and ordered, without events', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      for (const [userId, sessionId, timestamp] of [
        ['ada', 'a1', 3000],
        ['ada', 'a2', 1000],
        ['bob', 'b1', 2000],
      ] as const) {
        const session = await service.createSession({ appName: 'app', userId, sessionId });
        await service.appendEvent({ session, event: createEvent({ timestamp }) });
      }
      await service.createSession({ appName: 'elsewhere', userId: 'ada', sessionId: 'x' });
      const fresh = new EpisodicSessionService({ runs });
      for (const lister of [service, fresh]) {
        const all = await lister.listSessions({ appName: 'app', order: 'asc' });
        expect(all.sessions.map((s) => [s.userId, s.id, s.lastUpdateTime])).toEqual([
          ['ada', 'a2', 1000],
          ['bob', 'b1', 2000],
          ['ada', 'a1', 3000],
        ]);
        expect(all.sessions.every((s) => s.events.length === 0)).toBe(true);
        expect(all).toMatchObject({ page: 1, limit: 3, totalItems: 3, totalPages: 1 });
        const ada = await lister.listSessions({ appName: 'app', userId: 'ada', order: 'desc' });
        expect(ada.sessions.map((s) => s.id)).toEqual(['a1', 'a2']);
        const page = await lister.listSessions({
          appName: 'app',
          limit: 2,
          page: 2,
          order: 'desc',
        });
        expect(page.sessions.map((s) => s.id)).toEqual(['a2']);
        expect(page).toMatchObject({ page: 2, limit: 2, totalItems: 3, totalPages: 2 });
        expect((await lister.listSessions({ appName: 'none' })).sessions).toEqual([]);
      }
      await fresh.deleteSession({ appName: 'app', userId: 'ada', sessionId: 'a1' });
      const after = await service.listSessions({ appName: 'app', userId: 'ada' });
      expect(after.sessions.map((s) => s.id)).toEqual(['a2']);
      expect(
        await service.getSession({ appName: 'app', userId: 'ada', sessionId: 'a1' }),
      ).toBeUndefined();
    }));

  it('createSession refuses an id already stored (as ADK DatabaseSessionService does); a deleted one can be made again', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      await service.createSession({ ...KEY, state: { n: 1 } });
      const other = new EpisodicSessionService({ runs });
      await expect(other.createSession(KEY)).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining('Session with id s1 already exists'),
      });
      expect((await reread(runs))?.state).toEqual({ n: 1 });
      await other.deleteSession(KEY);
      const again = await service.createSession({ ...KEY, state: { n: 2 } });
      expect(again.state).toEqual({ n: 2 });
      expect((await reread(runs))?.events).toEqual([]);
      expect((await service.listSessions({ appName: KEY.appName })).totalItems).toBe(1);
    }));

  it('getOrCreateSession resumes a stored session', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      const session = await service.createSession(KEY);
      await service.appendEvent({ session, event: said('user', 'hi') });
      const resumed = await new EpisodicSessionService({ runs }).getOrCreateSession(KEY);
      expect(resumed.events).toEqual(session.events);
    }));

  it('appending to a session that is not stored changes only the session object (as InMemorySessionService)', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      const ghost: Session = {
        id: 'ghost',
        appName: 'app',
        userId: 'u',
        state: {},
        events: [],
        lastUpdateTime: 0,
      };
      const event = createEvent({ actions: createEventActions({ stateDelta: { 'app:x': 1 } }) });
      expect(await service.appendEvent({ session: ghost, event })).toBe(event);
      expect(ghost.events).toEqual([event]);
      expect(
        await service.getSession({ appName: 'app', userId: 'u', sessionId: 'ghost' }),
      ).toBeUndefined();
      expect((await service.createSession({ appName: 'app', userId: 'u' })).state).toEqual({});
    }));

  it('rejects bad input with the field named, and stores nothing', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs });
      await expect(service.createSession({ appName: '', userId: 'u' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(
          /createSession: appName must be a non-empty string \(got ""\)/,
        ),
      });
      await expect(
        service.getSession({ ...KEY, config: { numRecentEvents: -1 } }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('config.numRecentEvents'),
      });
      await expect(
        service.listSessions({ appName: 'a', order: 'newest' as never }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('order'),
      });
      const session = await service.createSession(KEY);
      await expect(
        service.appendEvent({ session, event: { ...createEvent(), timestamp: 'now' } as never }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('event.timestamp'),
      });
      expect(session.events).toEqual([]);
      expect((await reread(runs))?.events).toEqual([]);
      expect(() => new EpisodicSessionService({ runs: {} as RunStore })).toThrow(
        /runs must be an Episodic RunStore/,
      );
      expect(() => new EpisodicSessionService({ runs, scope: ' ' })).toThrow(
        /scope must be a non-empty string/,
      );
    }));

  it('stamps the scope it is given in the header of every run it creates', () =>
    withRuns(async (runs) => {
      const service = new EpisodicSessionService({ runs, scope: 'team-a' });
      const session = await service.createSession(KEY);
      await service.appendEvent({
        session,
        event: createEvent({
          actions: createEventActions({ stateDelta: { 'app:a': 1, 'user:u': 2 } }),
        }),
      });
      for (const runId of [
        sessionRunId('weather', 'ada', 's1'),
        appRunId('weather'),
        userRunId('weather', 'ada'),
      ]) {
        expect((await runs.read(runId)).header).toMatchObject({ scope: 'team-a' });
      }
    }));
});
