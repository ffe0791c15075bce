// Run search on PostgreSQL beyond the conformance suite: what the index columns hold after a
// redaction and a deletion, lines another tool inserts (found after rebuildRunSearchIndex), a
// schema from before run search upgraded with its lines indexed in batches (and a backfill that
// stopped midway finished by the next open), the cap, and the GIN index in the search's plan.
import { type RunRecord, redactRun } from '@episodic/core';
import { parseSearchText } from '@episodic/core/adapter';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../../test-support/worker-process.js';
import {
  dropSchema,
  testPostgresUrl,
  uniqueSchema,
  withClient,
} from '../test/postgres-test-schema.js';
import { buildWorker } from '../test/reliability/build-worker.js';
import { connectionsGone } from '../test/reliability/worker-setup.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { tablesOf } from './postgres-database.js';
import { buildRunSearchQuery } from './postgres-run-search.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';

const opened: Array<{ store: PostgresStore; schema: string }> = [];
afterEach(async () => {
  for (const { store, schema } of opened.splice(0)) {
    await store.close();
    await dropSchema(testPostgresUrl(), schema);
  }
});

async function open(schema = uniqueSchema('run_search')) {
  const store = await createPostgresStore({ connectionString: testPostgresUrl(), schema });
  opened.push({ store, schema });
  return store;
}

const runIdFor = (index: number) =>
  `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
const TS = '2026-02-03T12:00:00.000Z';

const header = (runId: string, extra: Record<string, unknown> = {}): RunRecord =>
  ({
    type: 'header',
    schema_version: 1,
    run_id: runId,
    started_at: TS,
    ...extra,
  }) as RunRecord;

const said = (runId: string, text: string, ts = TS): RunRecord => ({
  type: 'agent.event',
  run_id: runId,
  ts,
  seq: 1,
  event: { type: 'final', text },
});

const runsFound = async (store: PostgresStore, text: string) =>
  (await store.runs.search({ text, limit: 100 })).hits.map(
    (hit) => `${hit.run_id.slice(-2)}#${hit.position}`,
  );

/** The text of every vector stored for `runId`'s lines, in position order. */
const vectorsOf = async (store: PostgresStore, runId: string) =>
  (
    await store.pool.query<{ v: string | null }>(
      `SELECT search_vector::text AS v FROM ${tablesOf(store.schema).runRecords} WHERE run_id = $1 ORDER BY seq`,
      [runId],
    )
  ).rows.map((row) => row.v);

/**
 * A schema as migration 6 left it, holding `runs` runs of a header and `perRun` lines each (no
 * search columns yet); run `index` is `runIdFor(10 + index)` with scope `s<index>`.
 */
