import { EpisodicError } from '@episodic/core';
import { idPrefixRange } from '@episodic/core/adapter';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../../test-support/worker-process.js';
import {
  dropSchema,
  testPostgresUrl,
  uniqueSchema,
  withClient,
} from '../test/postgres-test-schema.js';
import { buildWorker } from '../test/reliability/build-worker.js';
import { describeConnection } from './connection-url.js';
import { SCHEMA_VERSION } from './migrations.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';
import { SEED_INDEXES } from './schema-sql.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openStore(
  options: { schema?: string; scrubAfterErase?: boolean } = {},
): Promise<PostgresStore> {
  const url = testPostgresUrl();
  const schema = options.schema ?? uniqueSchema('unit');
  const store = await createPostgresStore({ connectionString: url, ...options, schema });
  cleanups.push(() => dropSchema(url, schema));
  cleanups.push(() => store.close());
  return store;
}

async function failure(promise: Promise<unknown>): Promise<EpisodicError> {
  try {
    await promise;
  } catch (error) {
    expect(EpisodicError.isInstance(error)).toBe(true);
    return error as EpisodicError;
  }
  throw new Error('expected a failure');
}

describe('createPostgresStore options', () => {
  it('refuses bad options with VALIDATION_ERROR, never repeating a password', async () => {
    const secret = 'pa55-word-not-shown';
    const cases: Array<[unknown, RegExp]> = [
      [{}, /exactly one of connectionString/],
      [{ connectionString: 'mysql://u:p@h/db' }, /postgres:\/\//],
      [{ connectionString: `postgres://u:${secret}@/db` }, /does not parse/],
      [{ connectionString: 'postgres:///db' }, /names no host/],
      [{ connectionString: `postgres://u:${secret}@host/db`, schema: 'Bad-Name' }, /schema/],
      [{ connectionString: `postgres://u:${secret}@host/db`, poolSize: 0 }, /poolSize/],
      [{ connectionString: `postgres://u:${secret}@host/db`, typo: true }, /typo/],
      [
        { connectionString: `postgres://u:${secret}@host/db`, queryTimeoutMs: -1 },
        /queryTimeoutMs/,
      ],
      [
        { connectionString: `postgres://u:${secret}@host/db`, statementTimeoutMs: 1.5 },
        /statementTimeoutMs/,
      ],
      [{ connectionString: `postgres://u:${secret}@host/db`, keepAlive: 'yes' }, /keepAlive/],
      [
        { connectionString: `postgres://u:${secret}@host/db?query_timeout=soon` },
        /query_timeout="soon" must be a whole number of milliseconds/,
      ],
      [
        { connectionString: `postgres://u:${secret}@host/db?keepalives=2` },
        /keepalives="2" must be 1 \(on\) or 0 \(off\)/,
      ],
      [
        { connectionString: `postgres://u:${secret}@host/db?connect_timeout=-5` },
        /connect_timeout="-5" must be a whole number of seconds/,
      ],
    ];
    for (const [options, message] of cases) {
      const error = await failure(createPostgresStore(options as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toMatch(message);
      expect(JSON.stringify(error.toJSON())).not.toContain(secret);
    }
  });

  // Issue 29: without limits, a call to a frozen server never returned. The defaults bound every
  // call; the URL's parameters (what the CLI and the MCP server pass) and the options set them.
  it('bounds every call by default, and takes timeouts from the URL and, above it, the options', async () => {
    const shown = async (store: PostgresStore) =>
      (
        await store.pool.query<{ value: string }>('SELECT current_setting($1) AS value', [
          'statement_timeout',
        ])
      ).rows[0]?.value;
    const defaults = await openStore();
    expect(defaults.pool.options).toMatchObject({
      statement_timeout: 10_000,
      query_timeout: 15_000,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    expect(await shown(defaults)).toBe('10s');

    const url = new URL(testPostgresUrl());
    for (const [name, value] of Object.entries({
      statement_timeout: '2500',
      query_timeout: '4000',
      connect_timeout: '3',
      keepalives: '0',
      keepalives_idle: '30',
      application_name: 'kept',
    }))
      url.searchParams.set(name, value);
    const schema = uniqueSchema('unit');
    const fromUrl = await createPostgresStore({ connectionString: url.toString(), schema });
    cleanups.push(() => dropSchema(testPostgresUrl(), schema));
    cleanups.push(() => fromUrl.close());
    expect(fromUrl.pool.options).toMatchObject({
      statement_timeout: 2500,
      query_timeout: 4000,
      connectionTimeoutMillis: 3000,
      keepAlive: false,
      keepAliveInitialDelayMillis: 30_000,
    });
    // The store's parameters do not reach the driver; the others do.
    const passed = new URL(fromUrl.pool.options.connectionString as string);
    expect([...passed.searchParams.keys()]).toEqual(['application_name']);
    expect(await shown(fromUrl)).toBe('2500ms');

    const given = await createPostgresStore({
      connectionString: url.toString(),
      schema,
      statementTimeoutMs: 0,
      queryTimeoutMs: 20_000,
      keepAlive: true,
    });
    cleanups.push(() => given.close());
    expect(given.pool.options).toMatchObject({ query_timeout: 20_000, keepAlive: true });
    // 0: nothing sent, the server's own setting (here its default, 0: none) applies.
    expect(given.pool.options.statement_timeout).toBeUndefined();
    expect(await shown(given)).toBe('0');
  });

  it('describes a connection without its credentials', () => {
    expect(
      describeConnection(
        'postgres://alice:s3cret@db.internal:5432/episodic?sslmode=require&password=x',
      ),
    ).toBe('postgres://alice@db.internal:5432/episodic?sslmode=require');
    expect(describeConnection('postgresql://db/episodic')).toBe('postgresql://db/episodic');
    expect(describeConnection('not a url')).not.toContain('not a url');
  });

  it('reports an unreachable server as STORAGE_ERROR naming it without the password', async () => {
    const secret = 'unreachable-secret-9';
    const error = await failure(
      createPostgresStore({
        connectionString: `postgres://alice:${secret}@127.0.0.1:9/episodic`,
        connectionTimeoutMs: 2000,
      }),
    );
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.message).toContain('postgres://alice@127.0.0.1:9/episodic');
    expect(error.message).toMatch(/unreachable/);
    expect(JSON.stringify(error.toJSON())).not.toContain(secret);
    expect(error.message).not.toContain(secret);
  });
});

describe('migrations', () => {
  let worker = '';
  beforeAll(async () => {
    worker = await buildWorker('postgres-worker');
  }, 300_000);

  it('migrates a new schema once when 4 processes open it at the same moment', async () => {
    const url = testPostgresUrl();
    const schema = uniqueSchema('migrate');
    cleanups.push(() => dropSchema(url, schema));
    const openers = [0, 1, 2, 3].map(() => startWorker(worker, ['open', url, schema]));
    for (const exit of await Promise.all(openers.map((opener) => opener.exited))) {
      expect(exit.code, exit.stderr).toBe(0);
    }
    const versions = await withClient(url, async (client) =>
      (
        await client.query(
          `SELECT version FROM "${schema}".episodic_schema_migrations ORDER BY version`,
        )
      ).rows.map((row) => row.version),
    );
    expect(versions).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1));
  }, 300_000);

  it('opens a current schema again without changing it, and refuses a newer one', async () => {
    const store = await openStore();
    await store.ledger.append({
      scope: 's',
      session_id: 'a',
      agent_id: 'x',
      type: 'ops.decision',
      summary: 'kept',
    });
    const again = await createPostgresStore({
      connectionString: testPostgresUrl(),
      schema: store.schema,
    });
    expect((await again.ledger.query({ scope: 's' })).events.map((event) => event.summary)).toEqual(
      ['kept'],
    );
    await again.close();
    await store.pool.query(
      `INSERT INTO "${store.schema}".episodic_schema_migrations (version, description) VALUES (99, 'from the future')`,
    );
    const error = await failure(
      createPostgresStore({ connectionString: testPostgresUrl(), schema: store.schema }),
    );
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain('99');
  });

  it('creates the seed table with its four indexes, and the search index (migration 6)', async () => {
    const store = await openStore();
    const indexes = (
      await store.pool.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'episodic_events' ORDER BY indexname`,
        [store.schema],
      )
    ).rows.map((row) => row.indexname);
    expect(indexes).toEqual(
      ['episodic_events_pkey', 'idx_episodic_events_search', ...SEED_INDEXES].sort(),
    );
  });
});

describe('the PostgreSQL ledger', () => {
  it('keeps schemas apart: one schema is one store', async () => {
    const one = await openStore();
    const two = await openStore();
    const event = {
      scope: 's',
      session_id: 'a',
      agent_id: 'x',
      type: 'ops.decision' as const,
      summary: 'here',
    };
    await one.ledger.append({ ...event, event_id: 'same-id' });
    await two.ledger.append({ ...event, event_id: 'same-id', summary: 'there' });
    expect((await one.ledger.query({ scope: 's' })).events.map((e) => e.summary)).toEqual(['here']);
    expect((await two.ledger.query({ scope: 's' })).events.map((e) => e.summary)).toEqual([
      'there',
    ]);
  });

  it('refuses a NUL character, which PostgreSQL text cannot hold, with VALIDATION_ERROR and stores nothing', async () => {
    const store = await openStore();
    const error = await failure(
      store.ledger.append({
        scope: 's',
        session_id: 'a',
        agent_id: 'x',
        type: 'ops.decision',
        summary: 'a\u0000b',
      }),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('NUL');
    expect((await store.ledger.query({ scope: 's' })).events).toEqual([]);
    // The session's head did not move either.
    const receipt = await store.ledger.append(
      { scope: 's', session_id: 'a', agent_id: 'x', type: 'ops.decision', summary: 'ok' },
      { expectedPosition: 0 },
    );
    expect(receipt.event.position).toBe(1);
  });

  it('reads big integers and Unicode back exactly', async () => {
    const store = await openStore();
    const payload = {
      big: 9007199254740991,
      text: 'héllo 😀 \u2028',
      nested: { a: [1, 2.5, -0.125] },
    };
    const receipt = await store.ledger.append({
      scope: 's',
      session_id: 'a',
      agent_id: 'x',
      type: 'ops.decision',
      summary: '🙂 summary',
      payload,
      ts_ms: 8_640_000_000_000_000,
    });
    const [event] = (await store.ledger.query({ scope: 's', includePayload: true })).events;
    expect(event?.payload).toEqual(payload);
    expect(event?.ts_ms).toBe(8_640_000_000_000_000);
    expect(event?.summary).toBe('🙂 summary');
    expect(event?.event_id).toBe(receipt.event.event_id);
  });

  it('reads each query shape through the seed indexes (EXPLAIN), never a scan of the table', async () => {
    const store = await openStore();
    const types = ['conversation.user', 'tool.call', 'tool.result', 'ops.decision'] as const;
    const events = Array.from({ length: 1000 }, (_, index) => ({
      scope: `scope-${index % 4}`,
      session_id: `session-${index % 50}`,
      agent_id: 'x',
      type: types[index % 4] as (typeof types)[number],
      summary: `event ${index}`,
      ts_ms: 1_700_000_000_000 + index,
    }));
    for (let start = 0; start < events.length; start += 500) {
      await store.ledger.appendBatch(events.slice(start, start + 500), { allow: ['tool_output'] });
    }
    await store.pool.query(`ANALYZE "${store.schema}".episodic_events`);
    const { buildLedgerQuery } = await import('./postgres-ledger.js');
    const { tablesOf } = await import('./postgres-database.js');
    const plan = async (query: Parameters<typeof buildLedgerQuery>[1]) => {
      const { text, values } = buildLedgerQuery(tablesOf(store.schema), query);
      const client = await store.pool.connect();
      try {
        await client.query('SET LOCAL enable_seqscan = off');
        const rows = (await client.query(`EXPLAIN ${text}`, values)).rows;
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        client.release();
      }
    };
    const base = { scope: 'scope-1', limit: 51, includePayload: false } as const;
    expect(await plan({ ...base, sessionId: 'session-1' })).toContain('idx_episodic_session_ts');
    expect(await plan(base)).toContain('idx_episodic_scope_ts');
    const multi = await plan({ ...base, types: ['tool.call', 'tool.result'] });
    expect(multi).toContain('idx_episodic_scope_type_ts');
    expect(multi).toContain('Merge Append');
    // Event ids by prefix: a range of the unique event id index, the scope only a filter on it.
    const { buildEventIdPrefixQuery } = await import('./postgres-ledger.js');
    const [some] = (await store.ledger.query({ scope: 'scope-1', limit: 1 })).events;
    const prefix = (some?.event_id ?? '').slice(0, -2);
    for (const scope of [null, 'scope-1']) {
      const { text, values } = buildEventIdPrefixQuery(
        tablesOf(store.schema),
        scope,
        idPrefixRange(prefix),
        101,
      );
      const explained = (await store.pool.query(`EXPLAIN ${text}`, values)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      expect(explained).toContain('uq_episodic_event_id');
      expect(explained).not.toContain('idx_episodic_scope_ts');
      expect(explained).not.toContain('Seq Scan');
    }
  });
});
