// The session tables' schema steps, each on a database whose sessions have a base and deltas
// under the schema before it: the same sessions load after the upgrade and take commits after
// them. Schema 8 moved the deltas from a WITHOUT ROWID table to a rowid table; schema 9 moved the
// deltas' sizes from the sizes row into each delta row; schema 10 moved the bases into chunk rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitEpisodes, createSession, loadSession, type NewEpisode } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { createSqliteSessionStoreAdapter } from './sqlite-session-store.js';
import { createSqliteStore } from './sqlite-store.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const SESSION_ID = '6a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';
const turn = (text: string): NewEpisode[] => [
  {
    type: 'item',
    meta: { source: 'user' },
    payload: { item: { type: 'message', role: 'user', content: text } },
  },
  {
    type: 'item',
    meta: { source: 'model' },
    payload: { item: { type: 'message', role: 'assistant', content: `re: ${text} ✓` } },
  },
];

/**
 * A session (a base and three deltas, `before` its log) written by today's store, copied into a
 * database at schema `version` with the columns that schema has.
 */
async function sessionAtSchema(version: number) {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-session-migrations-'));
  directories.push(directory);
  const source = join(directory, 'source.db');
  const writer = createSqliteStore({ filename: source, fold: { currentUpToBytes: 0 } });
  const session = await createSession({ store: writer.sessions, id: SESSION_ID });
  for (const text of ['one', 'two', 'three', 'four']) await commitEpisodes(session, turn(text));
  const before = (await loadSession(writer.sessions, SESSION_ID)).log.read({ fromId: 0 });
  await writer.close();

  const path = join(directory, `schema-${version}.db`);
  const database = new Database(path);
  for (const migration of MIGRATIONS.filter((step) => step.version <= version)) {
    migration.up(database);
  }
  database.pragma(`user_version = ${version}`);
  database.exec(`ATTACH DATABASE '${source}' AS source`);
  // Up to schema 9 the base was episodic_sessions.state_json: the text the view gives whole.
  database.exec(`INSERT INTO main.episodic_sessions (session_id, revision, updated_at, run_id,
  message_count, state_json, episode_count, last_user_message)
SELECT s.session_id, s.revision, s.updated_at, s.run_id, s.message_count, v.state_json,
  s.episode_count, s.last_user_message
FROM source.episodic_sessions s JOIN source.episodic_session_states v USING (session_id)`);
  if (version >= 9) {
    database.exec(`INSERT INTO main.episodic_session_deltas (session_id, revision, line, bytes_since_base)
SELECT session_id, revision, line, bytes_since_base FROM source.episodic_session_deltas;
INSERT INTO main.episodic_session_sizes (session_id, base_bytes)
SELECT session_id, base_bytes FROM source.episodic_session_sizes`);
  } else {
    database.exec(`INSERT INTO main.episodic_session_deltas (session_id, revision, line)
SELECT session_id, revision, line FROM source.episodic_session_deltas`);
    // Schemas 6-8 kept the deltas' count and bytes in the sizes row.
    database.exec(`INSERT INTO main.episodic_session_sizes (session_id, base_bytes, delta_count, delta_bytes)
SELECT z.session_id, z.base_bytes, count(*), sum(length(CAST(d.line AS BLOB)) + 1)
FROM source.episodic_session_sizes z JOIN source.episodic_session_deltas d USING (session_id)
GROUP BY z.session_id`);
  }
  database.exec('DETACH DATABASE source');
  expect(database.prepare('SELECT count(*) FROM episodic_session_deltas').pluck().get()).toBe(3);
  return { path, database, before };
}

