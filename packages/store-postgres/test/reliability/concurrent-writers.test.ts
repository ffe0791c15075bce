// Guarantee: 4 processes (each with its own pool, as 4 machines would) × 2,000 appends to one
// ledger session: 0 errors, session positions gapless and unique, each writer's order kept, and
// the session head equal to the last position.
// Source: QUALITY.md (reliability table, "ledger: 4 processes × 2,000 read-then-append
// transactions"), the same row store-sqlite passes.
import { describe, expect, it } from 'vitest';
import { withClient } from '../postgres-test-schema.js';
import { FULL, useWorkers } from './worker-setup.js';

const PER_WRITER = FULL ? 2000 : 300;
const workers = useWorkers('writers');

describe('ledger under concurrent writer processes', () => {
  it(`4 writers × ${PER_WRITER} appends to one session: 0 errors, gapless positions, order kept`, async () => {
    const writers = [0, 1, 2, 3].map((index) =>
      workers.worker('writers', [String(PER_WRITER), String(index)]),
    );
    const results = await Promise.all(writers.map((writer) => writer.exited));
    for (const [index, result] of results.entries()) {
      expect(result.code, result.stderr).toBe(0);
      expect(writers[index]?.lines.filter((line) => line.startsWith('error'))).toEqual([]);
      expect(writers[index]?.lines.at(-1)).toBe('done 0');
    }
    await withClient(workers.url(), async (client) => {
      const events = `"${workers.schema}".episodic_events`;
      const { rows } = await client.query(
        `SELECT position::integer AS position, event_id FROM ${events} WHERE session_id = 'shared' ORDER BY position`,
      );
      expect(rows).toHaveLength(4 * PER_WRITER);
      expect(rows.every((row, index) => row.position === index + 1)).toBe(true);
      const head = await client.query(
        `SELECT position::integer AS position FROM "${workers.schema}".episodic_session_heads WHERE session_id = 'shared'`,
      );
      expect(head.rows[0]?.position).toBe(4 * PER_WRITER);
      for (const writer of ['0', '1', '2', '3']) {
        const order = rows
          .filter((row) => row.event_id.startsWith(`w${writer}-`))
          .map((row) => row.event_id);
        expect(order).toEqual(
          Array.from({ length: PER_WRITER }, (_, index) => `w${writer}-${index}`),
        );
      }
    });
  }, 600_000);
});
