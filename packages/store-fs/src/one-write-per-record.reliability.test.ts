// Pins "one write call per record → exactly 1 write per record, each buffer ends with its only
// `\n`" (QUALITY.md reliability table; research/reliability.md finding 1 and E1 — two processes
// appending JSON then "\n" as two writes tore 11 % of the lines, one write per record tore none —
// and test plan T2, after Claude Code #52387). `run-file-writer.test.ts` checks one fixed batch;
// this property varies everything the writer sees: record sizes from 0 B to 1 MiB, text with
// emoji, escapes and newlines, single appends, batches and appends issued together (group commit),
// every durability mode, and a store that closes idle descriptors. The I/O interface counts the
// write calls. 60 cases per `pnpm test`; RELIABILITY_FULL=1 runs 400. Seeds are printed.
import type { RunRecord } from '@episodic/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { fuzzParameters } from './__fixtures__/fuzz.js';
import { createFsStore, type FsIo, nodeFsIo } from './index.js';

const directory = temporaryDirectory('episodic-one-write-');
afterAll(() => directory.remove());

const TS = '2026-02-03T12:00:01.000Z';
let counter = 0;
const nextRunId = () => `9a8b7c6d-5e4f-4a3b-8c2d-${(++counter).toString(16).padStart(12, '0')}`;

const content = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    'line\nbreak\r\n',
    'quote " and \\ backslash',
    '🙂👩‍💻 é 中',
    '{"json":"inside"}',
  ),
  fc
    .tuple(fc.constantFrom('x', '🙂', '\n', 'é'), fc.integer({ min: 1024, max: 1024 * 1024 }))
    .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length))),
);
type Step = { kind: 'single' | 'batch' | 'together'; contents: string[] };
const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom('single', 'batch', 'together'),
  contents: fc.array(content, { minLength: 1, maxLength: 5 }),
}) as fc.Arbitrary<Step>;

describe('one write call per record', () => {
  it('writes each record with exactly one call whose buffer ends with its only newline', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('none', 'run', 'always'),
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        async (durability, steps, maxOpenFiles) => {
          const writes: Buffer[] = [];
          const io: FsIo = {
            ...nodeFsIo,
            writeSync(fd, buffer, offset, length) {
              writes.push(Buffer.from(buffer.subarray(offset, offset + length)));
              return nodeFsIo.writeSync(fd, buffer, offset, length);
            },
          };
          const store = createFsStore({
            root: directory.path,
            durability: durability as 'none' | 'run' | 'always',
            io,
            maxOpenFiles,
          });
          // Several runs, so descriptors are closed and reopened between appends.
          const runs = [nextRunId(), nextRunId()];
          const expected = new Map<string, RunRecord[]>();
          try {
            for (const runId of runs) {
              const header: RunRecord = {
                type: 'header',
                schema_version: 1,
                run_id: runId,
                started_at: TS,
              };
              await store.runs.append(runId, [header]);
              expected.set(runId, [header]);
            }
            let records = runs.length;
            for (const [index, { kind, contents }] of steps.entries()) {
              const runId = runs[index % runs.length] as string;
              const batch = contents.map(
                (text, seq): RunRecord => ({
                  type: 'agent.event',
                  run_id: runId,
                  ts: TS,
                  seq,
                  event: { type: 'text', content: text },
                }),
              );
              if (kind === 'batch') await store.runs.append(runId, batch);
              else if (kind === 'together') {
                await Promise.all(batch.map((record) => store.runs.append(runId, [record])));
              } else for (const record of batch) await store.runs.append(runId, [record]);
              expected.get(runId)?.push(...batch);
              records += batch.length;
            }
            expect(writes).toHaveLength(records);
            for (const buffer of writes) {
              expect(buffer.indexOf(0x0a)).toBe(buffer.length - 1);
              expect(buffer[0]).toBe(0x7b);
            }
            for (const runId of runs) {
              const read = await store.runs.read(runId);
              expect(read.errors).toEqual([]);
              expect(read.records).toEqual(expected.get(runId));
            }
          } finally {
            for (const runId of runs) await store.runs.delete(runId);
            await store.close();
          }
        },
      ),
      fuzzParameters('one write per record', 60, 400),
    );
  }, 600_000);
});
