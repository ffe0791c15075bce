// Guarantee: a search's catch-up never misses a row. Appender processes commit events while
// another process searches (and so indexes) in a loop; afterwards every event at or below the
// stored mark is in the index, none above it is, and a search finds each event by its own word.
import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FULL, startWorker, temporaryDirectory } from '../../../../test-support/worker-process.js';
import { openSqliteDatabase } from '../../src/open-database.js';
import { createSqliteStore } from '../../src/sqlite-store.js';
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

describe('search index catch-up under concurrent appender processes', () => {
  it(`2 appenders × ${PER_WRITER} events while a third process searches: no event missed`, async () => {
    const directory = temporaryDirectory();
    cleanups.push(directory.remove);
    const filename = `${directory.path}/ledger.db`;
    openSqliteDatabase(filename).close();
    const searcher = startWorker(worker, ['search-loop', filename]);
    const appenders = ['0', '1'].map((writer) =>
      startWorker(worker, ['append-words', filename, String(PER_WRITER), writer]),
    );
    for (const appender of appenders) {
      const result = await appender.exited;
      expect(result.code, result.stderr).toBe(0);
    }
    writeFileSync(`${filename}.stop`, '');
    const searched = await searcher.exited;
    expect(searched.code, searched.stderr).toBe(0);
    const [, searches, found] = (searcher.lines.at(-1) ?? '').split(' ');
    // The searcher really searched (and indexed) while the appenders ran.
    expect(Number(searches)).toBeGreaterThan(1);
    expect(Number(found)).toBe(1);

    const store = createSqliteStore({ filename });
    try {
      const database = store.database;
      const mark = database
        .prepare("SELECT value FROM episodic_search_state WHERE name = 'indexed_through'")
        .pluck()
        .get() as number;
      expect(mark).toBeGreaterThan(0);
      const missing = database
        .prepare(
          'SELECT count(*) FROM episodic_events WHERE id <= ? AND id NOT IN (SELECT rowid FROM episodic_search)',
        )
        .pluck()
        .get(mark);
      expect(missing).toBe(0);
      const beyond = database
        .prepare('SELECT count(*) FROM episodic_search WHERE rowid > ?')
        .pluck()
        .get(mark);
      expect(beyond).toBe(0);
      // The rest is indexed by the next search: every event is found by its own word.
      for (const writer of ['0', '1']) {
        for (const index of [0, 1, PER_WRITER - 2, PER_WRITER - 1]) {
          const page = await store.ledger.search({ scope: 'search', text: `w${writer}x${index}` });
          expect(page.hits.length, `w${writer}x${index}`).toBe(1);
        }
      }
      const total = database.prepare('SELECT count(*) FROM episodic_search').pluck().get();
      expect(total).toBe(2 * PER_WRITER);
      expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(
        database
          .prepare("INSERT INTO episodic_search(episodic_search) VALUES ('integrity-check')")
          .run().changes,
      ).toBeGreaterThanOrEqual(0);
    } finally {
      await store.close();
    }
  }, 600_000);
});
