// Guarantee: a writer killed between its commit and its acknowledgement can be retried with the
// same event id: one row, and the retry returns the original event.
// Source: QUALITY.md (reliability table, "idempotent append: retry with the same event id"),
// research/reliability.md §4 (event-id dedupe in EventStoreDB/KurrentDB), test T19.
import { describe, expect, it } from 'vitest';
import { retriedEvent } from '../../../../test-support/ledger-worker-steps.js';
import { FULL } from '../../../../test-support/worker-process.js';
import { createSqliteStore } from '../../src/sqlite-store.js';
import { useWorker } from './build-worker.js';

const RETRIES = FULL ? 50 : 10;
const workers = useWorker();

describe('idempotent retry after a crash between commit and acknowledgement', () => {
  it(`${RETRIES} crashed appends, each retried: 1 row per event id, the retry returns the original`, async () => {
    const filename = `${workers.directory}/retry.db`;
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const eventId = `retry-${attempt}`;
      const child = workers.start(['crash', filename, eventId], { CRASH_AT: 'after-commit' });
      const committed = await child.waitFor((line) => line.startsWith('committed '));
      expect((await child.exited).signal).toBe('SIGKILL');

      const store = createSqliteStore({ filename });
      try {
        const original = committed.slice('committed '.length);
        const retry = await store.ledger.append(retriedEvent(eventId, child.child.pid));
        expect(retry.duplicate).toBe(true);
        expect(retry.event.created_at).toBe(original);
        expect(
          store.database
            .prepare('SELECT count(*) FROM episodic_events WHERE event_id = ?')
            .pluck()
            .get(eventId),
        ).toBe(1);
      } finally {
        await store.close();
      }
    }
  }, 300_000);
});