/** Loads the session, checks its log, and commits after it; a stale commit is a CONFLICT. */
async function expectSessionContinues(path: string, before: unknown) {
  const store = createSqliteStore({ filename: path });
  try {
    const loaded = await loadSession(store.sessions, SESSION_ID);
    expect(loaded.revision).toBe(4);
    expect(loaded.log.read({ fromId: 0 })).toEqual(before);
    await commitEpisodes(loaded, turn('five'));
    await expect(
      store.sessions.commit({
        sessionId: SESSION_ID,
        expectedRevision: 4,
        delta: { revision: 5, updated_at: '2026-11-24T00:00:00.000Z', episodes: [] },
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await loadSession(store.sessions, SESSION_ID)).log.size).toBe(10);
  } finally {
    await store.close();
  }
}

/** Opens the database at `path` through the store, which brings its schema up to date. */
function upgrade(path: string): Database.Database {
  const database = new Database(path);
  createSqliteStore({ database });
  return database;
}

const columnsOf = (database: Database.Database, table: string) =>
  database.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table);

const deltasTable = (database: Database.Database) =>
  database
    .prepare("SELECT sql FROM sqlite_master WHERE name = 'episodic_session_deltas'")
    .pluck()
    .get() as string;

it('schema 8: keeps every delta of a schema-7 database (WITHOUT ROWID) and commits after them', async () => {
  const { path, database, before } = await sessionAtSchema(7);
  expect(deltasTable(database)).toContain('WITHOUT ROWID');
  database.close();
  const upgraded = upgrade(path);
  expect(deltasTable(upgraded)).not.toContain('WITHOUT ROWID');
  upgraded.close();
  await expectSessionContinues(path, before);
});

it('schema 9: each delta row gets the bytes since the base, and the fold policy reads them', async () => {
  const { path, database, before } = await sessionAtSchema(8);
  const lines = database
    .prepare('SELECT line FROM episodic_session_deltas ORDER BY revision')
    .pluck()
    .all() as string[];
  const baseBytes = database
    .prepare('SELECT base_bytes FROM episodic_session_sizes')
    .pluck()
    .get() as number;
  database.close();

  const upgraded = upgrade(path);
  let running = 0;
  const expected = lines.map((line) => (running += Buffer.byteLength(line) + 1));
  expect(
    upgraded
      .prepare('SELECT bytes_since_base FROM episodic_session_deltas ORDER BY revision')
      .pluck()
      .all(),
  ).toEqual(expected);
  // Schema 9 dropped the delta columns (schema 11 added reset_since_base).
  expect(columnsOf(upgraded, 'episodic_session_sizes')).toEqual([
    'session_id',
    'base_bytes',
    'reset_since_base',
  ]);

  // The next commit's sizes continue from the last row: what the fold policy decides on.
  const adapter = createSqliteSessionStoreAdapter(upgraded);
  const delta = '{"revision":5,"updated_at":"2026-11-24T00:00:00.000Z","episodes":[]}';
  const sizes = adapter.commit(SESSION_ID, {
    revision: 5,
    expectedRevision: 4,
    delta,
  });
  expect(sizes).toEqual({
    deltaCount: 4,
    deltaBytes: running + Buffer.byteLength(delta) + 1,
    baseBytes,
    // The migrated base's token: the generation of its first row.
    baseToken: expect.stringMatching(/^\d+$/),
  });
  upgraded.prepare('DELETE FROM episodic_session_deltas WHERE revision = 5').run();
  upgraded.close();
  await expectSessionContinues(path, before);
});

it('schema 10: moves each base into chunk rows byte for byte, and the view gives it whole', async () => {
  const { path, database, before } = await sessionAtSchema(9);
  const text = database
    .prepare('SELECT CAST(state_json AS BLOB) FROM episodic_sessions')
    .pluck()
    .get() as Buffer;
  database.close();

  const upgraded = upgrade(path);
  expect(columnsOf(upgraded, 'episodic_sessions')).not.toContain('state_json');
  const whole = upgraded
    .prepare('SELECT CAST(state_json AS BLOB) FROM episodic_session_states WHERE session_id = ?')
    .pluck()
    .get(SESSION_ID) as Buffer;
  expect(whole.equals(text)).toBe(true);
  upgraded.close();
  await expectSessionContinues(path, before);
});

