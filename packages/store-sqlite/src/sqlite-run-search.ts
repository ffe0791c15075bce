// The run records' full-text index in the same file (schema 16): an FTS5 table
// (`episodic_run_search`) holding core's `searchFieldsOfRunLine` of each `episodic_run_records`
// row under the row's rowid, kept lazily as the ledger's is (sqlite-search.ts). Appends never
// touch it; a search first indexes the rows above the stored high-water mark. SQLite has one
// writer at a time, so rowids are handed out in commit order; they are not AUTOINCREMENT, so
// after the highest rows are deleted SQLite may hand their rowids out again: whenever deleted
// rows leave the index, the mark comes down to the highest rowid still stored.
import {
  type RunSearchPlan,
  type RunSearchRow,
  readRunHeaderLine,
  renderFts5Match,
  runHeaderScope,
  SNIPPET_ELLIPSIS,
  SNIPPET_MATCH_END,
  SNIPPET_MATCH_START,
  SNIPPET_TOKENS,
  searchFieldsOfRunLine,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import { RUN_SEARCH_INDEX_DDL } from './migrations.js';
import { CATCH_UP_BATCH, lazyIndexCatchUp, statementCache } from './sqlite-lazy-index.js';

/** The SQL function that gives a stored header line's scope (`runHeaderScope`), NULL if unreadable. */
const SCOPE_FUNCTION = 'episodic_run_header_scope';

/** The run search index of one connection. */
export interface SqliteRunSearchIndex {
  /** Indexes every row above the mark (in short IMMEDIATE transactions); returns rows indexed. */
  catchUp(): number;
  /** The rows a search selects (catches up first). */
  search(plan: RunSearchPlan): RunSearchRow[];
  /**
   * Inside a write transaction, after rows changed or went (redaction, deletion, or any other
   * writer, listed by the triggers in `episodic_run_search_stale`): their old index rows go and
   * the rows still stored are indexed from their new text. Returns the rows handled.
   */
  refreshStale(): number;
  /** Merges the index's segments, so the terms of deleted index rows leave the file. */
  optimize(): void;
  /** Drops the index, makes it again, and indexes every row: returns rows indexed. */
  rebuild(): number;
}

type RecordRow = { rowid: bigint | number; run_id: string; seq: bigint | number; json: string };

/** True when `database` holds the run search index (schema 16 or later). */
export function hasRunSearchTable(database: Database.Database): boolean {
  return (
    database
      .prepare(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'episodic_run_search_state'",
      )
      .get() !== undefined
  );
}

/** The run records' search index over `database` (schema 16 or later). */
export function createSqliteRunSearchIndex(database: Database.Database): SqliteRunSearchIndex {
  database.function(SCOPE_FUNCTION, { deterministic: true }, (line: unknown) => {
    if (typeof line !== 'string') return null;
    const header = readRunHeaderLine(line);
    return header === null ? null : runHeaderScope(header);
  });
  const readMark = database
    .prepare("SELECT value FROM episodic_run_search_state WHERE name = 'indexed_through'")
    .pluck()
    .safeIntegers(true);
  const writeMark = database.prepare(
    "UPDATE episodic_run_search_state SET value = ? WHERE name = 'indexed_through'",
  );
  // After deleted rows left the index: no rowid above the highest stored one is indexed, so a
  // rowid SQLite hands out again lands above the mark.
  const lowerMark = database.prepare(
    "UPDATE episodic_run_search_state SET value = min(value, (SELECT coalesce(max(rowid), 0) FROM episodic_run_records)) WHERE name = 'indexed_through'",
  );
  const newRows = database
    .prepare(
      'SELECT rowid, run_id, seq, json FROM episodic_run_records WHERE rowid > ? ORDER BY rowid LIMIT ?',
    )
    .safeIntegers(true);
  const insertStatement = database.prepare(
    'INSERT INTO episodic_run_search (rowid, text, run_id, seq, type, ts_ms) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insert = (row: RecordRow) => {
    const fields = searchFieldsOfRunLine(row.json);
    insertStatement.run(
      BigInt(row.rowid),
      fields.text,
      row.run_id,
      BigInt(row.seq),
      fields.type,
      fields.tsMs,
    );
  };
  const removeOne = database.prepare('DELETE FROM episodic_run_search WHERE rowid = ?');
  const rowsById = database
    .prepare(
      'SELECT rowid, run_id, seq, json FROM episodic_run_records WHERE rowid IN (SELECT value FROM json_each(?))',
    )
    .safeIntegers(true);
  // Highest first: after merges that followed redactions, FTS5 (3.53) was seen to keep the
  // terms of a deleted run's rows in the merged segment (empty doclists, the words still in the
  // file) when one transaction deleted the rows in ascending rowid order; highest first, not.
  const staleIds = database
    .prepare('SELECT id FROM episodic_run_search_stale ORDER BY id DESC')
    .pluck();
  const clearStale = database.prepare('DELETE FROM episodic_run_search_stale');
  const refreshStale = (): number => {
    const ids = staleIds.all() as number[];
    if (ids.length === 0) return 0;
    for (const id of ids) removeOne.run(id);
    for (const row of rowsById.all(JSON.stringify(ids)) as RecordRow[]) insert(row);
    clearStale.run();
    lowerMark.run();
    return ids.length;
  };
  const catchUpTransaction = database.transaction((): number => {
    refreshStale();
    const mark = readMark.get() as bigint;
    const rows = newRows.all(mark, CATCH_UP_BATCH) as RecordRow[];
    for (const row of rows) insert(row);
    const last = rows[rows.length - 1];
    if (last !== undefined) writeMark.run(BigInt(last.rowid));
    return rows.length;
  });
  const pending = database
    .prepare(
      "SELECT (SELECT count(*) FROM episodic_run_records WHERE rowid > (SELECT value FROM episodic_run_search_state WHERE name = 'indexed_through')) + (SELECT count(*) FROM episodic_run_search_stale)",
    )
    .pluck();
  const optimizeTransaction = database.transaction(() => {
    database.exec("INSERT INTO episodic_run_search(episodic_run_search) VALUES ('optimize')");
  });
  const prepare = statementCache(database);

  const catchUp = lazyIndexCatchUp(database, {
    pending,
    batch: () => catchUpTransaction.immediate() as number,
    behindMessage: (behind) =>
      `The run search index is ${behind} records behind the runs and this connection is read-only, so it cannot index them. Open the database writable once (any run search indexes them), then search again.`,
  });

  return {
    catchUp,
    search(plan) {
      catchUp();
      const where = ['episodic_run_search MATCH ?'];
      const parameters: unknown[] = [renderFts5Match(plan.match)];
      if (plan.runId !== undefined) {
        where.push('run_id = ?');
        parameters.push(plan.runId);
      }
      if (plan.types !== undefined) {
        where.push(`type IN (${plan.types.map(() => '?').join(', ')})`);
        parameters.push(...plan.types);
      }
      if (plan.fromMs !== undefined) {
        where.push('ts_ms >= ?');
        parameters.push(plan.fromMs);
      }
      if (plan.toMs !== undefined) {
        where.push('ts_ms <= ?');
        parameters.push(plan.toMs);
      }
      // What the runs' headers name: the runs are selected once, not per matching record.
      if (plan.sessionId !== undefined) {
        where.push('run_id IN (SELECT run_id FROM episodic_runs WHERE lower(session_id) = ?)');
        parameters.push(plan.sessionId);
      }
      if (plan.scope !== undefined) {
        where.push(
          `run_id IN (SELECT run_id FROM episodic_runs WHERE ${SCOPE_FUNCTION}(header_json) = ?)`,
        );
        parameters.push(plan.scope);
      }
      // bm25() is lower for better matches: the score is its negation; ties by run, position.
      let after = '';
      if (plan.after !== undefined) {
        after = 'WHERE rank > ? OR (rank = ? AND (run_id > ? OR (run_id = ? AND position > ?)))';
        const rank = -plan.after.score;
        const { runId, position } = plan.after;
        parameters.push(rank, rank, runId, runId, position);
      }
      parameters.push(plan.limit);
      const snippet = `snippet(episodic_run_search, 0, '${SNIPPET_MATCH_START}', '${SNIPPET_MATCH_END}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS})`;
      const sql = `SELECT * FROM (
  SELECT run_id, seq AS position, type, ts_ms, bm25(episodic_run_search) AS rank, ${snippet} AS snippet
  FROM episodic_run_search
  WHERE ${where.join(' AND ')}
) ${after} ORDER BY rank, run_id, position LIMIT ?`;
      const rows = prepare(sql).all(...parameters) as Array<
        Omit<RunSearchRow, 'score'> & { rank: number }
      >;
      return rows.map(({ rank, ...row }) => ({ ...row, score: -rank }));
    },
    refreshStale,
    optimize() {
      optimizeTransaction.immediate();
    },
    rebuild() {
      database
        .transaction(() => {
          database.exec(`DROP TABLE IF EXISTS episodic_run_search;
${RUN_SEARCH_INDEX_DDL}`);
          writeMark.run(0);
          clearStale.run();
        })
        .immediate();
      return catchUp();
    },
  };
}

/**
 * Drops the run records' search index and builds it again from `episodic_run_records` (each
 * row's `searchFieldsOfRunLine`), in short IMMEDIATE transactions; returns the rows indexed.
 * Searches answer the same afterwards: the index is derived from the records alone.
 */
export function rebuildSqliteRunSearchIndex(database: Database.Database): number {
  return createSqliteRunSearchIndex(database).rebuild();
}
