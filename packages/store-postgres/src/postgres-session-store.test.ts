// Sessions on PostgreSQL beyond the conformance suite: what a commit touches, loads racing folds,
// the fold policy option, seed 001 snapshots written by Codelia's code, and a schema from before
// sessions had deltas (version 1 snapshots, ids stored as given) upgraded in place.
import {
  createSession,
  EpisodicError,
  loadSession,
  type ModelCall,
  type SessionState,
} from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { codeliaSnapshots, expectCodeliaSessions } from '../../../test-support/codelia-sessions.js';
import {
  dropSchema,
  testPostgresUrl,
  uniqueSchema,
  withClient,
} from '../test/postgres-test-schema.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { tablesOf } from './postgres-database.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';

const SESSION_ID = '2b3c4d5e-6f70-4a81-9b2c-3d4e5f607182';

/** Answers every turn with one assistant message. */
const echo: ModelCall = async (request) => ({
  output: [{ type: 'message', role: 'assistant', content: `seen ${request.items.length} items` }],
});

const opened: Array<{ store: PostgresStore; schema: string }> = [];
afterEach(async () => {
  for (const { store, schema } of opened.splice(0)) {
    await store.close();
    await dropSchema(testPostgresUrl(), schema);
  }
});

async function open(options: Parameters<typeof createPostgresStore>[0] = {}) {
  const schema = options.schema ?? uniqueSchema('sessions');
  const store = await createPostgresStore({
    connectionString: testPostgresUrl(),
    schema,
    poolSize: 4,
    ...options,
  });
  opened.push({ store, schema });
  return store;
}

const count = async (store: PostgresStore, table: string) =>
  Number(
    (await store.pool.query(`SELECT count(*) AS n FROM "${store.schema}".${table}`)).rows[0].n,
  );

/** The user inputs of a loaded session, in log order. */
function userInputs(state: SessionState | null): unknown[] {
  return (state?.episodes ?? [])
    .filter((episode) => (episode as { meta: { source: string } }).meta.source === 'user')
    .map(
      (episode) => (episode as { payload: { item: { content: unknown } } }).payload.item.content,
    );
}

describe('session commits on PostgreSQL', () => {
  it('commits an existing session with ONE statement that writes only the delta and sizes rows', async () => {
    // Past the size up to which every commit folds (here: from the first commit on).
    const store = await open({ fold: { currentUpToBytes: 0 } });
    const session = createSession({ store: store.sessions, id: SESSION_ID });
    await session.runTurn('first', echo);
    const baseVersion = `SELECT xmin::text AS version FROM "${store.schema}".episodic_sessions`;
    const before = (await store.pool.query(baseVersion)).rows;
    // Watch what the next commit sends to the server (the store's own pool, the real server).
    const sent: Array<{ text: string; values: unknown[] }> = [];
    const query = store.pool.query.bind(store.pool);
    store.pool.query = ((config: { text: string; values: unknown[] }) => {
      sent.push(config);
      return query(config);
    }) as unknown as typeof store.pool.query;
    try {
      await session.runTurn('second', echo);
    } finally {
      store.pool.query = query;
    }
    expect(sent).toHaveLength(1);
    expect(await count(store, 'episodic_session_deltas')).toBe(1);
    const [commit] = sent as [{ text: string; values: unknown[] }];
    const plan = await store.pool.query(`EXPLAIN (FORMAT JSON) ${commit.text}`, commit.values);
    const relations = new Set<string>();
    const walk = (node: Record<string, unknown>) => {
      if (typeof node['Relation Name'] === 'string') relations.add(node['Relation Name']);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(plan.rows[0]['QUERY PLAN'][0].Plan);
    // The base row is read for its version (the base token), never written.
    expect([...relations].sort()).toEqual([
      'episodic_session_deltas',
      'episodic_session_sizes',
      'episodic_sessions',
    ]);
    expect((await store.pool.query(baseVersion)).rows).toEqual(before);
  });

  it('keeps last_user_message and the counts in list() from the deltas, reading no base', async () => {
    const store = await open({ fold: { currentUpToBytes: 0 } });
    const session = createSession({ store: store.sessions, id: SESSION_ID });
    await session.runTurn('what changed in the parser?', echo);
    await session.runTurn('and in the lexer?', echo);
    const [summary] = await store.sessions.list();
    expect(summary).toMatchObject({
      sessionId: SESSION_ID,
      revision: 2,
      baseRevision: 1,
      episodeCount: 4,
      messageCount: 4,
      lastUserMessage: 'and in the lexer?',
    });
  });

  it('folds by the fold policy given to the store, in one transaction', async () => {
    const store = await open({
      fold: { currentUpToBytes: 0, deltas: 3, minBytes: 0, share: 1000 },
    });
    const session = createSession({ store: store.sessions, id: SESSION_ID });
    for (let turn = 1; turn <= 3; turn++) await session.runTurn(`turn ${turn}`, echo);
    expect(await count(store, 'episodic_session_deltas')).toBe(2);
    await session.runTurn('turn 4', echo);
    // The third delta reached the policy: the base moved to revision 4 and the deltas are gone.
    expect(await count(store, 'episodic_session_deltas')).toBe(0);
    expect((await store.sessions.read(SESSION_ID))?.baseRevision).toBe(4);
    expect(userInputs(await store.sessions.load(SESSION_ID))).toEqual([
      'turn 1',
      'turn 2',
      'turn 3',
      'turn 4',
    ]);
  });

  it('refuses a bad fold policy with VALIDATION_ERROR naming the field, leaving no pool open', async () => {
    const schema = uniqueSchema('badfold');
    const error = await createPostgresStore({
      connectionString: testPostgresUrl(),
      schema,
      fold: { share: -1 },
    }).catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    expect((error as Error).message).toContain('fold.share');
    // Nothing was created either: the options are checked before the schema is.
    const exists = await withClient(testPostgresUrl(), (client) =>
      client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]),
    );
    expect(exists.rowCount).toBe(0);
  });

  it('never loads a mix while another process-like pool commits and folds (one snapshot per load)', async () => {
    const writer = await open({ fold: { currentUpToBytes: 0, deltas: 2, minBytes: 0 } });
    const reader = await open({ schema: writer.schema });
    opened.pop(); // one schema, dropped once
    const session = createSession({ store: writer.sessions, id: SESSION_ID });
    await session.runTurn('turn 1', echo);
    let writing = true;
    const turns = (async () => {
      for (let turn = 2; turn <= 40; turn++) await session.runTurn(`turn ${turn}`, echo);
      writing = false;
    })();
    let loads = 0;
    while (writing) {
      const state = await reader.sessions.load(SESSION_ID);
      const revision = state?.revision ?? 0;
      expect(userInputs(state)).toEqual(
        Array.from({ length: revision }, (_, index) => `turn ${index + 1}`),
      );
      loads++;
    }
    await turns;
    await reader.close();
    expect(loads).toBeGreaterThan(0);
    expect((await writer.sessions.load(SESSION_ID))?.revision).toBe(40);
  });
});

