// Pins: "optimistic concurrency: 2 writers, same expected position → exactly 1 wins, the other gets
// CONFLICT" (QUALITY.md reliability table; research/reliability.md §4, test plan T18) for session
// snapshots across processes: the save's read-compare-write runs under a lock file, so no save is
// ever lost. Four real processes load and save the same session with the loaded revision as
// `expectedRevision`, retrying on CONFLICT. RELIABILITY_FULL=1 runs 4 × 500 saves.
import { describe, expect, it } from 'vitest';
import { count, spawnChild } from './__fixtures__/child-process.js';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore } from './index.js';

const SESSION_ID = '3c4d5e6f-7081-492a-8b3c-4d5e6f708192';
const WRITERS = 4;

describe('expectedRevision across processes', () => {
  it('loses no save: the final revision counts every successful save', async () => {
    const iterations = count(40, 500);
    const directory = temporaryDirectory();
    try {
      const children = Array.from({ length: WRITERS }, (_, writer) =>
        spawnChild('session-racer', {
          root: directory.path,
          sessionId: SESSION_ID,
          iterations,
          writer,
        }),
      );
      const exits = await Promise.all(children.map((child) => child.exited));
      for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0 });
      const reports = children.map(
        (child) =>
          JSON.parse(child.lines.at(-1) as string) as { successes: number; conflicts: number },
      );
      const store = createFsStore({ root: directory.path });
      const state = await store.sessions.load(SESSION_ID);
      expect(state?.revision).toBe(WRITERS * iterations);
      expect(state?.meta?.writes).toEqual(new Array(WRITERS).fill(iterations));
      for (const report of reports) expect(report.successes).toBe(iterations);
      // The writers really raced.
      expect(reports.reduce((sum, report) => sum + report.conflicts, 0)).toBeGreaterThan(0);
      await store.close();
    } finally {
      directory.remove();
    }
  }, 600_000);
});