describe('a base of several mebibytes', () => {
  const open = async () => {
    const directory = mkdtempSync(join(tmpdir(), 'episodic-session-chunks-'));
    directories.push(directory);
    const path = join(directory, 'large.db');
    const store = createSqliteStore({ filename: path });
    const session = await createSession({ store: store.sessions, id: SESSION_ID });
    // Non-ASCII text, so a row's characters and bytes differ.
    for (let index = 0; index < 6; index++) {
      await commitEpisodes(session, turn(`${index}: ${'långt svar '.repeat(30_000)}`));
    }
    await store.sessions.fold(SESSION_ID);
    return { path, store };
  };
  const rowsOf = (database: Database.Database) =>
    database
      .prepare(
        'SELECT CAST(lines AS BLOB) FROM episodic_session_base_chunks WHERE session_id = ? ORDER BY chunk',
      )
      .pluck()
      .all(SESSION_ID) as Buffer[];

  it('is kept in several chunk rows that read back as one document', async () => {
    const { store } = await open();
    try {
      const rows = rowsOf(store.database);
      expect(rows.length).toBeGreaterThan(2);
      for (const row of rows) expect(row.at(-1)).toBe(0x0a);
      // A seed 001 reader of the view's text reads the whole state, as the store loads it.
      const text = store.database
        .prepare('SELECT state_json FROM episodic_session_states WHERE session_id = ?')
        .pluck()
        .get(SESSION_ID) as string;
      expect(JSON.parse(text)).toMatchObject({
        ...(await store.sessions.load(SESSION_ID)),
        episode_count: 12,
        message_count: 12,
      });
      expect(
        store.database
          .prepare('SELECT base_bytes FROM episodic_session_sizes WHERE session_id = ?')
          .pluck()
          .get(SESSION_ID),
      ).toBe(Buffer.byteLength(text));
      expect((await loadSession(store.sessions, SESSION_ID)).log.size).toBe(12);
    } finally {
      await store.close();
    }
  });

  it('is read whole from the snapshot of the load when another connection replaces it while it is read', async () => {
    const { path, store } = await open();
    const other = createSqliteStore({ filename: path });
    const statement = Object.getPrototypeOf(store.database.prepare('SELECT 1'));
    const get = statement.get;
    try {
      const before = (await loadSession(store.sessions, SESSION_ID)).log.read({ fromId: 0 });
      // What another process's fold writes: the same session as a new base (new rows, a new
      // generation), through the adapter's own replace, one transaction on its own connection.
      const writer = createSqliteSessionStoreAdapter(other.database);
      const stored = (await writer.load(SESSION_ID)) as { base: Iterable<string> };
      // Another text in every episode: a load that mixed the two bases would hold both.
      const lines = [...stored.base].map((line, index) =>
        index === 0 ? line : line.replaceAll('långt svar', 'short reply'),
      );
      // It lands inside the load's read transaction, after it read the first row.
      let replaced = 0;
      statement.get = function (this: { source: string }, ...args: unknown[]) {
        if (replaced === 0 && this.source.includes('AND generation = ?')) {
          replaced += 1;
          writer.replace(SESSION_ID, lines, 6, 6);
        }
        return get.apply(this, args);
      };
      const loaded = await loadSession(store.sessions, SESSION_ID);
      expect(replaced).toBe(1);
      expect(loaded.revision).toBe(6);
      // The base as the load's read transaction saw it, whole: never a row of the new one.
      expect(JSON.stringify(loaded.log.read({ fromId: 0 }))).toBe(JSON.stringify(before));
      // The next load sees the new base.
      const after = (await loadSession(store.sessions, SESSION_ID)).log.read({ fromId: 0 });
      expect(after).toHaveLength(before.length);
      expect(JSON.stringify(after)).not.toContain('långt svar');
      expect(JSON.stringify(after)).toBe(
        JSON.stringify(before).replaceAll('långt svar', 'short reply'),
      );
    } finally {
      statement.get = get;
      await other.close();
      await store.close();
    }
  });
});
