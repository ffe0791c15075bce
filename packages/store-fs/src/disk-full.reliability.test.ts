// Pins "disk full → a typed storage error; 0 partial acknowledged records; earlier records still
// readable" (QUALITY.md reliability table; research/reliability.md §3 "Node specifics" — a short
// write only happens on ENOSPC or EFBIG — and test plan T22) on a real full file system: a tmpfs of
// 512 KiB that the test mounts for a child process of its own (`unshare -rm`, or `mount` as root;
// skipped, with the reason, where neither works). The child fills it with run appends (durability
// `always` and `none`), then with ever larger session snapshots, and reads everything back with the
// real reader; the assertions run here on its report:
// - every failed append and save is a STORAGE_ERROR with backend code ENOSPC;
// - every acknowledged record is read back intact, in order; damaged lines ≤ failed appends (a
//   short write leaves at most one torn line, reported as one error, never a merged record);
// - the run is still listed and read while the disk is full;
// - a failed snapshot leaves the last acknowledged one loadable and no temp file behind;
// - once space is freed the store appends again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  runOnSmallFilesystem,
  smallFilesystemSupport,
} from '../../../test-support/small-filesystem.js';
import { CHILDREN_DIRECTORY } from './__fixtures__/child-process.js';

const support = smallFilesystemSupport();
const skipReason = 'skip' in support ? support.skip : undefined;

interface Failure {
  episodic: boolean;
  code?: string;
  backendCode?: string;
  message: string;
}
interface Report {
  acked: Array<{ index: number; length: number }>;
  appendFailures: Failure[];
  whileFull: { records: Array<{ index: number; intact: number }>; errors: number; header: boolean };
  listedWhileFull: { runs: number; errors: number };
  savedRevision: number;
  snapshotFailure?: Failure;
  loadedRevision: number | null;
  loadedLength: number | null;
  leftovers: string[];
  recovered: true | Failure;
  lastRecord?: string;
  afterRecovery: { writes: number; errors: number };
}

function expectDiskFull(failure: Failure | undefined): void {
  expect(failure).toMatchObject({ episodic: true, code: 'STORAGE_ERROR', backendCode: 'ENOSPC' });
}

describe.skipIf(skipReason !== undefined)('a full disk under the fs store', () => {
  if (skipReason !== undefined) it.skip(skipReason, () => {});

  for (const durability of ['always', 'none'] as const) {
    it(`(durability ${durability}) fails typed, loses no acknowledged record and recovers`, async () => {
      const directory = mkdtempSync(join(tmpdir(), 'episodic-disk-full-'));
      try {
        const run = await runOnSmallFilesystem(
          support as { how: 'unshare' | 'mount' },
          directory,
          512 * 1024,
          [
            process.execPath,
            join(CHILDREN_DIRECTORY, 'disk-full.js'),
            JSON.stringify({ root: directory, durability }),
          ],
        );
        expect(run.code, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout) as Report;

        // The disk really filled up, and every failure said so in a typed way.
        expect(report.acked.length).toBeGreaterThan(3);
        expect(report.appendFailures).toHaveLength(3);
        for (const failure of report.appendFailures) expectDiskFull(failure);

        // 0 partial acknowledged records: each is there, whole, in order.
        const read = new Map(report.whileFull.records.map((record) => [record.index, record]));
        for (const { index, length } of report.acked) {
          expect(read.get(index)?.intact, `record ${index}`).toBe(length);
        }
        const order = report.whileFull.records.map((record) => record.index);
        expect(order).toEqual([...order].sort((left, right) => left - right));
        expect(report.whileFull.records.length).toBe(report.acked.length);
        expect(report.whileFull.errors).toBeLessThanOrEqual(report.appendFailures.length);
        expect(report.whileFull.header).toBe(true);
        expect(report.listedWhileFull).toEqual({ runs: 1, errors: 0 });

        // A snapshot that does not fit leaves the last acknowledged one, and no temp file.
        expect(report.savedRevision).toBeGreaterThan(0);
        expectDiskFull(report.snapshotFailure);
        expect(report.loadedRevision).toBe(report.savedRevision);
        expect(report.loadedLength).toBe(report.savedRevision * 16 * 1024);
        expect(report.leftovers).toEqual([]);

        // With room again, the store appends, and every acknowledged record is still there.
        expect(report.recovered).toBe(true);
        expect(report.lastRecord).toBe('x.test.marker');
        expect(report.afterRecovery.writes).toBe(report.acked.length);
        expect(report.afterRecovery.errors).toBe(report.whileFull.errors);
        console.log(
          `[figures] disk full (fs, ${durability}): ${report.acked.length} acknowledged records all intact, ${report.appendFailures.length} failed appends all STORAGE_ERROR/ENOSPC (${report.whileFull.errors} torn line reported), snapshot revision ${report.savedRevision} kept, recovered`,
        );
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }, 300_000);
  }
});
