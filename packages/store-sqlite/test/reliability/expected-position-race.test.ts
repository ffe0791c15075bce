// Guarantee: two processes appending with the same expected position: exactly one wins, the
// other gets CONFLICT, and no session ever holds two events at one position.
// Source: QUALITY.md (reliability table, "optimistic concurrency: 2 writers, same expected
// position, 1,000 races"), research/reliability.md §4 (EventStoreDB expected version), test T18.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { expectOneWinnerPerRace } from '../../../../test-support/ledger-race-check.js';
import { FULL } from '../../../../test-support/worker-process.js';
import { openSqliteDatabase } from '../../src/open-database.js';
import { useWorker } from './build-worker.js';

const RACES = FULL ? 1000 : 200;
const workers = useWorker();

describe('expected-position race between two processes', () => {
  it(`${RACES} races: exactly one winner and one CONFLICT each`, async () => {
    const filename = `${workers.directory}/race.db`;
    const goFile = `${workers.directory}/go`;
    openSqliteDatabase(filename).close();
    const racers = [0, 1].map(() => workers.start(['race', filename, String(RACES), goFile]));
    await expectOneWinnerPerRace(racers, goFile, RACES);
    const database = new Database(filename, { readonly: true });
    try {
      const counts = database
        .prepare(
          "SELECT count(*) AS n, max(position) AS top FROM episodic_events WHERE session_id LIKE 'race-%' GROUP BY session_id",
        )
        .all() as Array<{ n: number; top: number }>;
      expect(counts).toHaveLength(RACES);
      expect(counts.every((row) => row.n === 1 && row.top === 1)).toBe(true);
    } finally {
      database.close();
    }
  }, 600_000);
});
