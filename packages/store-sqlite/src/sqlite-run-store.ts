import {
  assertExpectedRunHeader,
  assertExpectedRunPosition,
  createRunReadCollector,
  createRunTailCollector,
  EpisodicError,
  idPrefixRange,
  planRunAppend,
  type RunDurability,
  type RunHeader,
  type RunRecordEntry,
  type RunRedactStats,
  type RunStoreAdapter,
  type StoredRedactor,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import {
  createSqliteRunSearchIndex,
  hasRunSearchTable,
  type SqliteRunSearchIndex,
} from './sqlite-run-search.js';

/**
 * Copies the WAL into the database and truncates it, so the page images written before a
 * redaction (which hold the old bytes) leave the `-wal` file too. PASSIVE first, so writers are
 * blocked only for the truncation. A reader holding an old snapshot can keep the WAL from being
 * truncated; the next redaction or GC truncates it then.
 */
export function truncateWal(database: Database.Database): void {
  if (database.memory) return;
  database.pragma('wal_checkpoint(PASSIVE)');
  database.pragma('wal_checkpoint(TRUNCATE)');
}

/**
 * The run store adapter over `episodic_runs` and `episodic_run_records`: each record is kept as the
 * exact JSON text that was appended (one row per line of a run file) and read back through core's
 * tolerant reader. Appends are IMMEDIATE transactions, so several processes can append to one run.
 */
export function createSqliteRunStoreAdapter(
  database: Database.Database,
  durability: RunDurability,
): RunStoreAdapter {
  const header = database.prepare('SELECT header_json FROM episodic_runs WHERE run_id = ?').pluck();
  const createRun = database.prepare(
    'INSERT INTO episodic_runs (run_id, header_json, session_id, record_count) VALUES (?, ?, ?, 0)',
  );
  const bump = database.prepare(
    'UPDATE episodic_runs SET record_count = record_count + ? WHERE run_id = ? RETURNING record_count',
  );
  const insertRecord = database.prepare(
    'INSERT INTO episodic_run_records (run_id, seq, json) VALUES (?, ?, ?)',
  );
  const records = database.prepare(
    'SELECT seq, json FROM episodic_run_records WHERE run_id = ? ORDER BY seq',
  );
  const recordsAfter = database.prepare(
    'SELECT seq, json FROM episodic_run_records WHERE run_id = ? AND seq > ? ORDER BY seq',
  );
  const recordCount = database
    .prepare('SELECT record_count FROM episodic_runs WHERE run_id = ?')
    .pluck();
  const countAndHeader = database.prepare(
    'SELECT record_count, header_json FROM episodic_runs WHERE run_id = ?',
  );
  const recordsFromEnd = database.prepare(
    'SELECT seq, json FROM episodic_run_records WHERE run_id = ? ORDER BY seq DESC',
  );
  const runs = database.prepare('SELECT run_id, header_json FROM episodic_runs');
  // A range on the primary key (idPrefixRange): the index, not a scan, finds a prefix's runs.
  const runIdRange = database.prepare(
    'SELECT run_id FROM episodic_runs WHERE run_id >= ? AND run_id < ? ORDER BY run_id LIMIT ?',
  );
  const runById = database.prepare(
    'SELECT run_id, header_json FROM episodic_runs WHERE run_id = ?',
  );
  const runsOfSession = database.prepare(
    'SELECT run_id, header_json FROM episodic_runs WHERE lower(session_id) = ?',
  );
  const deleteRecords = database.prepare('DELETE FROM episodic_run_records WHERE run_id = ?');
  const updateRecord = database.prepare(
    'UPDATE episodic_run_records SET json = ? WHERE run_id = ? AND seq = ?',
  );
  const updateHeader = database.prepare(
    'UPDATE episodic_runs SET header_json = ? WHERE run_id = ?',
  );
  const deleteRun = database.prepare('DELETE FROM episodic_runs WHERE run_id = ?');

  // The search index, made on first use: a read-only connection to a file of schema 15 or older
  // (read as it is) has no index table, and then only search says so.
  let searchIndex: SqliteRunSearchIndex | null | undefined;
  const indexOrNull = (): SqliteRunSearchIndex | null => {
    if (searchIndex === undefined || (searchIndex === null && hasRunSearchTable(database))) {
      searchIndex = hasRunSearchTable(database) ? createSqliteRunSearchIndex(database) : null;
    }
    return searchIndex;
  };
  /** Index rows the last redaction or deletion took out (their terms wait for a merge). */
  let searchRowsErased = 0;
  /** After a redaction or deletion: merge the index, so the old terms leave its segments. */
  const mergeErased = () => {
    if (searchRowsErased > 0) indexOrNull()?.optimize();
    searchRowsErased = 0;
  };

  const positionOf = (runId: string): number => (recordCount.get(runId) as number | undefined) ?? 0;

  const appendTransaction = database.transaction(
    (
      runId: string,
      entries: readonly RunRecordEntry[],
      expectedPosition?: number,
      expectedHeaderLine?: string,
    ) => {
      // Under the IMMEDIATE transaction's write lock: no other process appends in between.
      const storedHeader = header.get(runId) as string | undefined;
      if (expectedPosition !== undefined) {
        assertExpectedRunHeader(runId, storedHeader, expectedHeaderLine);
        assertExpectedRunPosition(runId, positionOf(runId), expectedPosition);
      }
      const toWrite = planRunAppend(runId, storedHeader, entries);
      if (toWrite.length === 0) return 0;
      const first = toWrite[0] as RunRecordEntry;
      if (first.record.type === 'header' && storedHeader === undefined) {
        const sessionId = (first.record as RunHeader).session_id;
        createRun.run(runId, first.json, typeof sessionId === 'string' ? sessionId : null);
      }
      const { record_count: end } = bump.get(toWrite.length, runId) as { record_count: number };
      let seq = end - toWrite.length;
      for (const entry of toWrite) insertRecord.run(runId, ++seq, entry.json);
      return toWrite.length;
    },
  );
  // Rows are rewritten in place; secure_delete (set by openSqliteDatabase) zeroes the old bytes in
  // the database file, and the WAL is checkpointed and truncated afterwards for the copies there.
  const redactTransaction = database.transaction(
    (runId: string, redactor: StoredRedactor): RunRedactStats | null => {
      const storedHeader = header.get(runId) as string | undefined;
      if (storedHeader === undefined) return null;
      const stats: RunRedactStats = { changedLines: 0, changedToolOutputs: 0 };
      const rows = records.all(runId) as Array<{ seq: number; json: string }>;
      let nextHeader = storedHeader;
      for (const row of rows) {
        const next = redactor.line(row.json);
        // The header is stored twice (its record row and header_json): the same text, redacted once.
        if (row.json === storedHeader) nextHeader = next;
        if (next === row.json) continue;
        updateRecord.run(next, runId, row.seq);
        stats.changedLines++;
      }
      if (!rows.some((row) => row.json === storedHeader)) nextHeader = redactor.line(storedHeader);
      if (nextHeader !== storedHeader) updateHeader.run(nextHeader, runId);
      // The triggers listed the rewritten rows: their old words leave the index in this
      // transaction and their new text goes in.
      searchRowsErased += indexOrNull()?.refreshStale() ?? 0;
      return stats;
    },
  );
  // A run's position is its row count: every stored row is one entry (rows are written whole, so
  // there is no torn last line, and only a damaged import could hold a blank one).
  const readSnapshot = database.transaction((runId: string) => {
    const end = recordCount.get(runId) as number | undefined;
    if (end === undefined) return null;
    const collector = createRunReadCollector(runId);
    for (const row of records.iterate(runId) as Iterable<{ seq: number; json: string }>) {
      collector.line(row.json, row.seq);
    }
    return { ...collector.result(), position: end };
  });
  const readAfterSnapshot = database.transaction((runId: string, position: number) => {
    const run = countAndHeader.get(runId) as
      | { record_count: number; header_json: string }
      | undefined;
    if (run === undefined) return null;
    const end = run.record_count;
    const collector = createRunReadCollector(runId, position, end);
    for (const row of recordsAfter.iterate(runId, position) as Iterable<{
      seq: number;
      json: string;
    }>) {
      collector.line(row.json, row.seq);
    }
    // The header row of this snapshot: the run these entries belong to.
    return { ...collector.resultAfter(), position: end, headerLine: run.header_json };
  });
  const tailSnapshot = database.transaction((runId: string, count: number) => {
    const storedHeader = header.get(runId) as string | undefined;
    if (storedHeader === undefined) return null;
    const collector = createRunTailCollector(runId, count);
    for (const row of recordsFromEnd.iterate(runId) as Iterable<{ seq: number; json: string }>) {
      if (collector.lineFromEnd(row.json, row.seq === 1, { line: row.seq })) break;
    }
    return { ...collector.result(), headerLine: storedHeader };
  });
  const removeTransaction = database.transaction((runId: string) => {
    deleteRecords.run(runId);
    const deleted = deleteRun.run(runId).changes > 0;
    searchRowsErased += indexOrNull()?.refreshStale() ?? 0;
    return deleted;
  });

  return {
    specificationVersion: 'v1',
    name: 'sqlite',
    capabilities: {
      crossProcessAppends: true,
      durability,
      toolOutputCache: false,
      redaction: true,
      headerLine: true,
      search: true,
    },
    append(runId, entries) {
      return appendTransaction.immediate(runId, entries);
    },
    appendAt(runId, entries, expectedPosition, expectedHeaderLine) {
      const appended = appendTransaction.immediate(
        runId,
        entries,
        expectedPosition,
        expectedHeaderLine,
      );
      return { appended, position: expectedPosition + appended };
    },
    read(runId) {
      return readSnapshot.deferred(runId);
    },
    readAfter(runId, position) {
      // One snapshot for the count and the rows: a deferred transaction reads both consistently.
      return readAfterSnapshot.deferred(runId, position);
    },
    tail(runId, count) {
      // One snapshot for the header and the rows.
      return tailSnapshot.deferred(runId, count);
    },
    runIdsWithPrefix(prefix, limit) {
      const { from, to } = idPrefixRange(prefix);
      return (runIdRange.all(from, to, limit) as Array<{ run_id: string }>).map(
        (row) => row.run_id,
      );
    },
    list(filter) {
      // Given run ids are looked up one by one (the primary key), whatever the table's size.
      const rows = (
        filter.runIds !== undefined
          ? [...filter.runIds].map((runId) => runById.get(runId)).filter((row) => row !== undefined)
          : filter.sessionId === undefined
            ? runs.all()
            : runsOfSession.all(filter.sessionId)
      ) as Array<{ run_id: string; header_json: string }>;
      return { rows: rows.map((row) => ({ runId: row.run_id, header: row.header_json })) };
    },
    delete(runId) {
      const deleted = removeTransaction.immediate(runId);
      if (searchRowsErased > 0) {
        mergeErased();
        truncateWal(database);
      }
      return deleted;
    },
    redact(runId, redactor) {
      const stats = redactTransaction.immediate(runId, redactor);
      mergeErased();
      if (stats !== null && stats.changedLines > 0) {
        truncateWal(database);
      }
      return stats;
    },
    search(plan) {
      const index = indexOrNull();
      if (index === null) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message:
            'This database has no run search index yet (schema 15 or older) and is open read-only. Open it writable once with @episodic/store-sqlite (that upgrades the schema), then search again.',
          details: { table: 'episodic_run_search' },
        });
      }
      return index.search(plan);
    },
  };
}
