// Guarantee: two processes appending with the same expected position: exactly one wins, the other
// gets CONFLICT, and no session ever holds two events at one position.
// Source: QUALITY.md (reliability table, "optimistic concurrency: 2 writers, same expected
// position, 1,000 races"), the same row store-sqlite passes.
import { afterAll, describe, expect, it } from 'vitest';
import { expectOneWinnerPerRace } from '../../../../test-support/ledger-race-check.js';
import { temporaryDirectory } from '../../../../test-support/worker-process.js';
import { withClient } from '../postgres-test-schema.js';
import { FULL, useWorkers } from './worker-setup.js';

const RACES = FULL ? 1000 : 200;
const workers = useWorkers('race');
const directory = temporaryDirectory();
afterAll(() => directory.remove());

describe('expected-position race between two processes', () => {
  it(`${RACES} races: exactly one winner and one CONFLICT each`, async () => {
    const goFile = `${directory.path}/go`;
    const racers = [0, 1].map(() => workers.worker('race', [String(RACES), goFile]));
    await expectOneWinnerPerRace(racers, goFile, RACES);
    await withClient(workers.url(), async (client) => {
      const { rows } = await client.query(
        `SELECT count(*)::integer AS n, max(position)::integer AS top FROM "${workers.schema}".episodic_events WHERE session_id LIKE 'race-%' GROUP BY session_id`,
      );
      expect(rows).toHaveLength(RACES);
      expect(rows.every((row) => row.n === 1 && row.top === 1)).toBe(true);
    });
  }, 600_000);
});
