import { afterEach, describe, expect, it } from 'vitest';
import { appendScopedEvents } from '../../../test-support/inspection-steps.js';
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

describe('a PostgreSQL store inspects its own tables', () => {
  it('summarizes scopes, counts events, lists sessions and reads a ledger row by id', async () => {
    const store = await openStore();
    expect(await listPostgresScopeSummaries(store)).toEqual([]);
    expect(await checkPostgresTables(store)).toEqual({ events: 0, sessionIds: [] });
    const summaries = await appendScopedEvents(store.ledger);
    expect(await listPostgresScopeSummaries(store)).toEqual(summaries);
    expect((await checkPostgresTables(store)).events).toBe(3);
    expect(await readPostgresLedgerEventRow(store, 'evt-1')).toEqual({
      scope: 'alpha',
      session_id: 's1',
      refs_json: null,
    });
    expect(await readPostgresLedgerEventRow(store, 'evt-none')).toBeUndefined();
  });
});
