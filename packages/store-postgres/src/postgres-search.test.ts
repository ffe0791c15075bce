// Search on PostgreSQL beyond the conformance suite: core's tsquery and tsvector renderings
// against the real server (no text is a syntax error, every text finds itself), a schema from
// before search upgraded with its events indexed, rows written by other tools (imported: indexed;
// inserted raw: found after rebuildSearchIndex), and the GIN index in the search's plan.
import { parseSearchText, renderTsQuery, renderTsVector } from '@episodic/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import {
  dropSchema,
  testPostgresUrl,
  uniqueSchema,
  withClient,
} from '../test/postgres-test-schema.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { tablesOf } from './postgres-database.js';
import { buildSearchQuery } from './postgres-ledger.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';
import { RANKED_MATCHES } from './search-sql.js';

const opened: Array<{ store: PostgresStore; schema: string }> = [];
afterEach(async () => {
  for (const { store, schema } of opened.splice(0)) {
    await store.close();
    await dropSchema(testPostgresUrl(), schema);
  }
});

async function open(schema = uniqueSchema('search')) {
  const store = await createPostgresStore({ connectionString: testPostgresUrl(), schema });
  opened.push({ store, schema });
  return store;
}

/** A seeded generator of hostile text: operators of FTS5 and tsquery, quotes, marks, scripts. */
function hostileTexts(count: number, seed: number): string[] {
  const units = [
    ...'"\'*^:()-+{}[],.;\\/|&!<>~@#$%_ \t\nNEARANDORNOTnearandornot abcxyz09ÉéüßΣσ東京🎉\u0301\u200b\uE000',
    ' NEAR(',
    ' AND ',
    ' OR ',
    ' NOT ',
    'col:',
    '<->',
    '<2>',
    ':*',
    '!!',
    'İ',
    '٣',
  ];
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * 40);
    let text = '';
    for (let index = 0; index < length; index++)
      text += units[Math.floor(next() * units.length)] as string;
    return text;
  });
}