describe('seed 001 and version 1 snapshots on PostgreSQL', () => {
  it("lists Codelia's snapshots with its last_user_message and loads them exactly as saved", async () => {
    const store = await open();
    for (const state of codeliaSnapshots<SessionState>()) await store.sessions.save(state);
    await expectCodeliaSessions(store.sessions);
  });

  it('upgrades a schema of version 4 in place: version 1 rows load, list, take commits and fold', async () => {
    const url = testPostgresUrl();
    const schema = uniqueSchema('upgrade');
    const tables = tablesOf(schema);
    const upper = SESSION_ID.toUpperCase();
    const v1: SessionState = {
      schema_version: 1,
      session_id: upper,
      updated_at: '2026-02-03T12:00:00.000Z',
      run_id: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
      invoke_seq: 2,
      revision: 2,
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ],
      episodic: [
        '{"id":1,"type":"item","meta":{"source":"user","ts":"2026-02-03T12:00:00.000Z"},"payload":{"item":{"type":"message","role":"user","content":"hello"}}}',
        '{"id":2,"type":"item","meta":{"source":"model","ts":"2026-02-03T12:00:00.000Z"},"payload":{"item":{"type":"message","role":"assistant","content":"hi"}}}',
      ].join('\n'),
    };
    // The schema as store-postgres wrote it before sessions had deltas, with a row as its
    // version 1 adapter stored it (the id as given, the whole state as one JSON text).
    await withClient(url, async (client) => {
      await client.query('BEGIN');
      await client.query(`CREATE SCHEMA ${tables.schema}`);
      await client.query(
        `CREATE TABLE ${tables.migrations} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      );
      for (const migration of MIGRATIONS.filter((step) => step.version <= 4)) {
        await client.query(migration.sql(tables));
        await client.query(
          `INSERT INTO ${tables.migrations} (version, description) VALUES ($1, $2)`,
          [migration.version, migration.description],
        );
      }
      await client.query(
        `INSERT INTO ${tables.sessions} (session_id, revision, updated_at, run_id, message_count, state_json) VALUES ($1, 2, $2, $3, 2, $4)`,
        [upper, v1.updated_at, v1.run_id, JSON.stringify(v1)],
      );
      await client.query('COMMIT');
    });
    const store = await open({ schema, fold: { currentUpToBytes: 0 } });
    const version = await store.pool.query(`SELECT max(version) AS v FROM ${tables.migrations}`);
    expect(version.rows[0].v).toBe(SCHEMA_VERSION);
    // Loaded exactly as stored (a base without deltas), under its id in either case.
    expect(await store.sessions.load(SESSION_ID)).toEqual(v1);
    expect(await store.sessions.load(upper)).toEqual(v1);
    expect(await store.sessions.list()).toEqual([
      {
        sessionId: SESSION_ID,
        updatedAt: v1.updated_at,
        revision: 2,
        runId: v1.run_id,
        messageCount: 2,
        baseRevision: 2,
        episodeCount: 2,
        lastUserMessage: 'hello',
      },
    ]);
    // Its first commit also folds it into a version 2 base (a session never keeps adding deltas
    // to an older version); the next ones are deltas, folded on demand.
    const session = await loadSession(store.sessions, SESSION_ID);
    await session.runTurn('and now?', echo);
    expect(await count(store, 'episodic_session_deltas')).toBe(0);
    expect((await store.sessions.read(SESSION_ID))?.baseRevision).toBe(3);
    await session.runTurn('and then?', echo);
    expect(await count(store, 'episodic_session_deltas')).toBe(1);
    const before = await store.sessions.load(SESSION_ID);
    expect(userInputs(before)).toEqual(['hello', 'and now?', 'and then?']);
    expect(before?.schema_version).toBe(2);
    expect(await store.sessions.fold(SESSION_ID)).toEqual({
      sessionId: SESSION_ID,
      revision: 4,
      folded: 1,
    });
    expect(await store.sessions.load(SESSION_ID)).toEqual(before);
    expect(await count(store, 'episodic_session_deltas')).toBe(0);
  });
});
