// Other tools open the file with the SQLite they link, often older than the one better-sqlite3
// bundles: Python's sqlite3 and the sqlite3 shell on Debian 12 (3.40.1) or Ubuntu 22.04 (3.37),
// DB Browser, Datasette, openclaw-mem. An engine that cannot parse one schema object refuses every
// statement on the file, so each schema version must parse there, and seed 002's own statements
// (its INSERT, query, redaction UPDATE and retention DELETE) must run on what Episodic wrote, and
// Episodic must read what they wrote. Checked with the real shell and Python (when installed), and
// with SQLite 3.36.0 compiled to WebAssembly (sql.js 1.6.2), one version older than we promise.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitEpisodes, createSession, loadSession, type NewEpisode } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { nodeChainCrypto } from './sqlite-ledger-chain.js';
import { createSqliteStore } from './sqlite-store.js';

const SQLITE3 = '/usr/bin/sqlite3';
/** Every schema version, each a test of its own (the engines run as processes, under load). */
const SCHEMAS = MIGRATIONS.map((migration) => migration.version);
const SCOPE = 'openclaw-mem';
const SESSION_ID = '0193a6f0-0000-7000-8000-0000000c0a71';
/** The view as schemas 10 and 11 made it: group_concat(… ORDER BY …) needs SQLite 3.44. */
const VIEW_OF_SCHEMA_11 = `CREATE VIEW episodic_session_states AS
  SELECT session_id, group_concat(lines, '' ORDER BY chunk) AS state_json
  FROM episodic_session_base_chunks GROUP BY session_id`;

const shellVersion = existsSync(SQLITE3)
  ? spawnSync(SQLITE3, ['--version'], { encoding: 'utf8' }).stdout.split(' ')[0]
  : undefined;
const pythonProbe = spawnSync('python3', ['-c', 'import sqlite3; print(sqlite3.sqlite_version)'], {
  encoding: 'utf8',
});
const pythonVersion = pythonProbe.status === 0 ? pythonProbe.stdout.trim() : undefined;

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});
function newPath(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-older-sqlite-'));
  directories.push(directory);
  return join(directory, name);
}

// --- seed 002's statements, as its implementation runs them -------------------------------------

/** A statement and its parameters (numbers and strings only). */
type Statement = readonly [sql: string, params: ReadonlyArray<string | number>];

const seedInsert = (eventId: string, sessionId: string, type: string, tsMs: number): Statement => [
  `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary,
     payload_json, refs_json, redacted, schema_version, created_at)
   VALUES (?, ?, ?, ?, 'lyria', ?, ?, '{"intent":"status"}', '{"recordRef":"obs:42"}', 0,
     'openclaw-mem.episodic.v0', '2026-01-01T00:00:00+00:00')`,
  [eventId, tsMs, SCOPE, sessionId, type, `summary of ${eventId}`],
];
const seedQuery = (sessionId: string): Statement => [
  `SELECT event_id, ts_ms, type, summary, refs_json FROM episodic_events
   WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id LIMIT 50`,
  [SCOPE, sessionId],
];
const seedRedact = (eventId: string): Statement => [
  `UPDATE episodic_events SET summary = '[REDACTED]', payload_json = NULL, refs_json = NULL,
     redacted = 1 WHERE scope = ? AND event_id = ?`,
  [SCOPE, eventId],
];
const seedRetention = (type: string, beforeTsMs: number): Statement => [
  'DELETE FROM episodic_events WHERE scope = ? AND type = ? AND ts_ms < ?',
  [SCOPE, type, beforeTsMs],
];

