// Guarantee: a writer killed between its commit and its acknowledgement can be retried with the
// same event id: one row, and the retry returns the original event.
// Source: QUALITY.md (reliability table, "idempotent append: retry with the same event id").
import { describe, expect, it } from 'vitest';
import { retriedEvent } from '../../../../test-support/ledger-worker-steps.js';
import { createPostgresStore } from '../../src/postgres-store.js';
import { withClient } from '../postgres-test-schema.js';
import { FULL, useWorkers } from './worker-setup.js';

const RETRIES = FULL ? 50 : 10;
const workers = useWorkers('retry');

describe('idempotent retry after a crash between commit and acknowledgement', () => {
  it(`${RETRIES} crashed appends, each retried: 1 row per event id, the retry returns the original`, async () => {
    const store = await createPostgresStore({
      connectionString: workers.url(),
      schema: workers.schema,
    });
    try {
      for (let attempt = 0; attempt < RETRIES; attempt++) {
        const eventId = `retry-${attempt}`;
        const child = workers.worker('crash', [eventId]);
        const committed = await child.waitFor((line) => line.startsWith('committed '));
        expect((await child.exited).signal).toBe('SIGKILL');
        const retry = await store.ledger.append(retriedEvent(eventId, child.child.pid));
        expect(retry.duplicate).toBe(true);
        expect(retry.event.created_at).toBe(committed.slice('committed '.length));
        const count = await withClient(
          workers.url(),
          async (client) =>
            (
              await client.query(
                `SELECT count(*)::integer AS n FROM "${workers.schema}".episodic_events WHERE event_id = $1`,
                [eventId],
              )
            ).rows[0]?.n,
        );
        expect(count).toBe(1);
      }
    } finally {
      await store.close();
    }
  }, 300_000);
});
