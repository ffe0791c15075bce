// Guarantee: several processes, each with its own EpisodicSaver on one LangGraph thread in one
// Episodic home (files, SQLite or PostgreSQL), lose no write and no checkpoint and keep each writer's order;
// every checkpoint's deltas still rebuild its values, however the processes interleaved.
// Built on the run store's compare-and-append: a saver appends at the position it has read up to,
// and when another process appended first it reads what was added (readAfter) and retries.
import { fileURLToPath } from 'node:url';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { build } from 'tsup';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../../../test-support/bundle-worker.js';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSaver, threadRunId } from './episodic-saver.js';
import { CHECKPOINT_RECORD_TYPE, WRITES_RECORD_TYPE } from './langgraph-records.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const WRITERS = FULL ? 4 : 3;
const PER_WRITER = FULL ? 500 : 60;
const ROUNDS = FULL ? 10 : 2;

// The Episodic packages from source; better-sqlite3, pg, LangGraph and zod stay external and resolve
// from this package's node_modules.
const { run } = useBundledWorker({
  build: build as (options: Record<string, unknown>) => Promise<unknown>,
  entry: fileURLToPath(new URL('./__fixtures__/saver-worker.ts', import.meta.url)),
  packageDirectory: fileURLToPath(new URL('../', import.meta.url)),
  external: ['better-sqlite3', 'pg', /^@langchain\//, 'zod'],
});

describe.each(BACKENDS.filter((backend) => backend.reopen !== undefined))(
  'several processes on one thread ($name)',
  (backend) => {
    it(`${WRITERS} writers × ${PER_WRITER} writes, ${ROUNDS} rounds: nothing lost, each writer's order kept`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const store = await backend.open();
        try {
          const threadId = `race-${round}`;
          const saver = new EpisodicSaver({ runs: store.runs });
          const shared = { ...emptyCheckpoint(), id: uuid6(-1) };
          await saver.put(
            { configurable: { thread_id: threadId, checkpoint_ns: '' } },
            shared,
            { source: 'input', step: -1, parents: {} },
            {},
          );
          const results = await Promise.all(
            Array.from({ length: WRITERS }, (_, writer) =>
              run([
                backend.name,
                store.location as string,
                threadId,
                String(writer),
                String(PER_WRITER),
                shared.id,
              ]),
            ),
          );
          for (const result of results) {
            expect(result.code, result.output).toBe(0);
            expect(result.output.trim()).toBe(`done ${PER_WRITER}`);
          }

          // The parent process's saver sees everything the others appended.
          const tuple = await saver.getTuple({
            configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: shared.id },
          });
          const writes = (tuple?.pendingWrites ?? []).map(([, , value]) => String(value));
          expect(writes).toHaveLength(WRITERS * PER_WRITER);
          expect(new Set(writes).size).toBe(WRITERS * PER_WRITER);

          const records = (await store.runs.read(threadRunId(threadId))).records;
          for (let writer = 0; writer < WRITERS; writer++) {
            const own = records
              .filter((record) => record.type === WRITES_RECORD_TYPE)
              .map((record) =>
                String(
                  (record as unknown as { writes: Array<{ value: { json: unknown } }> }).writes[0]
                    ?.value.json,
                ),
              )
              .filter((entry) => entry.startsWith(`${writer}:`));
            expect(own).toEqual(
              Array.from({ length: PER_WRITER }, (_, index) => `${writer}:${index}`),
            );
          }

          // Every writer's checkpoints are there and rebuild their growing value from the deltas.
          const checkpoints = records.filter((record) => record.type === CHECKPOINT_RECORD_TYPE);
          expect(checkpoints).toHaveLength(1 + WRITERS * Math.floor(PER_WRITER / 5));
          // Per-step deltas survive the interleaving: after its first checkpoint, each writer's
          // growing list is stored as what it appended to its previous checkpoint's.
          const appends = checkpoints.filter((record) =>
            Object.values((record as unknown as { values: Record<string, object> }).values).some(
              (entry) => 'append' in entry,
            ),
          );
          expect(appends).toHaveLength(WRITERS * (Math.floor(PER_WRITER / 5) - 1));
          const fresh = new EpisodicSaver({ runs: store.runs });
          for await (const listed of fresh.list({ configurable: { thread_id: threadId } })) {
            const writer = (listed.metadata as { writer?: string } | undefined)?.writer;
            if (writer === undefined) continue;
            const values = listed.checkpoint.channel_values[`log_${writer}`] as string[];
            const step = (listed.metadata as { step: number }).step;
            expect(values).toEqual(
              Array.from({ length: (step + 1) / 5 }, (_, index) => `${writer}:${index * 5 + 4}`),
            );
          }
        } finally {
          await store.close();
        }
      }
    }, 300_000);
  },
);
