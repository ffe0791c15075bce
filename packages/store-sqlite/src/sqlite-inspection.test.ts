import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendScopedEvents, inspectedEvent } from '../../../test-support/inspection-steps.js';
import {
  checkSqliteDatabase,
  listSqliteScopeSummaries,
  listSqliteSessionScopes,
  readSqliteArtifactRows,
  readSqliteEpisodeMetadataRows,
  readSqliteLedgerEventRow,
  readSqliteSessionHeads,
  sqliteDatabaseHoldsRuns,
  sqliteRunBytes,
} from './sqlite-inspection.js';
import { createSqliteStore } from './sqlite-store.js';

const RUN_ID = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const directories: string[] = [];
function temporaryFile(name = 'episodic.db'): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-inspection-'));
  directories.push(directory);
  return join(directory, name);
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const event = (scope: string, session: string, tsMs: number, eventId: string) =>
  inspectedEvent(scope, session, tsMs, eventId, { run_id: RUN_ID });

describe('a SQLite store inspects its own tables', () => {
  it('summarizes scopes, lists session scopes and reads a ledger row by id', async () => {
    const store = createSqliteStore({ filename: temporaryFile() });
    try {
      expect(listSqliteScopeSummaries(store.database)).toEqual([]);
      expect(listSqliteSessionScopes(store.database)).toEqual([]);
      const summaries = await appendScopedEvents(store.ledger, { run_id: RUN_ID });
      expect(listSqliteScopeSummaries(store.database)).toEqual(summaries);
      expect(listSqliteSessionScopes(store.database)).toEqual(['alpha', 'zeta']);
      expect(readSqliteLedgerEventRow(store.database, 'evt-1')).toEqual({
        scope: 'alpha',
        session_id: 's1',
        refs_json: expect.stringContaining(RUN_ID),
      });
      expect(readSqliteLedgerEventRow(store.database, 'evt-none')).toBeUndefined();
      expect(readSqliteSessionHeads(store.database)).toHaveLength(3);
    } finally {
      await store.close();
    }
  });

  it('sizes a stored run as its JSONL form; undefined for a run it does not hold', async () => {
    const store = createSqliteStore({ filename: temporaryFile() });
    try {
      const header = {
        type: 'header' as const,
        schema_version: 1,
        run_id: RUN_ID,
        started_at: '2026-01-21T10:00:00.000Z',
      };
      await store.runs.append(RUN_ID, [header]);
      const stored = (await store.runs.read(RUN_ID)).records;
      const jsonl = stored.map((record) => `${JSON.stringify(record)}\n`).join('');
      const bytesOf = sqliteRunBytes(store.database);
      expect(bytesOf(RUN_ID)).toBe(Buffer.byteLength(jsonl));
      expect(bytesOf('7a2d3b5f-4c6e-4d8f-8a91-2b3c4d5e6f70')).toBeUndefined();
      expect(sqliteDatabaseHoldsRuns(store.database.name)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('reads artifacts with their episodes and episode metadata, as a migration copies them', async () => {
    const store = createSqliteStore({ filename: temporaryFile() });
    try {
      await store.artifacts.upsert({
        key: 'pattern:a',
        kind: 'pattern',
        content: { text: 'retry once' },
        episodes: ['ledger:evt-2', 'ledger:evt-1'],
      });
      await store.artifacts.setEpisodeMetadata('ledger:evt-1', { label: 'good' });
      expect(readSqliteArtifactRows(store.database)).toEqual([
        expect.objectContaining({
          key: 'pattern:a',
          kind: 'pattern',
          episodes: ['ledger:evt-2', 'ledger:evt-1'],
        }),
      ]);
      expect(readSqliteEpisodeMetadataRows(store.database)).toEqual([
        { episode_ref: 'ledger:evt-1', metadata_json: JSON.stringify({ label: 'good' }) },
      ]);
    } finally {
      await store.close();
    }
  });

  it('checks integrity and finds a JSON column damaged outside Episodic (sqlite3 shell)', async () => {
    const filename = temporaryFile();
    const store = createSqliteStore({ filename });
    await store.ledger.append(event('alpha', 's1', 1_000, 'evt-1'));
    expect(checkSqliteDatabase(store.database)).toEqual({
      integrity: 'ok',
      integrityMessages: [],
      events: 1,
      invalidJsonEvents: [],
      sessionIds: [],
    });
    await store.close();
    execFileSync('/usr/bin/sqlite3', [
      filename,
      "UPDATE episodic_events SET refs_json = '{x' WHERE event_id = 'evt-1'",
    ]);
    const reopened = createSqliteStore({ filename });
    try {
      expect(checkSqliteDatabase(reopened.database).invalidJsonEvents).toEqual([
        { event_id: 'evt-1', scope: 'alpha' },
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('says a missing file, a file that is not a database, or an empty one holds no runs', () => {
    const notADatabase = temporaryFile('notes.txt');
    writeFileSync(notADatabase, 'not sqlite');
    expect(sqliteDatabaseHoldsRuns(temporaryFile('missing.db'))).toBe(false);
    expect(sqliteDatabaseHoldsRuns(notADatabase)).toBe(false);
    expect(sqliteDatabaseHoldsRuns(':memory:')).toBe(false);
  });
});