describe('PostgreSQL search', () => {
  it('core renders no text into a tsquery or tsvector the server refuses, and every text finds itself', async () => {
    const texts = hostileTexts(3000, 32);
    const queries: string[] = [];
    const vectors: string[] = [];
    for (const text of texts) {
      let match: ReturnType<typeof parseSearchText>;
      try {
        match = parseSearchText(text);
      } catch {
        continue; // no word, or too many: refused as input before any engine
      }
      queries.push(renderTsQuery(match));
      vectors.push(renderTsVector(text));
    }
    expect(queries.length).toBeGreaterThan(1000);
    const rows = await withClient(testPostgresUrl(), async (client) => {
      // tsvector input sorts lexemes and merges positions: parsed, never re-tokenized.
      const result = await client.query<{ found: boolean; lexemes: number }>(
        `SELECT v::tsvector @@ q::tsquery AS found, length(v::tsvector) AS lexemes
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(q, v, n) ORDER BY n`,
        [queries, vectors],
      );
      return result.rows;
    });
    expect(rows.map((row) => row.found).every(Boolean)).toBe(true);
    // The server holds exactly core's tokens: as many lexemes as distinct tokens.
    rows.forEach((row, index) => {
      expect(row.lexemes).toBe(
        vectors[index] === '' ? 0 : (vectors[index] as string).split(/ (?=')/).length,
      );
    });
  });

  it('a schema from before search is upgraded with every stored event indexed (in batches)', async () => {
    const url = testPostgresUrl();
    const schema = uniqueSchema('search_upgrade');
    const tables = tablesOf(schema);
    await withClient(url, async (client) => {
      await client.query('BEGIN');
      await client.query(`CREATE SCHEMA ${tables.schema}`);
      await client.query(
        `CREATE TABLE ${tables.migrations} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      );
      for (const migration of MIGRATIONS.filter((step) => step.version <= 5)) {
        await client.query(migration.sql(tables));
        await migration.after?.(client, tables);
        await client.query(
          `INSERT INTO ${tables.migrations} (version, description) VALUES ($1, $2)`,
          [migration.version, migration.description],
        );
      }
      // 2,500 events as version 5 stored them (more than two backfill batches), one whose
      // payload another tool wrote as text that is not JSON.
      await client.query(
        `INSERT INTO ${tables.events} (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position)
         SELECT 'old-' || n, 1700000000000 + n, 'p', 's', 'a', 'tool.call', 'routine ' || n,
           CASE WHEN n = 2222 THEN 'not json: Zürich' ELSE '{"note":"payload word ' || n || '"}' END,
           CASE WHEN n = 7 THEN '{"ref":"ticket-77"}' ELSE NULL END, 0, '1', '2026-01-01T00:00:00.000Z', NULL, n
         FROM generate_series(1, 2500) AS n`,
      );
      await client.query('COMMIT');
    });
    const store = await open(schema);
    const version = await store.pool.query(`SELECT max(version) AS v FROM ${tables.migrations}`);
    expect(version.rows[0].v).toBe(SCHEMA_VERSION);
    const unindexed = await store.pool.query(
      `SELECT count(*)::int AS n FROM ${tables.events} WHERE search_vector IS NULL`,
    );
    expect(unindexed.rows[0].n).toBe(0);
    const find = async (text: string) =>
      (await store.ledger.search({ scope: 'p', text, limit: 100 })).hits.map((hit) => hit.event_id);
    expect(await find('"payload word 2499"')).toEqual(['old-2499']);
    expect(await find('ticket-77')).toEqual(['old-7']);
    expect(await find('zurich')).toEqual(['old-2222']);
    expect(await find('"routine 1"')).toEqual(['old-1']);
    const index = await store.pool.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'idx_episodic_events_search'`,
      [schema],
    );
    expect(index.rows[0]?.indexdef).toMatch(/USING gin \(search_vector\)/);
  }, 120_000);

  it('imported rows are indexed; rows another tool inserts are found after rebuildSearchIndex', async () => {
    const store = await open();
    const tables = tablesOf(store.schema);
    await store.importLedgerRows([
      {
        event_id: 'imported-1',
        ts_ms: 1,
        scope: 'p',
        session_id: 's',
        agent_id: 'a',
        type: 'tool.call',
        summary: 'imported walrus',
        payload_json: '{"x":"tusk"}',
        refs_json: null,
        redacted: false,
        schema_version: '1',
        created_at: '2026-01-01T00:00:00.000Z',
        metadata_json: null,
        position: 1,
        sequence: 1,
      },
    ]);
    expect(
      (await store.ledger.search({ scope: 'p', text: 'tusk' })).hits.map((hit) => hit.event_id),
    ).toEqual(['imported-1']);
    await store.pool.query(
      `INSERT INTO ${tables.events} (event_id, ts_ms, scope, session_id, agent_id, type, summary, redacted, schema_version, created_at, position)
       VALUES ('raw-1', 2, 'p', 's', 'a', 'tool.call', 'raw walrus', 0, '1', '2026-01-01T00:00:00.000Z', 2)`,
    );
    const walrus = async () =>
      (await store.ledger.search({ scope: 'p', text: 'walrus' })).hits.map((hit) => hit.event_id);
    expect(await walrus()).toEqual(['imported-1']);
    expect(await store.rebuildSearchIndex()).toBe(2);
    expect((await walrus()).sort()).toEqual(['imported-1', 'raw-1']);
  });

  it("the search's plan reads the GIN index, with the scope and filters in the same query", async () => {
    const store = await open();
    const tables = tablesOf(store.schema);
    await store.ledger.appendBatch(
      Array.from({ length: 300 }, (_, index) => ({
        event_id: `e${index}`,
        scope: 'p',
        session_id: 's',
        agent_id: 'a',
        type: 'tool.call' as const,
        summary: index % 100 === 0 ? 'rare marmot' : `routine ${index}`,
        ts_ms: 1 + index,
      })),
    );
    const { text, values } = buildSearchQuery(tables, {
      scope: 'p',
      agentId: 'a',
      types: ['tool.call'],
      fromTsMs: 1,
      match: parseSearchText('marmot'),
      limit: 20,
    });
    const plan = await withClient(testPostgresUrl(), async (client) => {
      await client.query(`ANALYZE ${tables.events}`);
      await client.query('SET enable_seqscan = off');
      return (await client.query(`EXPLAIN ${text}`, values)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    });
    expect(plan).toMatch(/idx_episodic_events_search/);
    expect(plan).toMatch(/scope = /);
    const { rows } = await store.pool.query(text, values);
    expect(rows.map((row) => row.event_id)).toEqual(['e0', 'e100', 'e200']);
  });

  it('ranks the newest matches inside the scope and filters only (the cap)', async () => {
    const store = await open();
    const tables = tablesOf(store.schema);
    const event = (summary: string, index: number) => ({
      event_id: `e${index}`,
      scope: 'p',
      session_id: 's',
      agent_id: 'a',
      type: 'conversation.user' as const,
      summary,
      ts_ms: 1 + index,
    });
    // Older rows match better (the word thrice in a short text), newer ones worse.
    await store.ledger.appendBatch([
      ...Array.from({ length: 6 }, (_, index) => event('owl owl owl', index)),
      ...Array.from({ length: 6 }, (_, index) =>
        event(`owl ${'word '.repeat(index + 3)}`, 6 + index),
      ),
      { ...event('owl owl owl', 12), session_id: 'other' },
      { ...event('owl owl owl', 13), scope: 'q' },
    ]);
    const ids = async (plan: { sessionId?: string }, ranked: number) => {
      const { text, values } = buildSearchQuery(
        tables,
        { scope: 'p', match: parseSearchText('owl'), limit: 20, ...plan },
        ranked,
      );
      return (await store.pool.query(text, values)).rows.map((row) => row.event_id);
    };
    expect(RANKED_MATCHES).toBe(10_000);
    expect((await ids({ sessionId: 's' }, 100)).slice(0, 6).sort()).toEqual([
      'e0',
      'e1',
      'e2',
      'e3',
      'e4',
      'e5',
    ]);
    expect(await ids({ sessionId: 's' }, 3)).toEqual(['e9', 'e10', 'e11']);
    expect(await ids({}, 3)).toEqual(['e12', 'e10', 'e11']);
    const hits = (await store.ledger.search({ scope: 'p', text: 'owl', limit: 3 })).hits;
    expect(hits.map((hit) => hit.event_id)).toEqual(['e0', 'e1', 'e2']);
  });
});
