import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, schemaVersionOf } from './migrations.js';
import { openSqliteDatabase } from './open-database.js';
import { SEED_EVENTS_DDL, SEED_INDEXES } from './schema-sql.js';
import { createSqliteStore } from './sqlite-store.js';

const directories: string[] = [];
function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-migrate-'));
  directories.push(directory);
  return join(directory, 'old.db');
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

/** A database as the seed's own implementation leaves it: the v0 table with rows, user_version 0. */
function seedV0Database(path: string): void {
  const database = new Database(path);
  database.exec(SEED_EVENTS_DDL);
  const insert = database.prepare(
    `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at)
     VALUES (?, ?, ?, ?, 'lyria', ?, ?, ?, ?, 0, 'openclaw-mem.episodic.v0', '2026-01-01T00:00:00.000Z')`,
  );
  insert.run(
    'old-3',
    3000,
    'openclaw-mem',
    'sess-001',
    'tool.call',
    'ran ls',
    '{"cmd":"ls"}',
    null,
  );
  insert.run(
    'old-1',
    1000,
    'openclaw-mem',
    'sess-001',
    'conversation.user',
    'Asked for status',
    '{"intent":"status"}',
    '{"recordRef":"obs:42"}',
  );
  insert.run(
    'old-2',
    1000,
    'openclaw-mem',
    'sess-001',
    'conversation.assistant',
    'Answered',
    null,
    null,
  );
  insert.run('old-4', 500, 'other', 'sess-001', 'ops.decision', 'other scope', null, null);
  database.close();
}

describe('migrations', () => {
  it('creates the seed table and its four indexes exactly, plus our tables, at the current version', () => {
    const database = openSqliteDatabase(':memory:');
    const sql = (name: string) =>
      database.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string;
    const table = SEED_EVENTS_DDL.slice(0, SEED_EVENTS_DDL.indexOf(';')).replace(
      'CREATE TABLE IF NOT EXISTS',
      'CREATE TABLE',
    );
    // ALTER TABLE appends our columns to the stored definition; the seed's part is unchanged.
    expect(sql('episodic_events').startsWith(table.slice(0, table.lastIndexOf('\n')))).toBe(true);
    expect(sql('uq_episodic_event_id')).toBe(
      'CREATE UNIQUE INDEX uq_episodic_event_id ON episodic_events(event_id)',
    );
    expect(sql('idx_episodic_scope_ts')).toBe(
      'CREATE INDEX idx_episodic_scope_ts ON episodic_events(scope, ts_ms)',
    );
    expect(sql('idx_episodic_session_ts')).toBe(
      'CREATE INDEX idx_episodic_session_ts ON episodic_events(session_id, ts_ms)',
    );
    expect(sql('idx_episodic_scope_type_ts')).toBe(
      'CREATE INDEX idx_episodic_scope_type_ts ON episodic_events(scope, type, ts_ms)',
    );
    const indexes = database
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'episodic_events' AND sql IS NOT NULL ORDER BY name",
      )
      .pluck()
      .all();
    expect(indexes).toEqual([...SEED_INDEXES].sort());
    for (const name of [
      'episodic_session_heads',
      'episodic_sessions',
      'episodic_runs',
      'episodic_run_records',
      'episodic_artifacts',
      'episodic_artifact_episodes',
      'episodic_episode_metadata',
    ]) {
      expect(sql(name), name).toContain('CREATE TABLE');
    }
    expect(schemaVersionOf(database)).toBe(SCHEMA_VERSION);
    database.close();
  });

  it('is idempotent: opening again changes nothing', () => {
    const path = databasePath();
    openSqliteDatabase(path).close();
    const dump = () => {
      const database = new Database(path, { readonly: true });
      const schema = database
        .prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name')
        .all();
      const version = schemaVersionOf(database);
      database.close();
      return { schema, version };
    };
    const first = dump();
    openSqliteDatabase(path).close();
    openSqliteDatabase(path).close();
    expect(dump()).toEqual(first);
  });

  it('upgrades a seed v0 database with rows: positions in timeline order, appends continue', async () => {
    const path = databasePath();
    seedV0Database(path);
    const store = createSqliteStore({ filename: path });
    try {
      expect(schemaVersionOf(store.database)).toBe(SCHEMA_VERSION);
      const page = await store.ledger.replay('sess-001', {
        scope: 'openclaw-mem',
        includePayload: true,
      });
      expect(page.events.map((event) => [event.event_id, event.position])).toEqual([
        ['old-1', 1],
        ['old-2', 2],
        ['old-3', 3],
      ]);
      expect(page.events[0]).toMatchObject({
        payload: { intent: 'status' },
        refs: { recordRef: 'obs:42' },
        schema_version: 'openclaw-mem.episodic.v0',
        redacted: false,
      });
      expect(page.events[0]).not.toHaveProperty('metadata');
      const next = await store.ledger.append(
        {
          scope: 'openclaw-mem',
          session_id: 'sess-001',
          agent_id: 'lyria',
          type: 'ops.decision',
          summary: 'migrated',
          ts_ms: 4000,
        },
        { expectedPosition: 3 },
      );
      expect(next.event.position).toBe(4);
      const other = await store.ledger.append(
        {
          scope: 'other',
          session_id: 'sess-001',
          agent_id: 'lyria',
          type: 'ops.decision',
          summary: 'next',
          ts_ms: 600,
        },
        { expectedPosition: 1 },
      );
      expect(other.event.position).toBe(2);
      expect(store.database.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await store.close();
    }
  });

  it('refuses a database written by a newer version, changing nothing', () => {
    const path = databasePath();
    const database = new Database(path);
    database.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    database.close();
    try {
      openSqliteDatabase(path);
      expect.unreachable();
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'UNSUPPORTED')).toBe(true);
      expect((error as Error).message).toContain('Upgrade @episodic/store-sqlite');
    }
  });
});
