// Pins: "redaction while other processes append → 0 acknowledged records lost" (QUALITY.md
// reliability table). Two real processes keep appending (synced, each record with a secret in it)
// to one run while this process redacts it again and again. Redaction rewrites lines in place, so
// every acknowledged record is still there, once, in each writer's order, and the last redaction
// leaves no secret. RELIABILITY_FULL=1 runs 2 × 2,000 records.
import { describe, expect, it } from 'vitest';
import { count, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const WRITERS = 2;
const RUN_ID = '5b2c3d4e-5f60-4b7c-9d8e-9f0a1b2c3d4e';
const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

describe('redacting a run while other processes append (real processes)', () => {
  it('loses no acknowledged record and leaves no secret', async () => {
    const perWriter = count(150, 2_000);
    const directory = temporaryDirectory();
    const store = createFsStore({ root: directory.path, durability: 'always' });
    try {
      await store.runs.append(RUN_ID, [
        { type: 'header', schema_version: 1, run_id: RUN_ID, started_at: new Date().toISOString() },
      ]);
      const children = Array.from({ length: WRITERS }, (_, writer) =>
        spawnChild('append-writer', {
          root: directory.path,
          runId: RUN_ID,
          writer,
          count: perWriter,
          minSize: 100,
          maxSize: 16 * 1024,
          durability: 'always',
          note: `deploy key ${SECRET}`,
        }),
      );
      let redactions = 0;
      let changedLines = 0;
      let running = true;
      const exited = Promise.all(children.map((child) => child.exited)).finally(() => {
        running = false;
      });
      while (running) {
        const receipt = await store.runs.redact(RUN_ID);
        redactions++;
        changedLines += receipt.changedLines;
        // A redaction with nothing to wait for resolves in microtasks alone: let the event loop
        // see the children's output and exits between two of them.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      for (const exit of await exited) expect(exit, exit.stderr).toMatchObject({ code: 0 });
      changedLines += (await store.runs.redact(RUN_ID)).changedLines;

      const acknowledged = children.map(
        (child) => child.lines.filter((line) => line.startsWith('ack ')).length,
      );
      const read = await store.runs.read(RUN_ID);
      expect(read.errors).toEqual([]);
      const writes = read.records.slice(1);
      const next = new Array<number>(WRITERS).fill(0);
      for (const record of writes) {
        const writer = record.writer as number;
        expect(record.index).toBe(next[writer]);
        next[writer] = (next[writer] as number) + 1;
        expect((record.pad as string).length).toBe(record.length);
        expect(record.note).toBe('deploy key [REDACTED:aws_key]');
      }
      expect(next).toEqual(acknowledged);
      expect(next).toEqual(new Array(WRITERS).fill(perWriter));
      expect(JSON.stringify(read.records)).not.toContain(SECRET);
      // The redactions really overlapped the writers.
      expect(redactions).toBeGreaterThan(3);
      console.log(
        `[figures] redaction while appending: ${redactions} redactions during ${WRITERS} processes × ${perWriter} synced appends, ${changedLines} lines rewritten in place, 0 acknowledged records lost, 0 secrets left`,
      );
    } finally {
      await store.close();
      directory.remove();
    }
  }, 900_000);
});
