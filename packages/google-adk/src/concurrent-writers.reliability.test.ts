// Guarantee: several processes, each with its own EpisodicSessionService on one ADK session in one
// Episodic home (files, SQLite or PostgreSQL), lose no event, keep each writer's order, store an
// event appended again with its id once (replaced in place), and apply every state delta: the
// session's keys, the app's and the user's (last write wins in stored order). A session written
// in one process reads back deep-equal in a fresh one. Built on the run store's compare-and-append
// (see episodic-session-service.ts).
import { fileURLToPath } from 'node:url';
import { createEvent, createEventActions, type Event } from '@google/adk';
import { build } from 'tsup';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../../../test-support/bundle-worker.js';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionService } from './episodic-session-service.js';
import { USER_STATE_RECORD_TYPE, userRunId } from './session-records.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const WRITERS = FULL ? 4 : 3;
const PER_WRITER = FULL ? 300 : 40;

// The Episodic packages from source; better-sqlite3, pg, ADK and zod stay external.
const { run } = useBundledWorker({
  build: build as (options: Record<string, unknown>) => Promise<unknown>,
  entry: fileURLToPath(new URL('./__fixtures__/session-worker.ts', import.meta.url)),
  packageDirectory: fileURLToPath(new URL('../', import.meta.url)),
  external: ['better-sqlite3', 'pg', /^@google\//, 'zod'],
});

describe.each(BACKENDS.filter((backend) => backend.reopen !== undefined))(
  'several processes on one ADK session ($name)',
  (backend) => {
    it(`${WRITERS} writers × ${PER_WRITER} events: every event once, each writer's order kept, every delta applied`, async () => {
      const opened = await backend.open();
      try {
        const key = { appName: 'race', userId: 'u', sessionId: 'session' };
        const service = new EpisodicSessionService({ runs: opened.runs });
        await service.createSession({ ...key, state: { start: true } });
        const results = await Promise.all(
          Array.from({ length: WRITERS }, (_, writer) =>
            run([
              'append',
              backend.name,
              opened.location as string,
              key.appName,
              key.userId,
              key.sessionId,
              String(writer),
              String(PER_WRITER),
            ]),
          ),
        );
        for (const result of results) {
          expect(result.code, result.output).toBe(0);
          expect(result.output.trim()).toBe(`done ${PER_WRITER}`);
        }
        const fresh = new EpisodicSessionService({ runs: opened.runs });
        const session = await fresh.getSession(key);
        const events = session?.events ?? [];
        expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
        expect(events).toHaveLength(WRITERS * PER_WRITER);
        const expectedState: Record<string, unknown> = { start: true };
        for (let writer = 0; writer < WRITERS; writer++) {
          const own = events.filter((event) => event.author === `writer-${writer}`);
          expect(own.map((event) => event.id)).toEqual(
            Array.from({ length: PER_WRITER }, (_, index) => `${writer}:${index}`),
          );
          expect(own.map((event) => event.content?.parts?.[0]?.text)).toEqual(
            Array.from({ length: PER_WRITER }, (_, index) =>
              index % 10 === 8 ? `again ${index}` : `event ${index}`,
            ),
          );
          expectedState[`w${writer}`] = PER_WRITER - 1;
          expectedState[`app:w${writer}`] = PER_WRITER - 1;
        }
        // user:last is the value of the last user-state record stored, whichever writer it was.
        const userRun = await opened.runs.read(userRunId(key.appName, key.userId));
        const lastUser = userRun.records
          .filter((record) => record.type === USER_STATE_RECORD_TYPE)
          .at(-1) as unknown as { delta: { last: string } };
        expectedState['user:last'] = lastUser.delta.last;
        expect(lastUser.delta.last).toMatch(new RegExp(`^\\d:${PER_WRITER - 1}$`));
        expect(session?.state).toEqual(expectedState);
        // The writing service sees what the others wrote as well.
        expect((await service.getSession(key))?.state).toEqual(expectedState);
      } finally {
        await opened.close();
      }
    }, 300_000);

    it('a session written in one process reads back deep-equal in a fresh process', async () => {
      const opened = await backend.open();
      try {
        const key = { appName: 'resume', userId: 'ada', sessionId: 'session' };
        const service = new EpisodicSessionService({ runs: opened.runs });
        const session = await service.createSession({ ...key, state: { topic: 'weather' } });
        const events: Event[] = [
          createEvent({
            author: 'user',
            content: { role: 'user', parts: [{ text: 'Résumé ✓ "quoted"\n' }] },
          }),
          createEvent({
            author: 'agent',
            content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { n: 1.5 } } }] },
            actions: createEventActions({
              stateDelta: { city: 'Paris', 'app:units': 'metric', 'user:home': 'Lyon' },
            }),
            extra: { empty: {}, list: [] },
          } as Parameters<typeof createEvent>[0]),
        ];
        for (const event of events) await service.appendEvent({ session, event });
        const result = await run([
          'load',
          backend.name,
          opened.location as string,
          key.appName,
          key.userId,
          key.sessionId,
        ]);
        expect(result.code, result.output).toBe(0);
        const loaded = JSON.parse(result.output);
        expect(loaded.marked).toBe(true);
        expect(loaded.session).toEqual(JSON.parse(JSON.stringify(session)));
        expect(loaded.session.state).toEqual({
          topic: 'weather',
          city: 'Paris',
          'app:units': 'metric',
          'user:home': 'Lyon',
        });
      } finally {
        await opened.close();
      }
    }, 300_000);
  },
);
