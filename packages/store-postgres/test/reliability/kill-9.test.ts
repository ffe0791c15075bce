// Guarantee: a ledger writer killed with SIGKILL in the middle of multi-row transactions leaves 0
// partial transactions and 0 lost acknowledged transactions; positions stay gapless and the
// session head matches the last position.
// Source: QUALITY.md (reliability table, "ledger killed 150× mid-transaction").
import { describe, expect, it } from 'vitest';
import { withClient } from '../postgres-test-schema.js';
import { FULL, useWorkers } from './worker-setup.js';

const KILLS = FULL ? 150 : 20;
const BATCH = 20;
const workers = useWorkers('killed');

describe('ledger writer killed mid-transaction', () => {
  it(`survives ${KILLS} kills: no partial batch, no lost acknowledged batch, gapless positions`, async () => {
    const acknowledged: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const prefix = `k${kill}`;
      const child = workers.worker('kill', [String(BATCH), prefix]);
      await child.waitFor((line) => line.startsWith('ack '));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 60)));
      child.child.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');
      for (const line of child.lines)
        if (line.startsWith('ack ')) acknowledged.push(`${prefix}-b${line.slice(4)}`);
    }
    await withClient(workers.url(), async (client) => {
      const events = `"${workers.schema}".episodic_events`;
      const ids = (await client.query(`SELECT event_id FROM ${events}`)).rows.map(
        (row) => row.event_id as string,
      );
      const sizes = new Map<string, number>();
      for (const id of ids) {
        const batch = id.slice(0, id.lastIndexOf('-'));
        sizes.set(batch, (sizes.get(batch) ?? 0) + 1);
      }
      for (const [batch, size] of sizes) expect(size, batch).toBe(BATCH);
      for (const batch of acknowledged) expect(sizes.has(batch), batch).toBe(true);
      const positions = (
        await client.query(`SELECT position::integer AS position FROM ${events} ORDER BY position`)
      ).rows.map((row) => row.position as number);
      expect(positions.every((position, index) => position === index + 1)).toBe(true);
      const head = await client.query(
        `SELECT position::integer AS position FROM "${workers.schema}".episodic_session_heads WHERE session_id = 'killed'`,
      );
      expect(head.rows[0]?.position).toBe(positions.length);
    });
    console.log(
      `[figures] postgres kill -9: ${KILLS} kills, ${acknowledged.length} acknowledged batches, 0 lost, 0 partial`,
    );
  }, 600_000);
});
