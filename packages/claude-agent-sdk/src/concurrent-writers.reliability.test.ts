// Guarantee: several processes, each with its own EpisodicSessionStore on one session in one
// Episodic home (files, SQLite or PostgreSQL), lose no entry, store an entry whose uuid several of
// them append exactly once, keep each writer's order, and fold every stored batch into the
// session summary once. A session written in one process loads the same in a fresh one.
// Built on the run store's compare-and-append (see episodic-session-store.ts).
import { fileURLToPath } from 'node:url';
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { build } from 'tsup';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../../../test-support/bundle-worker.js';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionStore } from './episodic-session-store.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const WRITERS = FULL ? 4 : 3;
const PER_WRITER = FULL ? 300 : 40;

// The Episodic packages from source; better-sqlite3, pg, the SDK and zod stay external.
const { run } = useBundledWorker({
  build: build as (options: Record<string, unknown>) => Promise<unknown>,
  entry: fileURLToPath(new URL('./__fixtures__/session-worker.ts', import.meta.url)),
  packageDirectory: fileURLToPath(new URL('../', import.meta.url)),
  external: ['better-sqlite3', 'pg', /^@anthropic-ai\//, 'zod'],
});

describe.each(BACKENDS.filter((backend) => backend.reopen !== undefined))(
  'several processes on one session ($name)',
  (backend) => {
    it(`${WRITERS} writers × ${PER_WRITER} appends with shared uuids: every entry once, each writer's order kept`, async () => {
      const opened = await backend.open();
      try {
        const key = { projectKey: 'race', sessionId: 'session' };
        const results = await Promise.all(
          Array.from({ length: WRITERS }, (_, writer) =>
            run([
              'append',
              backend.name,
              opened.location as string,
              key.projectKey,
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
        const store = new EpisodicSessionStore({ runs: opened.runs });
        const entries = (await store.load(key)) ?? [];
        const uuids = entries.flatMap((entry) => (entry.uuid === undefined ? [] : [entry.uuid]));
        expect(new Set(uuids).size).toBe(uuids.length);
        expect(uuids).toHaveLength(WRITERS * PER_WRITER + PER_WRITER);
        for (let index = 0; index < PER_WRITER; index++) expect(uuids).toContain(`shared:${index}`);
        for (let writer = 0; writer < WRITERS; writer++) {
          const own = entries.filter((entry) => entry.writer === String(writer));
          const expected: SessionStoreEntry[] = [];
          for (let index = 0; index < PER_WRITER; index++) {
            expected.push({
              type: 'user',
              uuid: `${writer}:${index}`,
              writer: String(writer),
              index,
            });
            if (index % 10 === 9) expected.push({ type: 'tag', writer: String(writer), index });
          }
          expect(own).toEqual(expected);
        }
        expect((await store.listSessions(key.projectKey)).map((s) => s.sessionId)).toEqual([
          key.sessionId,
        ]);
        const [summary] = await store.listSessionSummaries(key.projectKey);
        expect(summary?.sessionId).toBe(key.sessionId);
      } finally {
        await opened.close();
      }
    }, 300_000);

    it('a session written in one process loads deep-equal in a fresh process', async () => {
      const opened = await backend.open();
      try {
        const key = { projectKey: 'resume', sessionId: 'session' };
        const store = new EpisodicSessionStore({ runs: opened.runs });
        const written: SessionStoreEntry[] = [
          { type: 'user', uuid: 'u1', message: { role: 'user', content: 'Résumé ✓ "quoted"\n' } },
          {
            type: 'assistant',
            uuid: 'a1',
            message: { content: [{ type: 'text', text: 'ok' }] },
            n: 1.5,
          },
          { type: 'custom-title', customTitle: 'A title', empty: {}, list: [] },
        ];
        await store.append(key, written.slice(0, 2));
        await store.append(key, written.slice(2));
        const result = await run([
          'load',
          backend.name,
          opened.location as string,
          key.projectKey,
          key.sessionId,
          '0',
          '0',
        ]);
        expect(result.code, result.output).toBe(0);
        expect(JSON.parse(result.output)).toEqual(written);
      } finally {
        await opened.close();
      }
    }, 300_000);
  },
);
