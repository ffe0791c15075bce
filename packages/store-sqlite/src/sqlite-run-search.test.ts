// The run records' search index (schema 16): lazy, follows other writers through its triggers,
// survives rowids SQLite hands out again, and leaves no copy of an erased secret in the files.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError, type RunRecord } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { rebuildSqliteRunSearchIndex } from './sqlite-run-search.js';
import { createSqliteStore } from './sqlite-store.js';

const directories: string[] = [];
function temporaryFile(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-run-search-'));
  directories.push(directory);
  return join(directory, name);
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const runId = (index: number) => `0f0e0d0c-0b0a-4908-8706-${index.toString(16).padStart(12, '0')}`;
const TS = '2026-02-03T12:01:00.000Z';
function run(id: string, ...outputs: string[]): RunRecord[] {
  return [
    { type: 'header', schema_version: 1, run_id: id, started_at: TS },
    ...outputs.map(
      (result_raw, index): RunRecord => ({
        type: 'tool.output',
        run_id: id,
        ts: TS,
        tool: 'cat',
        tool_call_id: `c${index}`,
        result_raw,
      }),
    ),
  ];
}
const count = (store: ReturnType<typeof createSqliteStore>, sql: string) =>
  store.database.prepare(sql).pluck().get() as number;

describe('SQLite run search', () => {
  it('appends never touch the index; a search indexes what is new first', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    await store.runs.append(runId(1), run(runId(1), 'alpha words', 'beta words'));
    expect(count(store, 'SELECT count(*) FROM episodic_run_search')).toBe(0);
    expect((await store.runs.search({ text: 'alpha' })).hits).toHaveLength(1);
    expect(count(store, 'SELECT count(*) FROM episodic_run_search')).toBe(3);
    await store.runs.append(runId(1), run(runId(1), 'gamma').slice(1));
    expect(count(store, 'SELECT count(*) FROM episodic_run_search')).toBe(3);
    expect((await store.runs.search({ text: 'gamma' })).hits[0]).toMatchObject({
      run_id: runId(1),
      position: 4,
      type: 'tool.output',
      ts: TS,
    });
    await store.close();
  });

  it('a rowid SQLite hands out again after the last run is deleted is indexed with its new text', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    await store.runs.append(runId(1), run(runId(1), 'kept words'));
    await store.runs.append(runId(2), run(runId(2), 'doomed words', 'doomed again'));
    expect((await store.runs.search({ text: 'doomed' })).hits).toHaveLength(2);
    const highest = count(store, 'SELECT max(rowid) FROM episodic_run_records');
    expect(await store.runs.delete(runId(2))).toBe(true);
    await store.runs.append(runId(3), run(runId(3), 'reborn words', 'reborn again'));
    // SQLite reused the deleted rows' rowids: they are at or below the old mark.
    expect(count(store, 'SELECT max(rowid) FROM episodic_run_records')).toBe(highest);
    expect((await store.runs.search({ text: 'doomed' })).hits).toEqual([]);
    expect((await store.runs.search({ text: 'reborn' })).hits.map((hit) => hit.run_id)).toEqual([
      runId(3),
      runId(3),
    ]);
    expect((await store.runs.search({ text: 'words', limit: 10 })).hits).toHaveLength(2);
    await store.close();
  });

  it("another writer's UPDATE and DELETE (no FTS5 in its statements) are followed at the next search", async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    await store.runs.append(runId(1), run(runId(1), 'first text', 'second text'));
    await store.runs.append(runId(2), run(runId(2), 'third text'));
    expect((await store.runs.search({ text: 'text', limit: 10 })).hits).toHaveLength(3);
    const other = store.database;
    other
      .prepare('UPDATE episodic_run_records SET json = ? WHERE run_id = ? AND seq = 2')
      .run(JSON.stringify(run(runId(1), 'rewritten by hand')[1]), runId(1));
    other.prepare('DELETE FROM episodic_run_records WHERE run_id = ?').run(runId(2));
    expect(count(store, 'SELECT count(*) FROM episodic_run_search_stale')).toBe(3);
    expect((await store.runs.search({ text: 'first' })).hits).toEqual([]);
    expect((await store.runs.search({ text: 'third' })).hits).toEqual([]);
    expect((await store.runs.search({ text: 'rewritten hand' })).hits).toHaveLength(1);
    expect(count(store, 'SELECT count(*) FROM episodic_run_search_stale')).toBe(0);
    await store.close();
  });

  it('a read-only connection behind the runs says so (UNSUPPORTED, pending); once indexed it searches', async () => {
    const filename = temporaryFile('runs.db');
    const writer = createSqliteStore({ filename });
    await writer.runs.append(runId(1), run(runId(1), 'needle here'));
    const reader = createSqliteStore({ filename, readOnly: true });
    const error = await reader.runs.search({ text: 'needle' }).catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'UNSUPPORTED')).toBe(true);
    expect((error as EpisodicError).details).toMatchObject({ pending: 2 });
    expect((await writer.runs.search({ text: 'needle' })).hits).toHaveLength(1);
    expect((await reader.runs.search({ text: 'needle' })).hits).toHaveLength(1);
    await reader.close();
    await writer.close();
  });

  it('a read-only connection to a file of schema 15 or older (no run index) answers UNSUPPORTED; opened writable, it searches', async () => {
    const filename = temporaryFile('old.db');
    const writer = createSqliteStore({ filename });
    await writer.runs.append(runId(1), run(runId(1), 'legacy words'));
    writer.database.exec(`DROP TRIGGER episodic_run_search_stale_on_update;
DROP TRIGGER episodic_run_search_stale_on_delete;
DROP TABLE episodic_run_search; DROP TABLE episodic_run_search_state; DROP TABLE episodic_run_search_stale;
PRAGMA user_version = 14;`);
    await writer.close();
    const reader = createSqliteStore({ filename, readOnly: true });
    const error = await reader.runs.search({ text: 'legacy' }).catch((caught: unknown) => caught);
    expect(EpisodicError.hasCode(error, 'UNSUPPORTED')).toBe(true);
    expect((error as EpisodicError).details).toMatchObject({ table: 'episodic_run_search' });
    await reader.close();
    const upgraded = createSqliteStore({ filename });
    expect((await upgraded.runs.search({ text: 'legacy' })).hits).toHaveLength(1);
    await upgraded.close();
  });

  it('rebuilds from the records alone', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    await store.runs.append(runId(1), run(runId(1), 'one two', 'two three'));
    const before = await store.runs.search({ text: 'two' });
    store.database.exec('DELETE FROM episodic_run_search');
    expect((await store.runs.search({ text: 'two' })).hits).toEqual([]);
    expect(rebuildSqliteRunSearchIndex(store.database)).toBe(3);
    expect(await store.runs.search({ text: 'two' })).toEqual(before);
    await store.close();
  });

  it('leaves no copy of a redacted or deleted run secret in the .db or -wal files (index and shadow tables included)', async () => {
    const filename = temporaryFile('run-residue.db');
    const store = createSqliteStore({ filename });
    const secrets = Array.from(
      { length: 10 },
      (_, index) => `sk-proj-RESIDUE${index}x${'Ab9Cd8Ef7Gh6'.repeat(4)}`,
    );
    for (const [index, secret] of secrets.entries()) {
      await store.runs.append(
        runId(index + 1),
        run(runId(index + 1), `AWS key ${secret}`, `padding ${'p'.repeat(6000)}`),
      );
    }
    const bytes = () =>
      ['', '-wal']
        .map((suffix) =>
          existsSync(filename + suffix) ? readFileSync(filename + suffix).toString('latin1') : '',
        )
        .join('');
    // Searched once, so the index (FTS5 shadow tables) holds them: its terms are folded and
    // prefix-compressed, so the scan looks for each secret's folded tail too.
    const folded = secrets.map((_, index) => `${index}x${'ab9cd8ef7gh6'.repeat(4)}`);
    for (const index of [0, 9]) {
      expect((await store.runs.search({ text: secrets[index] as string })).hits).toHaveLength(1);
    }
    expect(
      count(store, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'episodic_run_search%'"),
    ).toBeGreaterThanOrEqual(7);
    expect(folded.filter((tail) => bytes().toLowerCase().includes(tail)).length).toBe(10);

    for (let index = 1; index <= 5; index++) {
      expect((await store.runs.redact(runId(index))).changedLines).toBe(1);
    }
    // The redaction itself took the words out (no search or deletion since).
    const redacted = bytes();
    expect(secrets.slice(0, 5).filter((secret) => redacted.includes(secret))).toEqual([]);
    expect(folded.slice(0, 5).filter((tail) => redacted.toLowerCase().includes(tail))).toEqual([]);
    for (let index = 6; index <= 10; index++)
      expect(await store.runs.delete(runId(index))).toBe(true);
    const after = bytes();
    expect(secrets.filter((secret) => after.includes(secret))).toEqual([]);
    expect(folded.filter((tail) => after.toLowerCase().includes(tail))).toEqual([]);
    for (const secret of secrets) {
      expect((await store.runs.search({ text: secret })).hits).toEqual([]);
    }
    await store.close();
    const closed = bytes();
    expect(secrets.filter((secret) => closed.includes(secret))).toEqual([]);
    expect(folded.filter((tail) => closed.toLowerCase().includes(tail))).toEqual([]);
  });
});
