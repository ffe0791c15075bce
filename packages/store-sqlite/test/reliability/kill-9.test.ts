// Guarantee: a ledger writer killed with SIGKILL in the middle of multi-row transactions leaves
// integrity_check ok every time, 0 partial transactions and 0 lost acknowledged transactions.
// Source: QUALITY.md (reliability table, "ledger killed 150× mid-transaction"),
// research/reliability.md §0 finding 5, experiment E6, test T17.
import { describe, expect, it } from 'vitest';
import { FULL } from '../../../../test-support/worker-process.js';
import { createSqliteStore } from '../../src/sqlite-store.js';
import { useWorker } from './build-worker.js';

const KILLS = FULL ? 150 : 20;
const BATCH = 20;
const workers = useWorker();

describe('ledger writer killed mid-transaction', () => {
  it(`survives ${KILLS} kills: integrity ok, no partial batch, no lost acknowledged batch`, async () => {
    const filename = `${workers.directory}/killed.db`;
    const acknowledged: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const prefix = `k${kill}`;
      const child = workers.start(['kill', filename, String(BATCH), prefix]);
      await child.waitFor((line) => line.startsWith('ack '));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 60)));
      child.child.kill('SIGKILL');
      const { signal } = await child.exited;
      expect(signal).toBe('SIGKILL');
      for (const line of child.lines)
        if (line.startsWith('ack ')) acknowledged.push(`${prefix}-b${line.slice(4)}`);

      const store = createSqliteStore({ filename });
      try {
        expect(store.database.pragma('quick_check', { simple: true })).toBe('ok');
        const ids = store.database
          .prepare('SELECT event_id FROM episodic_events WHERE event_id LIKE ?')
          .pluck()
          .all(`${prefix}-b%`) as string[];
        const sizes = new Map<string, number>();
        for (const id of ids) {
          const batch = id.slice(0, id.lastIndexOf('-'));
          sizes.set(batch, (sizes.get(batch) ?? 0) + 1);
        }
        for (const [batch, size] of sizes) expect(size, batch).toBe(BATCH);
      } finally {
        await store.close();
      }
    }
    const store = createSqliteStore({ filename });
    try {
      expect(store.database.pragma('integrity_check', { simple: true })).toBe('ok');
      const present = new Set(
        store.database
          .prepare("SELECT event_id FROM episodic_events WHERE event_id LIKE '%-0'")
          .pluck()
          .all() as string[],
      );
      for (const batch of acknowledged) expect(present.has(`${batch}-0`), batch).toBe(true);
      const positions = store.database
        .prepare(
          "SELECT position FROM episodic_events WHERE session_id = 'killed' ORDER BY position",
        )
        .pluck()
        .all() as number[];
      expect(positions.every((position, index) => position === index + 1)).toBe(true);
      expect(positions.length % BATCH).toBe(0);
    } finally {
      await store.close();
    }
  }, 900_000);
});
