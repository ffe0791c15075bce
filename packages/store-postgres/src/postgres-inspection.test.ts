import { afterEach, describe, expect, it } from 'vitest';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../test/postgres-test-schema.js';
import {
  checkPostgresTables,
  listPostgresScopeSummaries,
  readPostgresLedgerEventRow,
} from './postgres-inspection.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openStore(): Promise<PostgresStore> {
  const url = testPostgresUrl();
  const schema = uniqueSchema('inspect');
  const store = await createPostgresStore({ connectionString: url, schema });
  cleanups.push(() => dropSchema(url, schema));
  cleanups.push(() => store.close());
  return store;
}

const event = (scope: string, session: string, tsMs: number, eventId?: string) => ({
  scope,
  session_id: session,
  agent_id: 'planner',
  type: 'ops.decision' as const,
  summary: `decided at ${tsMs}`,
  ts_ms: tsMs,
  ...(eventId === undefined ? {} : { event_id: eventId }),
});

describe('a PostgreSQL store inspects its own tables', () => {
  it('summarizes scopes, counts events, lists sessions and reads a ledger row by id', async () => {
    const store = await openStore();
    expect(await listPostgresScopeSummaries(store)).toEqual([]);
    expect(await checkPostgresTables(store)).toEqual({ events: 0, sessionIds: [] });
    await store.ledger.append(event('zeta', 's1', 3_000));
    await store.ledger.append(event('alpha', 's1', 2_000, 'evt-1'));
    await store.ledger.append(event('alpha', 's2', 1_000));
    expect(await listPostgresScopeSummaries(store)).toEqual([
      { scope: 'alpha', events: 2, sessions: 2, first_ts_ms: 1_000, last_ts_ms: 2_000 },
      { scope: 'zeta', events: 1, sessions: 1, first_ts_ms: 3_000, last_ts_ms: 3_000 },
    ]);
    expect((await checkPostgresTables(store)).events).toBe(3);
    expect(await readPostgresLedgerEventRow(store, 'evt-1')).toEqual({
      scope: 'alpha',
      session_id: 's1',
      refs_json: null,
    });
    expect(await readPostgresLedgerEventRow(store, 'evt-none')).toBeUndefined();
  });
});
