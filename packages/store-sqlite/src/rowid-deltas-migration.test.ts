// Schema 8 moves the session deltas from a WITHOUT ROWID table to a rowid table: a database whose
// sessions have a base and deltas under schema 7 must load the same sessions after the upgrade,
// and take commits after them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitEpisodes, createSession, loadSession, type NewEpisode } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
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

it('keeps every delta of a schema-7 database and commits after them', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-rowid-deltas-'));
  directories.push(directory);
  // The rows a store writes: a base and three deltas.
  const source = join(directory, 'source.db');
  const writer = createSqliteStore({ filename: source });
  const session = await createSession({ store: writer.sessions, id: SESSION_ID });
  for (const text of ['one', 'two', 'three', 'four']) await commitEpisodes(session, turn(text));
  const before = (await loadSession(writer.sessions, SESSION_ID)).log.read({ fromId: 0 });
  await writer.close();

  // The same rows in a database at schema 7, with the deltas table as schema 6 made it.
  const old = join(directory, 'old.db');
  const database = new Database(old);
  for (const migration of MIGRATIONS.filter((step) => step.version <= 7)) migration.up(database);
  database.pragma('user_version = 7');
  database.exec(`ATTACH DATABASE '${source}' AS source`);
  for (const table of ['episodic_sessions', 'episodic_session_sizes', 'episodic_session_deltas']) {
    database.exec(`INSERT INTO main.${table} SELECT * FROM source.${table}`);
  }
  database.exec('DETACH DATABASE source');
  const oldTable = database
    .prepare("SELECT sql FROM sqlite_master WHERE name = 'episodic_session_deltas'")
    .pluck()
    .get() as string;
  expect(oldTable).toContain('WITHOUT ROWID');
  expect(database.prepare('SELECT count(*) FROM episodic_session_deltas').pluck().get()).toBe(3);
  database.close();

  const store = createSqliteStore({ filename: old });
  try {
    const table = store.database
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'episodic_session_deltas'")
      .pluck()
      .get() as string;
    expect(table).not.toContain('WITHOUT ROWID');
    const loaded = await loadSession(store.sessions, SESSION_ID);
    expect(loaded.revision).toBe(4);
    expect(loaded.log.read({ fromId: 0 })).toEqual(before);
    await commitEpisodes(loaded, turn('five'));
    await expect(
      store.sessions.commit({
        sessionId: SESSION_ID,
        expectedRevision: 4,
        delta: { revision: 5, updated_at: '2026-11-24T00:00:00.000Z', episodes: [] },
        base: () => {
          throw new Error('not a new session');
        },
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await loadSession(store.sessions, SESSION_ID)).log.size).toBe(10);
  } finally {
    await store.close();
  }
});
