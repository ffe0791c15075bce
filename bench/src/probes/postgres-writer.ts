// A writer process for the `postgres.writers` row: it opens the PostgreSQL store with a pool of its
// own (as one machine would), waits for "go" on stdin, appends `count` events one at a time to its
// own ledger session, and prints one JSON line { appended, ms } when done.
import { createPostgresStore } from '@episodic/store-postgres';
import { ledgerEventAt } from '../data/ledger-events.js';

const [url = '', schema = '', writer = '0', count = '1000'] = process.argv.slice(2);
const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
const total = Number(count);
const events = Array.from({ length: total }, (_, index) => ({
  ...ledgerEventAt(index * 8 + Number(writer) + 1, 1_000_000),
  session_id: `writer-${writer}-${process.pid}`,
}));
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const start = performance.now();
for (const event of events) await store.ledger.append(event);
const ms = performance.now() - start;
process.stdout.write(`${JSON.stringify({ appended: total, ms })}\n`);
await store.close();
