// Guarantee: several processes, each with its own EpisodicSession on one session in one Episodic
// home (files, SQLite or PostgreSQL), lose no change: every item added is either in the history
// or was returned by exactly one popItem (no item is popped twice), each writer's items keep their
// order, and a transaction every writer applies under one operation id is applied once. A session
// written in one process reads deep-equal in a fresh one. Built on the run store's
// compare-and-append (see episodic-session.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize } from 'node:v8';
import type { AgentInputItem } from '@openai/agents-core';
import { build } from 'tsup';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../../../test-support/bundle-worker.js';
import { BACKENDS } from './__fixtures__/backends.js';
import { EVERY_KIND } from './__fixtures__/items.js';
import { EpisodicSession } from './episodic-session.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const WRITERS = FULL ? 4 : 3;
const PER_WRITER = FULL ? 200 : 30;

// The Episodic packages from source; better-sqlite3, pg, the SDK and zod stay external.
const { run } = useBundledWorker({
  build: build as (options: Record<string, unknown>) => Promise<unknown>,
  entry: fileURLToPath(new URL('./__fixtures__/session-worker.ts', import.meta.url)),
  packageDirectory: fileURLToPath(new URL('../', import.meta.url)),
  external: ['better-sqlite3', 'pg', /^@openai\//, 'zod'],
});

const text = (item: AgentInputItem): string => (item as { content: string }).content;

describe.each(BACKENDS.filter((backend) => backend.reopen !== undefined))(
  'several processes on one session ($name)',
  (backend) => {
    it(`${WRITERS} writers × ${PER_WRITER} adds, pops and shared transactions: nothing lost, nothing popped twice`, async () => {
      const opened = await backend.open();
      try {
        const barrier = mkdtempSync(join(tmpdir(), 'episodic-openai-agents-barrier-'));
        const results = await Promise.all(
          Array.from({ length: WRITERS }, (_, writer) =>
            run([
              'write',
              backend.name,
              opened.location as string,
              'race',
              String(writer),
              String(PER_WRITER),
              barrier,
              String(WRITERS),
            ]),
          ),
        ).finally(() => rmSync(barrier, { recursive: true, force: true }));
        const popped: string[] = [];
        for (const result of results) {
          expect(result.code, result.output).toBe(0);
          popped.push(...(JSON.parse(result.output) as AgentInputItem[]).map(text));
        }
        const kept = (
          await new EpisodicSession({ runs: opened.runs, sessionId: 'race' }).getItems()
        ).map(text);
        const added: string[] = [];
        for (let writer = 0; writer < WRITERS; writer++) {
          for (let index = 0; index < PER_WRITER; index++) added.push(`${writer}:${index}`);
        }
        for (let index = 9; index < PER_WRITER; index += 10) added.push(`shared:${index}`);
        // Every change landed once: what is kept and what was popped are exactly what was added.
        expect([...kept, ...popped].sort()).toEqual(added.sort());
        expect(popped).toHaveLength(WRITERS * Math.floor(PER_WRITER / 5));
        for (let writer = 0; writer < WRITERS; writer++) {
          const own = kept.filter((item) => item.startsWith(`${writer}:`));
          const order = own.map((item) => Number(item.split(':')[1]));
          expect(order).toEqual([...order].sort((a, b) => a - b));
        }
      } finally {
        await opened.close();
      }
    }, 300_000);

    it('a session written in one process reads deep-equal in a fresh process', async () => {
      const opened = await backend.open();
      try {
        const session = new EpisodicSession({ runs: opened.runs, sessionId: 'resume' });
        await session.addItems(EVERY_KIND);
        await session.popItem();
        await session.addItems([{ role: 'user', content: 'Résumé ✓ "quoted"\n' }]);
        const result = await run([
          'load',
          backend.name,
          opened.location as string,
          'resume',
          '0',
          '0',
        ]);
        expect(result.code, result.output).toBe(0);
        expect(deserialize(Buffer.from(result.output.trim(), 'base64'))).toStrictEqual([
          ...EVERY_KIND.slice(0, -1),
          { role: 'user', content: 'Résumé ✓ "quoted"\n' },
        ]);
      } finally {
        await opened.close();
      }
    }, 300_000);
  },
);
