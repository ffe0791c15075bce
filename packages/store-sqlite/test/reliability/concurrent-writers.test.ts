// Guarantee: 4 processes × 2,000 read-then-append transactions on one ledger surface 0 SQLITE_BUSY,
// keep session positions gapless, and leave integrity_check ok; opening connections while another
// process holds the write lock never fails in the setup pragmas.
// Source: QUALITY.md (reliability table, "ledger: 4 processes × 2,000"), research/reliability.md §0
// findings 4 and 7, experiment E5, tests T14 and T16.
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FULL, startWorker, temporaryDirectory } from '../../../../test-support/worker-process.js';
import { openSqliteDatabase } from '../../src/open-database.js';
import { buildWorker } from './build-worker.js';

const PER_WRITER = FULL ? 2000 : 300;
let worker = '';
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  worker = await buildWorker();
}, 300_000);
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('ledger under concurrent writer processes', () => {
  it(`4 writers × ${PER_WRITER} appends to one session: 0 errors, gapless positions, integrity ok`, async () => {
    const directory = temporaryDirectory();
    cleanups.push(directory.remove);
    const filename = `${directory.path}/ledger.db`;
    openSqliteDatabase(filename).close();
    const writers = [0, 1, 2, 3].map((index) =>
      startWorker(worker, ['writers', filename, String(PER_WRITER), String(index)]),
    );
    const results = await Promise.all(writers.map((writer) => writer.exited));
    for (const [index, result] of results.entries()) {
      expect(result.code, result.stderr).toBe(0);
      expect(writers[index]?.lines.filter((line) => line.startsWith('error'))).toEqual([]);
      expect(writers[index]?.lines.at(-1)).toBe('done 0');
    }
    const database = new Database(filename, { readonly: true });
    cleanups.push(() => database.close());
    const positions = database
      .prepare("SELECT position FROM episodic_events WHERE session_id = 'shared' ORDER BY position")
      .pluck()
      .all() as number[];
    expect(positions).toHaveLength(4 * PER_WRITER);
    expect(positions.every((position, index) => position === index + 1)).toBe(true);
    expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
    // Each writer's own events keep their order.
    for (const writer of ['0', '1', '2', '3']) {
      const order = database
        .prepare('SELECT event_id FROM episodic_events WHERE event_id LIKE ? ORDER BY position')
        .pluck()
        .all(`w${writer}-%`) as string[];
      expect(order).toEqual(
        Array.from({ length: PER_WRITER }, (_, index) => `w${writer}-${index}`),
      );
    }
  }, 600_000);

  it('opens 8 connections while another process holds the write lock, without a setup failure', async () => {
    const directory = temporaryDirectory();
    cleanups.push(directory.remove);
    const filename = `${directory.path}/ledger.db`;
    openSqliteDatabase(filename).close();
    const holder = startWorker(worker, ['lock', filename, '1500']);
    await holder.waitFor((line) => line === 'locked');
    const connections = Array.from({ length: 8 }, () => openSqliteDatabase(filename));
    for (const connection of connections) {
      expect(connection.pragma('journal_mode', { simple: true })).toBe('wal');
      connection.close();
    }
    expect((await holder.exited).code).toBe(0);
  }, 300_000);
});
