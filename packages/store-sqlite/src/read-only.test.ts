import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { openSqliteDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite-store.js';

// Read-only commands (the CLI's listings) must leave a home exactly as they found it: no new
// database, no -wal or -shm left behind, no migration, no changed byte.

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-read-only-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const event = {
  scope: 'my-project',
  session_id: 'sess-1',
  agent_id: 'planner',
  type: 'conversation.user' as const,
  summary: 'Asked for status',
};

function listing(directory: string) {
  return readdirSync(directory)
    .sort()
    .map((name) => {
      const stat = statSync(join(directory, name));
      return [name, stat.size, stat.mtimeMs];
    });
}

describe('createSqliteStore({ readOnly: true })', () => {
  it('reads what a writer stored and leaves no file and no change behind', async () => {
    const directory = temporaryDirectory();
    const filename = join(directory, 'episodic.db');
    const writer = createSqliteStore({ filename });
    await writer.ledger.append(event);
    await writer.close();
    const before = listing(directory);

    const reader = createSqliteStore({ filename, readOnly: true });
    const page = await reader.ledger.query({ scope: 'my-project' });
    expect(page.events.map((stored) => stored.summary)).toEqual(['Asked for status']);
    expect((await reader.runs.list()).runs).toEqual([]);
    const refused = await reader.ledger.append(event).catch((error: unknown) => error);
    expect(EpisodicError.isInstance(refused)).toBe(true);
    await reader.close();
    expect(listing(directory)).toEqual(before);
  });

  it('sees the commits of a writer that is still open', async () => {
    const directory = temporaryDirectory();
    const filename = join(directory, 'episodic.db');
    const writer = createSqliteStore({ filename });
    await writer.ledger.append(event);
    const reader = createSqliteStore({ filename, readOnly: true });
    await writer.ledger.append({ ...event, summary: 'Second' });
    expect((await reader.ledger.query({ scope: 'my-project' })).events).toHaveLength(2);
    await reader.close();
    await writer.close();
    expect(readdirSync(directory)).toEqual(['episodic.db']);
  });

  it('is NOT_FOUND for a missing file and creates nothing', () => {
    const directory = temporaryDirectory();
    try {
      openSqliteDatabase(join(directory, 'missing.db'), { readOnly: true });
      expect.unreachable();
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'NOT_FOUND')).toBe(true);
      expect((error as Error).message).toMatch(
        /no SQLite database at .*missing\.db.*nothing was created/,
      );
    }
    expect(readdirSync(directory)).toEqual([]);
    expect(() => openSqliteDatabase(':memory:', { readOnly: true })).toThrow(/readOnly/);
  });

  it('reads an older schema from a migrated copy and leaves the file at its version', async () => {
    const directory = temporaryDirectory();
    const filename = join(directory, 'old.db');
    // A database as the seed's own implementation leaves it: the v0 table, user_version 0.
    const old = new Database(filename);
    old.exec(`CREATE TABLE episodic_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, ts_ms INTEGER NOT NULL,
  scope TEXT NOT NULL, session_id TEXT NOT NULL, agent_id TEXT NOT NULL, type TEXT NOT NULL,
  summary TEXT NOT NULL, payload_json TEXT, refs_json TEXT, redacted INTEGER NOT NULL DEFAULT 0,
  schema_version TEXT NOT NULL, created_at TEXT NOT NULL)`);
    old
      .prepare(
        `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, schema_version, created_at)
         VALUES ('01KE0Y8E00ASKEDFORSTATUS0', 1767225600000, 'my-project', 'sess-1', 'lyria', 'conversation.user', 'Asked for status', 'episodic.ledger.v0', '2026-01-01T00:00:00.000Z')`,
      )
      .run();
    old.close();
    const before = listing(directory);

    const reader = createSqliteStore({ filename, readOnly: true });
    const page = await reader.ledger.query({ scope: 'my-project' });
    expect(page.events.map((stored) => [stored.summary, stored.position])).toEqual([
      ['Asked for status', 1],
    ]);
    await reader.close();
    expect(listing(directory)).toEqual(before);
    const check = new Database(filename, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(0);
    check.close();
    expect(SCHEMA_VERSION).toBeGreaterThan(0);
  });

  it('reads a schema-12 file as it is: schema 13 adds nothing a read uses, so no copy in memory', async () => {
    const directory = temporaryDirectory();
    const filename = join(directory, 'episodic.db');
    const writer = new Database(filename);
    for (const migration of MIGRATIONS.filter((step) => step.version <= 12)) {
      migration.up(writer);
      writer.pragma(`user_version = ${migration.version}`);
    }
    writer
      .prepare(
        `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, schema_version, created_at, position)
         VALUES ('01KE0Y8E00ASKEDFORSTATUS0', 1767225600000, 'my-project', 'sess-1', 'lyria', 'conversation.user', 'Asked for status', 'episodic.ledger.v0', '2026-01-01T00:00:00.000Z', 1)`,
      )
      .run();
    writer.close();
    const reader = createSqliteStore({ filename, readOnly: true });
    // The connection is on the file itself (a migrated copy would be an in-memory database).
    expect(reader.database.name).toBe(filename);
    const page = await reader.ledger.query({ scope: 'my-project' });
    expect(page.events.map((stored) => [stored.summary, stored.position])).toEqual([
      ['Asked for status', 1],
    ]);
    await reader.close();
    const check = new Database(filename, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(12);
    check.close();
  });
});
