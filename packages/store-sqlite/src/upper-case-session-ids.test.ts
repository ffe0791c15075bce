// Sessions stored before the incremental format (schema 5 and older) kept their id as given, so a
// session saved as "0B7D…" sits in a row keyed in upper case. The store now keys sessions in lower
// case: such a session must still load, list, save, fold and delete after the upgrade (migration 7).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { createSqliteStore } from './sqlite-store.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const fixture = new URL(
  '../../../fixtures/formats/session-state/v1/episodic-session.json',
  import.meta.url,
);

/** A schema-5 database holding one version-1 snapshot whose id is in upper case. */
function schemaFiveDatabase(upperId: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-upper-ids-'));
  directories.push(directory);
  const path = join(directory, 'old.db');
  const database = new Database(path);
  for (const migration of MIGRATIONS.filter((step) => step.version <= 5)) migration.up(database);
  database.pragma('user_version = 5');
  const state = JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, unknown>;
  state.session_id = upperId;
  database
    .prepare(
      `INSERT INTO episodic_sessions (session_id, revision, updated_at, run_id, message_count, state_json)
       VALUES (?, 1, '2026-01-01T00:00:00.000Z', NULL, 0, ?)`,
    )
    .run(upperId, JSON.stringify(state));
  database.close();
  return path;
}

it('loads, lists, saves, folds and deletes a session stored with an upper-case id before the upgrade', async () => {
  const upperId = '0B7D9C1E-2F3A-4B5C-8D9E-0F1A2B3C4D5E';
  const lowerId = upperId.toLowerCase();
  const store = createSqliteStore({ filename: schemaFiveDatabase(upperId) });
  try {
    const byUpper = await store.sessions.load(upperId);
    const byLower = await store.sessions.load(lowerId);
    expect(byUpper?.session_id.toLowerCase()).toBe(lowerId);
    expect(byLower?.session_id.toLowerCase()).toBe(lowerId);
    expect((await store.sessions.list()).map((summary) => summary.sessionId)).toEqual([lowerId]);
    // Writable as before: a save replaces it (one row, not a lower-case twin beside it).
    await store.sessions.save({ ...(byUpper as NonNullable<typeof byUpper>), session_id: lowerId });
    expect((await store.sessions.list()).map((summary) => summary.sessionId)).toEqual([lowerId]);
    expect((await store.sessions.fold(lowerId)).sessionId).toBe(lowerId);
    expect(await store.sessions.delete(upperId)).toBe(true);
    expect(await store.sessions.load(lowerId)).toBeNull();
  } finally {
    await store.close();
  }
});
