// Pins: "kill -9 the writer 200× at random points, then reopen, append, read → 0 lost acknowledged
// records (under `always`), 0 unreadable files, each torn tail = exactly 1 error report"
// (QUALITY.md reliability table; research/reliability.md findings 2 and 10, E2, E4, test plans T3–T5).
// A real child process appends with durability `always` and prints `ack <index>` after each append
// resolves; the parent kills it with SIGKILL at a random moment, reopens the store, appends one
// record and reads everything back. Every fifth kill happens through a named crash point that
// writes half a record first, so the torn-tail path is exercised on every run (on this kernel a
// plain kill does not tear records up to 1 MiB: E2). RELIABILITY_FULL=1 runs 200 kills.
import { describe, expect, it } from 'vitest';
import { count, randomInt, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const runIdFor = (iteration: number) =>
  `7d6c5b4a-3e2f-4a1b-9c8d-${iteration.toString(16).padStart(12, '0')}`;

describe('kill -9 of the run writer (real processes)', () => {
  it('never loses an acknowledged record and reports each torn tail exactly once', async () => {
    const kills = count(25, 200);
    const directory = temporaryDirectory();
    let tornTails = 0;
    let ackedTotal = 0;
    try {
      for (let iteration = 0; iteration < kills; iteration++) {
        const runId = runIdFor(iteration);
        const store = createFsStore({ root: directory.path, durability: 'always' });
        await store.runs.append(runId, [
          {
            type: 'header',
            schema_version: 1,
            run_id: runId,
            started_at: new Date().toISOString(),
          },
        ]);
        await store.close();

        const tear = iteration % 5 === 4;
        const child = spawnChild('append-writer', {
          root: directory.path,
          runId,
          writer: iteration % 4,
          minSize: 1024,
          maxSize: 1024 * 1024,
          durability: 'always',
          ...(tear ? { tearAtIndex: randomInt(1, 20) } : {}),
        });
        await child.waitForLine((line) => line.startsWith('ack '));
        if (!tear) {
          await new Promise((resolve) => setTimeout(resolve, randomInt(0, 150)));
          child.process.kill('SIGKILL');
        }
        const exit = await child.exited;
        expect(exit.signal, exit.stderr).toBe('SIGKILL');
        const acked = child.lines.filter((line) => line.startsWith('ack ')).length;
        ackedTotal += acked;

        const reopened = createFsStore({ root: directory.path, durability: 'always' });
        const marker = { type: 'x.test.marker', run_id: runId, ts: new Date().toISOString() };
        await reopened.runs.append(runId, [marker]);
        const read = await reopened.runs.read(runId);
        await reopened.close();

        const writes = read.records.filter((record) => record.type === 'x.test.write');
        // Every acknowledged record is there, in order, intact; anything after it was fully written.
        expect(writes.length).toBeGreaterThanOrEqual(acked);
        writes.forEach((record, index) => {
          expect(record.index).toBe(index);
          expect((record.pad as string).length).toBe(record.length);
        });
        expect(read.records.at(-1)).toEqual(marker);
        // A torn tail is exactly one error, right before the record appended after reopening.
        expect(read.errors.length).toBeLessThanOrEqual(1);
        if (tear) expect(read.errors).toHaveLength(1);
        if (read.errors.length === 1) {
          tornTails++;
          const lastRecordLine = read.records.length + read.errors.length;
          expect(read.errors[0]?.line).toBe(lastRecordLine - 1);
        }
        expect(read.header?.run_id).toBe(runId);
        // Keep the directory small: this run has been checked.
        expect(await createFsStore({ root: directory.path }).runs.delete(runId)).toBe(true);
      }
      expect(tornTails).toBeGreaterThanOrEqual(Math.floor(kills / 5));
      console.log(
        `[figures] writer kill -9: ${kills} kills, ${ackedTotal} acknowledged records, 0 lost, ${tornTails} torn tails each reported once`,
      );
    } finally {
      directory.remove();
    }
  }, 900_000);
});
