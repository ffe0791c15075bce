// The ledger's full-text index in the same file: an FTS5 table (`episodic_search`) holding core's
// `searchTextOfLedgerRow` of each `episodic_events` row under the row's `id`, kept lazily. Appends
// never touch it; a search first indexes the rows above the stored high-water mark. SQLite has one
// writer at a time and `id` is AUTOINCREMENT, so ids are handed out in commit order and never
// reused: every row above the mark is a row not indexed yet, and no row can commit below it later.
import {
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
import { CATCH_UP_BATCH, lazyIndexCatchUp, statementCache } from './sqlite-lazy-index.js';

/**
 * How many matches a search ranks: the newest `RANKED_MATCHES` events (highest `id`) that match
 * the words inside the scope and filters. BM25 over every match of a word in most events costs
 * ~0.6 s at 1M events (a primary-key lookup and a score per match); the newest 10,000 take
 * ~30 ms. Older matches are found by narrowing the search (a time range, a session, a type).
 */
export const RANKED_MATCHES = 10_000;

/**
 * The SQL of one search: the newest `ranked` matches inside the scope and filters (FTS5 walks its
 * doclist by descending rowid and stops there), scored with BM25 as they are read, then the
 * best `limit` of them, ties in id order. FTS5 drives the join (`CROSS JOIN`: with the events
 * table outside, SQLite may look a common word up once per row of a filter's index range,
 * seconds at 1M events). Snippets are read afterwards for the page's rows only
 * (`SNIPPET_SQL`). Exported for tests.
 */
export function searchSql(
  plan: LedgerSearchPlan,
  ranked: number,
): { text: string; values: Record<string, unknown> } {
  // Named parameters (better-sqlite3 binds an object to them).
  const values: Record<string, unknown> = { match: renderFts5Match(plan.match) };
  const where: string[] = [];
  const condition = (sql: string, value: unknown) => {
    const name = `p${Object.keys(values).length}`;
    values[name] = value;
    where.push(sql.replace('?', `@${name}`));
  };
  if (plan.scope !== null) condition('e.scope = ?', plan.scope);
  if (plan.sessionId !== undefined) condition('e.session_id = ?', plan.sessionId);
  if (plan.agentId !== undefined) condition('e.agent_id = ?', plan.agentId);
  if (plan.fromTsMs !== undefined) condition('e.ts_ms >= ?', plan.fromTsMs);
  if (plan.toTsMs !== undefined) condition('e.ts_ms <= ?', plan.toTsMs);
  if (plan.types !== undefined) {
    const names = plan.types.map((type, index) => {
      values[`t${index}`] = type;
      return `@t${index}`;
    });
    where.push(`e.type IN (${names.join(', ')})`);
  }
  const filters = where.map((sql) => ` AND ${sql}`).join('');
  // A session or a time range picks few events out of many: their ids bound the rowids FTS5
  // reads (it seeks to the range in each doclist), so a common word does not walk every match.
  let bounds = '';
  if (plan.sessionId !== undefined || plan.fromTsMs !== undefined || plan.toTsMs !== undefined) {
    const inRange = where.map((sql) => sql.replaceAll('e.', 'b.')).join(' AND ');
    bounds = ` AND episodic_search.rowid BETWEEN (SELECT min(b.id) FROM episodic_events AS b WHERE ${inRange}) AND (SELECT max(b.id) FROM episodic_events AS b WHERE ${inRange})`;
  }
  let after = '';
  if (plan.after !== undefined) {
    // bm25() is lower for better matches: the score is its negation, ties in id order.
    after = 'WHERE rank > @rank OR (rank = @rank AND id > @sequence)';
    values.rank = -plan.after.score;
    values.sequence = BigInt(plan.after.sequence);
  }
  values.limit = plan.limit;
  const text = `SELECT * FROM (
  SELECT e.id AS id, e.event_id, e.session_id, e.agent_id, e.type, e.ts_ms, e.metadata_json,
    bm25(episodic_search) AS rank
  FROM episodic_search CROSS JOIN episodic_events AS e ON e.id = episodic_search.rowid
  WHERE episodic_search MATCH @match${filters}${bounds}
  ORDER BY episodic_search.rowid DESC LIMIT ${Math.trunc(ranked)}
) ${after} ORDER BY rank, id LIMIT @limit`;
  return { text, values };
}

/**
 * The snippet of one hit: FTS5's `snippet()` of the row, for the same match. Bind `id` as a
 * BigInt: FTS5 ignores a `rowid =` constraint given a REAL (a JS number) and reads every match.
 */
const SNIPPET_SQL = `SELECT snippet(episodic_search, 0, '${SNIPPET_MATCH_START}', '${SNIPPET_MATCH_END}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS}) FROM episodic_search WHERE episodic_search MATCH @match AND rowid = @id`;

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
  const snippetOf = database.prepare(SNIPPET_SQL).pluck();
  const prepare = statementCache(database);

  const catchUp = lazyIndexCatchUp(database, {
    pending,
    batch: () => catchUpTransaction.immediate() as number,
    behindMessage: (behind) =>
      `The search index is ${behind} events behind the ledger and this connection is read-only, so it cannot index them. Open the database writable once (any search indexes them), then search again.`,
  });

  return {
    catchUp,
    search(plan) {
      catchUp();
      const sql = searchSql(plan, RANKED_MATCHES);
      const rows = prepare(sql.text).all(sql.values) as Array<
        Omit<LedgerSearchRow, 'sequence' | 'score' | 'snippet'> & { id: number; rank: number }
      >;
      const match = sql.values.match;
      return rows.map(({ id, rank, ...row }) => ({
        ...row,
        sequence: id,
        score: -rank,
        snippet: (snippetOf.get({ match, id: BigInt(id) }) as string | undefined) ?? '',
      }));
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
