// Guarantee: a run search's catch-up never misses a record, and a rowid SQLite hands out again
// after a run was deleted is indexed with its new text. Appender processes append runs (deleting
// every fifth right after, so the highest rowids are freed and reused) while another process
// searches runs in a loop; afterwards each kept run is found by its own word, each deleted one
// is not, and the index holds exactly the stored records.
import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FULL, startWorker, temporaryDirectory } from '../../../../test-support/worker-process.js';
import { openSqliteDatabase } from '../../src/open-database.js';
import { createSqliteStore } from '../../src/sqlite-store.js';
import { buildWorker } from './build-worker.js';

const PER_WRITER = FULL ? 1000 : 150;
let worker = '';
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  worker = await buildWorker();
}, 300_000);
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('run search index catch-up under concurrent appender processes', () => {
  it(`2 appenders × ${PER_WRITER} runs (every fifth deleted) while a third process searches: nothing missed, nothing left`, async () => {
    const directory = temporaryDirectory();
    cleanups.push(directory.remove);
    const filename = `${directory.path}/runs.db`;
    openSqliteDatabase(filename).close();
    const searcher = startWorker(worker, ['run-search-loop', filename]);
    const appenders = ['1', '2'].map((writer) =>
      startWorker(worker, ['append-run-words', filename, String(PER_WRITER), writer]),
    );
    for (const appender of appenders) {
      const result = await appender.exited;
      expect(result.code, result.stderr).toBe(0);
    }
    writeFileSync(`${filename}.stop`, '');
    const searched = await searcher.exited;
    expect(searched.code, searched.stderr).toBe(0);
    const [, searches, found] = (searcher.lines.at(-1) ?? '').split(' ');
    expect(Number(searches)).toBeGreaterThan(1);
    expect(Number(found)).toBe(1);

    const store = createSqliteStore({ filename });
    try {
      for (const writer of ['1', '2']) {
        for (let index = 0; index < PER_WRITER; index++) {
          const page = await store.runs.search({ text: `w${writer}x${index}` });
          expect(page.hits.length, `w${writer}x${index}`).toBe(index % 5 === 4 ? 0 : 1);
        }
      }
      const database = store.database;
      const records = database.prepare('SELECT count(*) FROM episodic_run_records').pluck().get();
      expect(records).toBe(2 * 2 * (PER_WRITER - Math.floor(PER_WRITER / 5)));
      const indexed = database.prepare('SELECT count(*) FROM episodic_run_search').pluck().get();
      expect(indexed).toBe(records);
      const mismatched = database
        .prepare(
          'SELECT count(*) FROM episodic_run_search AS f LEFT JOIN episodic_run_records AS r ON r.rowid = f.rowid WHERE r.run_id IS NOT f.run_id OR r.seq IS NOT f.seq',
        )
        .pluck()
        .get();
      expect(mismatched).toBe(0);
      expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await store.close();
    }
  }, 600_000);
});
