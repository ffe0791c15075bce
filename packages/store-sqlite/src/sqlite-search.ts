// The ledger's full-text index in the same file: an FTS5 table (`episodic_search`) holding core's
// `searchTextOfLedgerRow` of each `episodic_events` row under the row's `id`, kept lazily. Appends
// never touch it; a search first indexes the rows above the stored high-water mark. SQLite has one
// writer at a time and `id` is AUTOINCREMENT, so ids are handed out in commit order and never
// reused: every row above the mark is a row not indexed yet, and no row can commit below it later.
import {
  EpisodicError,
  type LedgerSearchPlan,
  type LedgerSearchRow,
  renderFts5Match,
  SNIPPET_ELLIPSIS,
  SNIPPET_MATCH_END,
  SNIPPET_MATCH_START,
  SNIPPET_TOKENS,
  searchTextOfLedgerRow,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import { SEARCH_INDEX_DDL } from './migrations.js';

/** Rows indexed per IMMEDIATE transaction while catching up: keeps the write lock short. */
const CATCH_UP_BATCH = 2000;

/** The search index of one connection. */
export interface SqliteSearchIndex {
  /** Indexes every row above the mark (in short IMMEDIATE transactions); returns rows indexed. */
  catchUp(): number;
  /** The rows a search selects (catch up first). */
  search(plan: LedgerSearchPlan): LedgerSearchRow[];
  /**
   * Inside a write transaction, after rows changed or went (redaction, GC, or any other writer,
   * listed by the triggers in `episodic_search_stale`): their old index rows go and the rows still
   * stored are indexed from their new text. Returns the rows handled.
   */
  refreshStale(): number;
  /** Merges the index's segments, so the terms of deleted index rows leave the file. */
  optimize(): void;
  /** Drops the index, makes it again, and indexes every row: returns rows indexed. */
  rebuild(): number;
}

/** The ledger's search index over `database` (schema 14 or later). */
export function createSqliteSearchIndex(database: Database.Database): SqliteSearchIndex {
  const readMark = database
    .prepare("SELECT value FROM episodic_search_state WHERE name = 'indexed_through'")
    .pluck()
    .safeIntegers(true);
  const writeMark = database.prepare(
    "UPDATE episodic_search_state SET value = ? WHERE name = 'indexed_through'",
  );
  const newRows = database
    .prepare(
      'SELECT id, summary, payload_json, refs_json FROM episodic_events WHERE id > ? ORDER BY id LIMIT ?',
    )
    .safeIntegers(true);
  const insert = database.prepare('INSERT INTO episodic_search (rowid, text) VALUES (?, ?)');
  const remove = database.prepare(
    'DELETE FROM episodic_search WHERE rowid IN (SELECT value FROM json_each(?))',
  );
  const rowsById = database.prepare(
    'SELECT id, summary, payload_json, refs_json FROM episodic_events WHERE id IN (SELECT value FROM json_each(?))',
  );
  const staleIds = database.prepare('SELECT id FROM episodic_search_stale').pluck();
  const clearStale = database.prepare('DELETE FROM episodic_search_stale');
  const refreshStale = (): number => {
    const ids = staleIds.all() as number[];
    if (ids.length === 0) return 0;
    const list = JSON.stringify(ids);
    remove.run(list);
    // Only rows at or below the mark were listed; the rows still stored get their new text.
    for (const row of rowsById.all(list) as TextRow[]) {
      insert.run(BigInt(row.id), searchTextOfLedgerRow(row));
    }
    clearStale.run();
    return ids.length;
  };
  type TextRow = {
    id: bigint | number;
    summary: string;
    payload_json: string | null;
    refs_json: string | null;
  };

  const catchUpTransaction = database.transaction((): number => {
    refreshStale();
    const mark = readMark.get() as bigint;
    const rows = newRows.all(mark, CATCH_UP_BATCH) as TextRow[];
    for (const row of rows) insert.run(BigInt(row.id), searchTextOfLedgerRow(row));
    const last = rows[rows.length - 1];
    if (last !== undefined) writeMark.run(BigInt(last.id));
    return rows.length;
  });
  const pending = database
    .prepare(
      "SELECT (SELECT count(*) FROM episodic_events WHERE id > (SELECT value FROM episodic_search_state WHERE name = 'indexed_through')) + (SELECT count(*) FROM episodic_search_stale)",
    )
    .pluck();
  const optimizeTransaction = database.transaction(() => {
    database.exec("INSERT INTO episodic_search(episodic_search) VALUES ('optimize')");
  });
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };

  // A read-only store's connection is `query_only` (or opened read-only): it cannot index.
  const readOnly = () => database.readonly || database.pragma('query_only', { simple: true }) === 1;
  const catchUp = () => {
    if (readOnly()) {
      const behind = pending.get() as number;
      if (behind > 0) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message: `The search index is ${behind} events behind the ledger and this connection is read-only, so it cannot index them. Open the database writable once (any search indexes them), then search again.`,
          details: { pending: behind },
        });
      }
      return 0;
    }
    let total = 0;
    for (;;) {
      const count = catchUpTransaction.immediate() as number;
      total += count;
      if (count < CATCH_UP_BATCH) return total;
    }
  };

  return {
    catchUp,
    search(plan) {
      catchUp();
      const where = ['episodic_search MATCH ?'];
      const parameters: unknown[] = [renderFts5Match(plan.match)];
      if (plan.scope !== null) {
        where.push('e.scope = ?');
        parameters.push(plan.scope);
      }
      if (plan.sessionId !== undefined) {
        where.push('e.session_id = ?');
        parameters.push(plan.sessionId);
      }
      if (plan.agentId !== undefined) {
        where.push('e.agent_id = ?');
        parameters.push(plan.agentId);
      }
      if (plan.fromTsMs !== undefined) {
        where.push('e.ts_ms >= ?');
        parameters.push(plan.fromTsMs);
      }
      if (plan.toTsMs !== undefined) {
        where.push('e.ts_ms <= ?');
        parameters.push(plan.toTsMs);
      }
      if (plan.types !== undefined) {
        where.push(`e.type IN (${plan.types.map(() => '?').join(', ')})`);
        parameters.push(...plan.types);
      }
      // bm25() is lower for better matches: the score is its negation, ties in id order.
      let after = '';
      if (plan.after !== undefined) {
        after = 'WHERE rank > ? OR (rank = ? AND id > ?)';
        parameters.push(-plan.after.score, -plan.after.score, BigInt(plan.after.sequence));
      }
      parameters.push(plan.limit);
      const snippet = `snippet(episodic_search, 0, '${SNIPPET_MATCH_START}', '${SNIPPET_MATCH_END}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS})`;
      const sql = `SELECT * FROM (
  SELECT e.id AS id, e.event_id, e.session_id, e.agent_id, e.type, e.ts_ms, e.metadata_json,
    bm25(episodic_search) AS rank, ${snippet} AS snippet
  FROM episodic_search JOIN episodic_events AS e ON e.id = episodic_search.rowid
  WHERE ${where.join(' AND ')}
) ${after} ORDER BY rank, id LIMIT ?`;
      const rows = prepare(sql).all(...parameters) as Array<
        Omit<LedgerSearchRow, 'sequence' | 'score'> & { id: number; rank: number }
      >;
      return rows.map(({ id, rank, ...row }) => ({ ...row, sequence: id, score: -rank }));
    },
    refreshStale,
    optimize() {
      optimizeTransaction.immediate();
    },
    rebuild() {
      database
        .transaction(() => {
          database.exec(`DROP TABLE IF EXISTS episodic_search;
${SEARCH_INDEX_DDL}`);
          writeMark.run(0);
          clearStale.run();
        })
        .immediate();
      return catchUp();
    },
  };
}