async function schemaAtMigration6(url: string, schema: string, runs: number, perRun: number) {
  const tables = tablesOf(schema);
  await withClient(url, async (client) => {
    await client.query('BEGIN');
    await client.query(`CREATE SCHEMA ${tables.schema}`);
    await client.query(
      `CREATE TABLE ${tables.migrations} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    for (const migration of MIGRATIONS.filter((step) => step.version <= 6)) {
      await client.query(migration.sql(tables));
      await migration.after?.(client, tables);
      await client.query(
        `INSERT INTO ${tables.migrations} (version, description) VALUES ($1, $2)`,
        [migration.version, migration.description],
      );
    }
    for (let index = 0; index < runs; index++) {
      const runId = runIdFor(10 + index);
      const headerLine = JSON.stringify(header(runId, { scope: `s${index}` }));
      await client.query(
        `INSERT INTO ${tables.runs} (run_id, header_json, session_id, record_count) VALUES ($1, $2, NULL, $3)`,
        [runId, Buffer.from(headerLine), perRun + 1],
      );
      const lines = [
        headerLine,
        ...Array.from({ length: perRun }, (_, line) =>
          JSON.stringify(said(runId, `line ${line} of run ${index} puffin`)),
        ),
      ];
      await client.query(
        `INSERT INTO ${tables.runRecords} (run_id, seq, json) SELECT $1, n, l FROM unnest($2::bytea[]) WITH ORDINALITY AS t(l, n)`,
        [runId, lines.map((line) => Buffer.from(line))],
      );
    }
    await client.query('COMMIT');
  });
}

describe('PostgreSQL run search', () => {
  it('a redaction rewrites the line’s vector in the same UPDATE: the secret’s word leaves the column', async () => {
    const store = await open();
    const runId = runIdFor(1);
    const secret = 'AKIAQ7Z3KRW2M4N6PXR5';
    await store.runs.append(runId, [
      header(runId),
      said(runId, `deploy with ${secret} tonight`),
      said(runId, 'nothing secret here'),
    ]);
    const word = secret.toLowerCase();
    // The test can fail: the folded word is in the vector before the redaction.
    expect((await vectorsOf(store, runId)).join(' ')).toContain(`'${word}'`);
    expect(await runsFound(store, secret)).toEqual(['01#2']);
    expect((await redactRun(store, runId)).changedLines).toBe(1);
    const after = await vectorsOf(store, runId);
    expect(after.join(' ')).not.toContain(word);
    expect(after[1]).toContain("'redacted'");
    expect(after[1]).toContain("'tonight'");
    expect(await runsFound(store, secret)).toEqual([]);
    expect(await runsFound(store, 'tonight')).toEqual(['01#2']);
    // No row of the records table holds it in any column (the vector's text included).
    const rows = await store.pool.query<{ row: string }>(
      `SELECT t::text AS row FROM ${tablesOf(store.schema).runRecords} t`,
    );
    expect(rows.rows.filter((row) => row.row.toLowerCase().includes(word))).toEqual([]);
  });

  it('a deleted run takes its lines’ vectors with them; other runs stay found', async () => {
    const store = await open();
    const [gone, kept] = [runIdFor(2), runIdFor(3)];
    await store.runs.append(gone, [header(gone), said(gone, 'the walrus sings')]);
    await store.runs.append(kept, [header(kept), said(kept, 'the walrus sleeps')]);
    expect((await runsFound(store, 'walrus')).sort()).toEqual(['02#2', '03#2']);
    expect(await store.runs.delete(gone)).toBe(true);
    expect(await runsFound(store, 'walrus')).toEqual(['03#2']);
    expect(await vectorsOf(store, gone)).toEqual([]);
    const matching = await store.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${tablesOf(store.schema).runRecords} WHERE search_vector @@ 'walrus'::tsquery`,
    );
    expect(matching.rows[0]?.n).toBe(1);
  });

  it('lines another tool inserts are found after rebuildRunSearchIndex, with their run’s scope', async () => {
    const store = await open();
    const tables = tablesOf(store.schema);
    const runId = runIdFor(4);
    await store.runs.append(runId, [header(runId, { scope: 'team' }), said(runId, 'first otter')]);
    // A raw run: a row per line, no search columns, no scope (as a copy by another tool).
    const raw = runIdFor(5);
    const lines = [
      JSON.stringify(header(raw, { scope: 'team' })),
      JSON.stringify(said(raw, 'raw otter')),
      // A type no text column takes: the rebuild still indexes the line (type '').
      JSON.stringify({ type: 'x.a\u0000b', run_id: raw, ts: TS, text: 'nul otter' }),
    ];
    await store.pool.query(
      `INSERT INTO ${tables.runs} (run_id, header_json, session_id, record_count) VALUES ($1, $2, NULL, 3)`,
      [raw, Buffer.from(lines[0] as string)],
    );
    await store.pool.query(
      `INSERT INTO ${tables.runRecords} (run_id, seq, json) SELECT $1, n, l FROM unnest($2::bytea[]) WITH ORDINALITY AS t(l, n)`,
      [raw, lines.map((line) => Buffer.from(line))],
    );
    const otters = async () => [
      ...new Set(
        (await store.runs.search({ text: 'otter', scope: 'team' })).hits.map((hit) => hit.run_id),
      ),
    ];
    expect(await otters()).toEqual([runId]);
    expect(await store.rebuildRunSearchIndex()).toBe(5);
    expect((await otters()).sort()).toEqual([runId, raw].sort());
    const hit = (await store.runs.search({ text: 'raw otter' })).hits[0];
    expect(hit).toMatchObject({ run_id: raw, position: 2, type: 'agent.event', ts: TS });
    expect(hit?.snippet).toBe('«raw» «otter»');
    expect((await store.runs.search({ text: 'nul otter' })).hits).toEqual([
      expect.objectContaining({ run_id: raw, position: 3, type: '', snippet: '«nul» «otter»' }),
    ]);
  });

  it('a schema from before run search is upgraded with every stored line indexed, in batches; a backfill stopped midway is finished by the next open', async () => {
    const url = testPostgresUrl();
    const schema = uniqueSchema('run_search_upgrade');
    const tables = tablesOf(schema);
    const runs = 3;
    const perRun = 1000; // 3,000 lines and 3 headers: more than three backfill batches
    await schemaAtMigration6(url, schema, runs, perRun);
    const store = await open(schema);
    const version = await store.pool.query(`SELECT max(version) AS v FROM ${tables.migrations}`);
    expect(version.rows[0].v).toBe(SCHEMA_VERSION);
    const unindexed = async () =>
      (
        await store.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${tables.runRecords} WHERE search_vector IS NULL OR type IS NULL`,
        )
      ).rows[0]?.n;
    expect(await unindexed()).toBe(0);
    expect((await store.pool.query(`SELECT 1 FROM ${tables.runSearchBackfill}`)).rowCount).toBe(0);
    const found = async (text: string, scope?: string) =>
      (
        await store.runs.search({ text, limit: 100, ...(scope === undefined ? {} : { scope }) })
      ).hits.map((hit) => `${hit.run_id.slice(-2)}#${hit.position}`);
    expect(await found('"line 999 of run 2"')).toEqual(['0c#1001']);
    expect(await found('"line 0 of run 1"', 's1')).toEqual(['0b#2']);
    expect(await found('"line 0 of run 1"', 's0')).toEqual([]);

    // A backfill that stopped after the first run: its key kept, the later lines unindexed.
    await store.pool.query(
      `UPDATE ${tables.runRecords} SET type = NULL, ts_ms = NULL, search_vector = NULL WHERE run_id > $1`,
      [runIdFor(10)],
    );
    await store.pool.query(
      `INSERT INTO ${tables.runSearchBackfill} (run_id, seq) VALUES ($1, $2)`,
      [runIdFor(10), perRun + 1],
    );
    expect(await found('"line 999 of run 2"')).toEqual([]);
    const reopened = await createPostgresStore({ connectionString: url, schema });
    await reopened.close();
    expect(await unindexed()).toBe(0);
    expect((await store.pool.query(`SELECT 1 FROM ${tables.runSearchBackfill}`)).rowCount).toBe(0);
    expect(await found('"line 999 of run 2"')).toEqual(['0c#1001']);
    const index = await store.pool.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'idx_episodic_run_records_search'`,
      [schema],
    );
    expect(index.rows[0]?.indexdef).toMatch(/USING gin \(search_vector\)/);
  }, 120_000);

  it('ranks the newest matches inside the filters only (the cap), and the plan reads the GIN index', async () => {
    const store = await open();
    const tables = tablesOf(store.schema);
    const runId = runIdFor(6);
    const at = (minute: number) => `2026-02-03T12:${String(minute).padStart(2, '0')}:00.000Z`;
    // Older lines match better (the word thrice in a short text), newer ones worse.
    await store.runs.append(runId, [
      header(runId),
      ...Array.from({ length: 4 }, (_, index) => said(runId, 'owl owl owl', at(index))),
      ...Array.from({ length: 4 }, (_, index) =>
        said(runId, `owl ${'word '.repeat(index + 3)}`, at(10 + index)),
      ),
    ]);
    // Other runs of routine lines, so the word is rare and its GIN lookup the cheap plan.
    for (let index = 0; index < 3; index++) {
      const filler = runIdFor(100 + index);
      await store.runs.append(filler, [
        header(filler),
        ...Array.from({ length: 100 }, (_, line) => said(filler, `routine ${line}`)),
      ]);
    }
    const positions = async (ranked: number, types?: string[]) => {
      const { text, values } = buildRunSearchQuery(
        tables,
        {
          match: parseSearchText('owl'),
          limit: 20,
          runId,
          ...(types === undefined ? {} : { types }),
        },
        ranked,
      );
      return (await store.pool.query(text, values)).rows.map((row) => Number(row.position));
    };
    expect((await positions(100)).slice(0, 4)).toEqual([2, 3, 4, 5]);
    // The newest three: positions 7 to 9, best (shortest) first.
    expect(await positions(3)).toEqual([7, 8, 9]);
    expect(await positions(3, ['run.end'])).toEqual([]);
    const { text, values } = buildRunSearchQuery(tables, {
      match: parseSearchText('owl'),
      limit: 20,
      scope: 'default',
      types: ['agent.event'],
      fromMs: 1,
    });
    const plan = await withClient(testPostgresUrl(), async (client) => {
      await client.query(`ANALYZE ${tables.runRecords}`);
      await client.query('SET enable_seqscan = off');
      return (await client.query(`EXPLAIN ${text}`, values)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    });
    expect(plan).toMatch(/idx_episodic_run_records_search/);
    expect(plan).toMatch(/scope = /);
  });

  describe('the backfill across processes', () => {
    let worker = '';
    beforeAll(async () => {
      worker = await buildWorker('postgres-worker');
    }, 300_000);

    it('a process killed (SIGKILL) midway through the backfill leaves its key; 3 processes opening at once finish it', async () => {
      const url = testPostgresUrl();
      const schema = uniqueSchema('run_search_kill');
      const tables = tablesOf(schema);
      opened.push({ store: { close: async () => undefined } as PostgresStore, schema });
      const runs = 20;
      const perRun = 1000; // 20,020 lines: 21 batches
      await schemaAtMigration6(url, schema, runs, perRun);
      const state = () =>
        withClient(url, async (client) => {
          const key = await client.query<{ run_id: string }>(
            `SELECT run_id FROM ${tables.runSearchBackfill}`,
          );
          const left = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM ${tables.runRecords} WHERE search_vector IS NULL`,
          );
          return { key: key.rows[0]?.run_id, left: left.rows[0]?.n ?? -1 };
        });
      const first = startWorker(worker, ['open', url, schema]);
      // Killed once the backfill committed a batch past the first run (the migration is done).
      let seen = await state().catch(() => ({ key: undefined, left: -1 }));
      for (let poll = 0; poll < 6000; poll++) {
        if (seen.key !== undefined && seen.key > runIdFor(10)) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen = await state().catch(() => ({ key: undefined, left: -1 }));
      }
      first.child.kill('SIGKILL');
      await first.exited;
      await connectionsGone(first);
      const stopped = await state();
      // The test can fail: it needs the kill to land before the last batch.
      expect(stopped.key).toBeDefined();
      expect(stopped.left).toBeGreaterThan(0);
      expect(stopped.left).toBeLessThan(runs * (perRun + 1) - 1000);
      const openers = [0, 1, 2].map(() => startWorker(worker, ['open', url, schema]));
      for (const exit of await Promise.all(openers.map((opener) => opener.exited))) {
        expect(exit.code, exit.stderr).toBe(0);
      }
      expect(await state()).toEqual({ key: undefined, left: 0 });
      const store = await open(schema);
      const last = runIdFor(10 + runs - 1);
      expect(
        (await store.runs.search({ text: `"line ${perRun - 1} of run ${runs - 1}"` })).hits.map(
          (hit) => [hit.run_id, hit.position],
        ),
      ).toEqual([[last, perRun + 1]]);
      expect(
        (await store.runs.search({ text: 'puffin', scope: 's0', limit: 1 })).hits[0]?.run_id,
      ).toBe(runIdFor(10));
    }, 300_000);
  });
});