/** `sql` with its `?` replaced by SQL literals (for the shell, which takes no parameters). */
function inline([sql, params]: Statement): string {
  let index = 0;
  return sql.replace(/\?/g, () => {
    const value = params[index++] as string | number;
    return typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`;
  });
}

// --- the engines ----------------------------------------------------------------------------------

/** What an engine returned for each statement (rows as objects), or the error it stopped at. */
type Outcome = { rows: Array<Array<Record<string, unknown>>> } | { error: string };
type Engine = (path: string, statements: readonly Statement[]) => Outcome;

/** Runs each statement through `/usr/bin/sqlite3` (a separate process per statement, JSON out). */
const shell: Engine = (path, statements) => {
  const rows: Array<Array<Record<string, unknown>>> = [];
  for (const statement of statements) {
    const result = spawnSync(SQLITE3, ['-bail', '-json', path], {
      input: `${inline(statement)};\n`,
      encoding: 'utf8',
    });
    if (result.status !== 0 || result.stderr !== '') return { error: result.stderr.trim() };
    rows.push(result.stdout.trim() === '' ? [] : JSON.parse(result.stdout));
  }
  return { rows };
};

const PYTHON_RUNNER = `
import json, sqlite3, sys
request = json.load(sys.stdin)
try:
    connection = sqlite3.connect(request["path"])
    connection.row_factory = sqlite3.Row
    out = []
    for sql, params in request["statements"]:
        out.append([dict(row) for row in connection.execute(sql, params).fetchall()])
        connection.commit()
    connection.close()
    print(json.dumps({"rows": out}))
except sqlite3.Error as error:
    print(json.dumps({"error": str(error)}))
`;

/** Runs the statements through Python's sqlite3 module, one connection, committing each. */
const python: Engine = (path, statements) => {
  const result = spawnSync('python3', ['-c', PYTHON_RUNNER], {
    input: JSON.stringify({ path, statements }),
    encoding: 'utf8',
  });
  if (result.status !== 0) return { error: result.stderr.trim() };
  return JSON.parse(result.stdout) as Outcome;
};

function rowsOf(outcome: Outcome): Array<Array<Record<string, unknown>>> {
  if ('error' in outcome) throw new Error(`the engine failed: ${outcome.error}`);
  return outcome.rows;
}

// --- databases ------------------------------------------------------------------------------------

/** A database at schema `version` as Episodic made it (each step up to it), in WAL mode. */
function databaseAtSchema(path: string, version: number): void {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  for (const migration of MIGRATIONS.filter((step) => step.version <= version)) {
    database.transaction(() => migration.up(database)).immediate();
  }
  database.pragma(`user_version = ${version}`);
  database.close();
}

const turn = (text: string): NewEpisode[] => [
  {
    type: 'item',
    meta: { source: 'user' },
    payload: { item: { type: 'message', role: 'user', content: text } },
  },
  {
    type: 'item',
    meta: { source: 'model' },
    payload: { item: { type: 'message', role: 'assistant', content: `re: ${text} — ✓ ünïcödé` } },
  },
];

/**
 * What Episodic writes: three ledger events and a session folded every two commits (so its base
 * is in rows numbered by section, kept across folds), at the current schema.
 */
async function episodicWrote(path: string) {
  const store = createSqliteStore({ filename: path, fold: { deltas: 2, minBytes: 0 } });
  try {
    const event = { scope: SCOPE, session_id: 'sess-001', agent_id: 'lyria' };
    await store.ledger.append({
      ...event,
      type: 'conversation.user',
      summary: 'asked',
      ts_ms: 1000,
    });
    await store.ledger.append({
      ...event,
      type: 'tool.result',
      summary: 'ran ls',
      payload: { out: 'a b' },
      ts_ms: 2000,
    });
    await store.ledger.append({ ...event, type: 'ops.decision', summary: 'kept', ts_ms: 3000 });
    await store.ledger.append({
      ...event,
      event_id: 'ep-secret',
      session_id: 'sess-secret',
      type: 'conversation.user',
      summary: 'zebracode is the door code',
      ts_ms: 3500,
    });
    // A search fills the index: the file other engines open holds it (schema 14's FTS5 table).
    expect((await store.ledger.search({ scope: SCOPE, text: 'ls' })).hits).toHaveLength(1);
    expect((await store.ledger.search({ scope: SCOPE, text: 'zebracode' })).hits).toHaveLength(1);
    // And a run search fills the run records' index (schema 16's FTS5 table).
    const runId = '0f0e0d0c-0b0a-4908-8706-00000000abcd';
    await store.runs.append(runId, [
      { type: 'header', schema_version: 1, run_id: runId, started_at: '2026-02-03T12:00:00Z' },
      {
        type: 'run.end',
        run_id: runId,
        ts: '2026-02-03T12:01:00Z',
        outcome: 'completed',
        final: 'okapi',
      },
    ]);
    expect((await store.runs.search({ text: 'okapi' })).hits).toHaveLength(1);
    const session = await createSession({ store: store.sessions, id: SESSION_ID });
    for (const text of ['one', 'two', 'three', 'four', 'five', 'six', 'seven']) {
      await commitEpisodes(session, turn(text));
    }
    const log = (await loadSession(store.sessions, SESSION_ID)).log.read({ fromId: 0 });
    return { log, base: baseText(store.database) };
  } finally {
    await store.close();
  }
}

/**
 * After another engine redacted `ep-secret` and its retention deleted the `ran ls` event (both
 * indexed), Episodic's next search finds neither, and its index holds none of their words.
 */
async function expectIndexFollowed(store: ReturnType<typeof createSqliteStore>): Promise<void> {
  expect((await store.ledger.search({ scope: SCOPE, text: 'zebracode' })).hits).toEqual([]);
  expect((await store.ledger.search({ scope: SCOPE, text: 'ls' })).hits).toEqual([]);
  const redacted = await store.ledger.search({ scope: SCOPE, text: 'REDACTED', limit: 10 });
  expect(redacted.hits.map((hit) => hit.event_id).sort()).toEqual(['ep-secret', 'ext-1']);
  const inIndex = (word: string) =>
    store.database
      .prepare('SELECT count(*) FROM episodic_search WHERE episodic_search MATCH ?')
      .pluck()
      .get(word);
  expect(inIndex('zebracode')).toBe(0);
  expect(inIndex('ls')).toBe(0);
  expect(store.database.prepare('SELECT count(*) FROM episodic_search_stale').pluck().get()).toBe(
    0,
  );
}

/**
 * The session's base: its rows' text joined in chunk order (what the view must give). The folds
 * kept rows and added rows numbered before them, so the rows are not stored in chunk order: a
 * view that lost the order would give other text.
 */
function baseText(database: Database.Database): string {
  const text = (order: string) =>
    (
      database
        .prepare(
          `SELECT lines FROM episodic_session_base_chunks WHERE session_id = ? ORDER BY ${order}`,
        )
        .pluck()
        .all(SESSION_ID) as string[]
    ).join('');
  expect(text('rowid')).not.toBe(text('chunk'));
  return text('chunk');
}

const ENGINES: ReadonlyArray<
  [name: string, engine: Engine, version: string | undefined, install: string]
> = [
  ['the sqlite3 shell', shell, shellVersion, `${SQLITE3} is missing (apt-get install sqlite3)`],
  ['Python sqlite3', python, pythonVersion, 'python3 is missing'],
];

for (const [name, engine, version, missing] of ENGINES) {
  describe.skipIf(version === undefined)(`${name} ${version ?? `(skipped: ${missing})`}`, () => {
    it('opens what Episodic wrote: integrity_check, the base view byte for byte, seed 002 statements; Episodic reads what it wrote', async () => {
      const path = newPath('episodic.sqlite');
      const written = await episodicWrote(path);
      expect(written.base.length).toBeGreaterThan(0);
      const [integrity, states, , , query, , ,] = rowsOf(
        engine(path, [
          ['PRAGMA integrity_check', []],
          ['SELECT * FROM episodic_session_states', []],
          seedInsert('ext-1', 'sess-001', 'conversation.assistant', 4000),
          seedInsert('ext-2', 'sess-ext', 'conversation.user', 5000),
          seedQuery('sess-001'),
          seedRedact('ext-1'),
          seedRetention('tool.result', 2500),
          seedRedact('ep-secret'),
        ]),
      );
      expect(integrity).toEqual([{ integrity_check: 'ok' }]);
      expect(states).toEqual([{ session_id: SESSION_ID, state_json: written.base }]);
      expect(query?.map((row) => [row.event_id, row.type])).toEqual([
        [expect.any(String), 'conversation.user'],
        [expect.any(String), 'tool.result'],
        [expect.any(String), 'ops.decision'],
        ['ext-1', 'conversation.assistant'],
      ]);

      const store = createSqliteStore({ filename: path });
      try {
        const page = await store.ledger.replay('sess-001', { scope: SCOPE, includePayload: true });
        expect(page.events.map((event) => [event.type, event.position, event.redacted])).toEqual([
          ['conversation.user', 1, false],
          ['ops.decision', 3, false],
          ['conversation.assistant', 4, true],
        ]);
        expect(page.events[2]).toMatchObject({ event_id: 'ext-1', summary: '[REDACTED]' });
        const other = await store.ledger.replay('sess-ext', { scope: SCOPE, includePayload: true });
        expect(other.events).toMatchObject([
          { event_id: 'ext-2', position: 1, payload: { intent: 'status' } },
        ]);
        const next = await store.ledger.append(
          {
            scope: SCOPE,
            session_id: 'sess-001',
            agent_id: 'lyria',
            type: 'ops.decision',
            summary: 'after',
          },
          { expectedPosition: 4 },
        );
        expect(next.event.position).toBe(5);
        const loaded = await loadSession(store.sessions, SESSION_ID);
        expect(loaded.log.read({ fromId: 0 })).toEqual(written.log);
        await expectIndexFollowed(store);
      } finally {
        await store.close();
      }
    });

    it("opens a chained ledger (schema 15): seed 002's statements run; Episodic's verify names their redaction and deletion, their insert is unchained", async () => {
      const path = newPath('chained.sqlite');
      const store = createSqliteStore({ filename: path, chain: true });
      const event = { scope: SCOPE, session_id: 'sess-001', agent_id: 'lyria' };
      for (const [index, type] of (
        ['conversation.user', 'tool.result', 'ops.decision'] as const
      ).entries())
        await store.ledger.append({
          ...event,
          event_id: `ep-${index}`,
          type,
          summary: `s${index}`,
          ts_ms: 1000 * (index + 1),
        });
      await store.close();
      const [integrity, , query] = rowsOf(
        engine(path, [
          ['PRAGMA integrity_check', []],
          seedInsert('ext-1', 'sess-001', 'conversation.assistant', 4000),
          seedQuery('sess-001'),
          seedRedact('ep-0'),
          seedRetention('tool.result', 2500),
        ]),
      );
      expect(integrity).toEqual([{ integrity_check: 'ok' }]);
      expect(query?.map((row) => row.event_id)).toEqual(['ep-0', 'ep-1', 'ep-2', 'ext-1']);
      const again = createSqliteStore({ filename: path, chain: true });
      try {
        await again.ledger.append({
          ...event,
          event_id: 'ep-3',
          type: 'ops.decision',
          summary: 's3',
          ts_ms: 5000,
        });
        const report = await again.ledger.verifyChain({
          sha256: nodeChainCrypto().sha256,
          scope: SCOPE,
        });
        expect(
          report.findings.map((finding) => [finding.finding, finding.n ?? finding.from]),
        ).toEqual([
          ['altered', 1],
          ['unchained', 4],
          ['deleted', 2],
        ]);
      } finally {
        await again.close();
      }
    });

    it.each(SCHEMAS)(
      'opens schema %i as Episodic made it, runs seed 002 statements; Episodic reads the rows after',
      async (schema) => {
        const path = newPath(`schema-${schema}.sqlite`);
        databaseAtSchema(path, schema);
        const statements: Statement[] = [
          ['PRAGMA integrity_check', []],
          seedInsert('ext-1', 'sess-001', 'conversation.user', 1000),
          seedInsert('ext-2', 'sess-001', 'tool.result', 2000),
          seedInsert('ext-3', 'sess-001', 'ops.decision', 3000),
          seedQuery('sess-001'),
          seedRedact('ext-1'),
          seedRetention('tool.result', 2500),
        ];
        if (schema >= 10) statements.push(['SELECT * FROM episodic_session_states', []]);
        const rows = rowsOf(engine(path, statements));
        expect(rows[0], `schema ${schema}`).toEqual([{ integrity_check: 'ok' }]);
        expect(
          rows[4]?.map((row) => row.event_id),
          `schema ${schema}`,
        ).toEqual(['ext-1', 'ext-2', 'ext-3']);

        const store = createSqliteStore({ filename: path });
        try {
          const page = await store.ledger.replay('sess-001', { scope: SCOPE });
          expect(
            page.events.map((event) => [event.event_id, event.position, event.redacted]),
            `schema ${schema}`,
          ).toEqual([
            ['ext-1', 1, true],
            // Before schema 5 the rows got positions when Episodic migrated them, after the DELETE.
            ['ext-3', schema < 5 ? 2 : 3, false],
          ]);
        } finally {
          await store.close();
        }
      },
    );

    it('refused a schema-11 database with its old view; opening it in Episodic repairs it, the base byte for byte', async () => {
      const path = newPath('schema-11.sqlite');
      const written = await episodicWrote(path);
      const old = new Database(path);
      old.exec(`DROP VIEW episodic_session_states; ${VIEW_OF_SCHEMA_11}`);
      old.pragma('user_version = 11');
      const oldText = old
        .prepare('SELECT state_json FROM episodic_session_states WHERE session_id = ?')
        .pluck()
        .get(SESSION_ID);
      old.close();
      expect(oldText).toBe(written.base);

      const refused = engine(path, [['SELECT count(*) AS n FROM episodic_events', []]]);
      expect(refused).toEqual({
        error: expect.stringContaining('malformed database schema (episodic_session_states)'),
      });

      await createSqliteStore({ filename: path }).close();
      const [states, integrity] = rowsOf(
        engine(path, [
          ['SELECT * FROM episodic_session_states', []],
          ['PRAGMA integrity_check', []],
        ]),
      );
      expect(states).toEqual([{ session_id: SESSION_ID, state_json: oldText }]);
      expect(integrity).toEqual([{ integrity_check: 'ok' }]);
    });
  });
}

// --- SQLite 3.36.0 (sql.js 1.6.2): every schema object's SQL parses and works --------------------

interface SqlJsDatabase {
  exec(sql: string): Array<{ columns: string[]; values: unknown[][] }>;
  run(sql: string, params?: ReadonlyArray<string | number>): void;
  export(): Uint8Array;
  close(): void;
}
interface SqlJs {
  Database: new (bytes?: Uint8Array) => SqlJsDatabase;
}

let sqlJs: SqlJs;
beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const init = require('sql.js') as (config: { wasmBinary: Uint8Array }) => Promise<SqlJs>;
  sqlJs = await init({ wasmBinary: readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm')) });
});

/** Rows of the statement's last result set as objects. */
function sqlJsRows(
  database: SqlJsDatabase,
  [sql, params]: Statement,
): Array<Record<string, unknown>> {
  if (params.length > 0) {
    database.run(sql, params);
    return [];
  }
  const result = database.exec(sql).at(-1);
  if (result === undefined) return [];
  return result.values.map((values) =>
    Object.fromEntries(result.columns.map((column, index) => [column, values[index]])),
  );
}

/** The file's bytes in rollback-journal mode (a WAL file opens only beside its shared memory). */
function fileBytes(path: string): Uint8Array {
  const copy = `${path}.copy`;
  copyFileSync(path, copy);
  const database = new Database(copy);
  database.pragma('journal_mode = DELETE');
  database.close();
  return readFileSync(copy);
}

/** Each schema object's SQL, in the order SQLite made them. */
function schemaSql(path: string): string[] {
  const database = new Database(path, { readonly: true });
  const sql = database
    .prepare(
      "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
    )
    .pluck()
    .all() as string[];
  database.close();
  return sql;
}

describe('SQLite 3.36.0 (sql.js 1.6.2)', () => {
  it('is the engine under test', () => {
    const database = new sqlJs.Database();
    expect(database.exec('SELECT sqlite_version()')[0]?.values[0]?.[0]).toBe('3.36.0');
    database.close();
  });

  it.each(SCHEMAS)(
    'parses every schema object of schema %i, and runs seed 002 statements on it',
    (schema) => {
      const path = newPath(`schema-${schema}.sqlite`);
      databaseAtSchema(path, schema);
      const database = new sqlJs.Database();
      for (const sql of schemaSql(path)) {
        // sql.js 1.6.2 is built without FTS5: the FTS5 tables (schema 13's stand-in for
        // openclaw-mem's index, schema 14's search index) parse, and only their module is missing.
        // An engine without FTS5 still opens the whole file (the test below): a virtual table is
        // only resolved when used.
        if (sql.startsWith('CREATE VIRTUAL TABLE') && sql.includes('USING fts5(')) {
          expect(() => database.exec(sql), `schema ${schema}: ${sql}`).toThrow(
            'no such module: fts5',
          );
          continue;
        }
        expect(() => database.exec(sql), `schema ${schema}: ${sql}`).not.toThrow();
      }
      sqlJsRows(database, seedInsert('ext-1', 'sess-001', 'conversation.user', 1000));
      sqlJsRows(database, seedInsert('ext-2', 'sess-001', 'tool.result', 2000));
      sqlJsRows(database, seedRedact('ext-1'));
      sqlJsRows(database, seedRetention('tool.result', 2500));
      expect(
        sqlJsRows(database, [inline(seedQuery('sess-001')), []]),
        `schema ${schema}`,
      ).toMatchObject([{ event_id: 'ext-1', summary: '[REDACTED]' }]);
      database.close();
    },
  );

  it('opens the file Episodic wrote: integrity_check, the base view byte for byte, seed 002 statements', async () => {
    const path = newPath('episodic.sqlite');
    const written = await episodicWrote(path);
    const database = new sqlJs.Database(fileBytes(path));
    expect(sqlJsRows(database, ['PRAGMA integrity_check', []])).toEqual([
      { integrity_check: 'ok' },
    ]);
    expect(sqlJsRows(database, ['SELECT * FROM episodic_session_states', []])).toEqual([
      { session_id: SESSION_ID, state_json: written.base },
    ]);
    sqlJsRows(database, seedInsert('ext-1', 'sess-001', 'conversation.assistant', 4000));
    expect(sqlJsRows(database, [inline(seedQuery('sess-001')), []]).map((row) => row.type)).toEqual(
      ['conversation.user', 'tool.result', 'ops.decision', 'conversation.assistant'],
    );
    expect(
      sqlJsRows(database, ["SELECT position FROM episodic_events WHERE event_id = 'ext-1'", []]),
    ).toEqual([{ position: 4 }]);
    // An engine without FTS5 changes indexed rows; Episodic's index follows at its next search.
    sqlJsRows(database, seedRedact('ext-1'));
    sqlJsRows(database, seedRetention('tool.result', 2500));
    sqlJsRows(database, seedRedact('ep-secret'));
    // Built without FTS5, it still rewrites the whole file, the FTS5 tables included.
    sqlJsRows(database, ['VACUUM', []]);
    expect(sqlJsRows(database, ['PRAGMA integrity_check', []])).toEqual([
      { integrity_check: 'ok' },
    ]);
    expect(
      sqlJsRows(database, ["SELECT sql FROM sqlite_master WHERE name = 'episodic_events_fts'", []]),
    ).toEqual([
      { sql: "CREATE VIRTUAL TABLE episodic_events_fts USING fts5(summary, content='')" },
    ]);
    const changed = newPath('changed-by-sql-js.sqlite');
    writeFileSync(changed, database.export());
    database.close();
    const store = createSqliteStore({ filename: changed });
    try {
      await expectIndexFollowed(store);
    } finally {
      await store.close();
    }
  });

  it("refuses schema 11's view (the guard can fail)", () => {
    const database = new sqlJs.Database();
    database.exec(
      'CREATE TABLE episodic_session_base_chunks (session_id TEXT NOT NULL, chunk INTEGER NOT NULL, generation INTEGER NOT NULL, lines TEXT NOT NULL, PRIMARY KEY (session_id, chunk))',
    );
    expect(() => database.exec(VIEW_OF_SCHEMA_11)).toThrow(/near "ORDER"/);
    database.close();
  });
});
