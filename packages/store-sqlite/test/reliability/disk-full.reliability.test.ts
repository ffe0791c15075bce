// Guarantee: a full disk under the SQLite store is a typed STORAGE_ERROR (backend code
// SQLITE_FULL), never a partial or lost acknowledged transaction: every acknowledged ledger batch
// is stored whole, no failed batch left a row, runs and snapshots keep their last acknowledged
// state, integrity_check stays ok, and once space is freed writes work again.
// Source: QUALITY.md (reliability table, "disk full"), research/reliability.md test plan T22 and
// §2 (SQLite's I/O-error tests). A tmpfs of 1 MiB is mounted for a child process only (`unshare
// -rm`, or `mount` as root); where neither works the test is skipped with the reason.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  runOnSmallFilesystem,
  smallFilesystemSupport,
} from '../../../../test-support/small-filesystem.js';
import { buildWorker } from './build-worker.js';

const support = smallFilesystemSupport();
const skipReason = 'skip' in support ? support.skip : undefined;

let worker = '';
beforeAll(async () => {
  if (skipReason !== undefined) return;
  worker = await buildWorker('disk-full-worker');
}, 300_000);

interface Failure {
  episodic: boolean;
  code?: string;
  backendCode?: string;
  message: string;
}

function expectDiskFull(failure: Failure | undefined): void {
  expect(failure).toMatchObject({ episodic: true, code: 'STORAGE_ERROR' });
  expect(['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'ENOSPC']).toContain(failure?.backendCode);
}

describe.skipIf(skipReason !== undefined)('a full disk under the SQLite store', () => {
  if (skipReason !== undefined) it.skip(skipReason, () => {});

  for (const synchronous of ['NORMAL', 'FULL'] as const) {
    it(`(synchronous ${synchronous}) fails typed, keeps every acknowledged transaction whole, recovers`, async () => {
      const directory = mkdtempSync(join(tmpdir(), 'episodic-sqlite-full-'));
      try {
        const run = await runOnSmallFilesystem(
          support as { how: 'unshare' | 'mount' },
          directory,
          1024 * 1024,
          [process.execPath, worker, directory, synchronous],
        );
        expect(run.code, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout);

        expect(report.ackedBatches).toBeGreaterThan(3);
        expect(report.ledgerFailures).toHaveLength(3);
        for (const failure of report.ledgerFailures) expectDiskFull(failure);
        expect(report.whileFull.ledger).toEqual({
          lost: 0,
          partialOrUnacked: 0,
          rows: report.ackedRows,
        });
        expect(report.whileFull.queried).toBe(report.ackedRows);
        expect(report.whileFull.quickCheck).toBe('ok');

        expect(report.runAcked).toBeGreaterThan(1);
        expectDiskFull(report.runFailure);
        expect(report.whileFull.runRecords).toBe(report.runAcked);

        expect(report.savedRevision).toBeGreaterThan(0);
        expectDiskFull(report.snapshotFailure);
        expect(report.loadedRevision).toBe(report.savedRevision);

        expect(report.recovered).toBe(true);
        console.log(
          `[figures] disk full (sqlite, ${synchronous}): ${report.ackedBatches} acknowledged batches (${report.ackedRows} rows) all whole, 0 partial, ${report.ledgerFailures.length} failed batches + run + snapshot all STORAGE_ERROR/${report.ledgerFailures[0]?.backendCode}, integrity ok, recovered`,
        );
        expect(report.afterReopen).toEqual({
          integrity: 'ok',
          rows: report.ackedRows + 1,
          runRecords: report.runAcked,
          loadedRevision: report.savedRevision,
        });
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }, 300_000);
  }
});
