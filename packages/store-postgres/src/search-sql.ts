// What the ledger's search (postgres-ledger.ts) and the run records' search
// (postgres-run-search.ts) share: the cap on ranked matches, the rank expression, and the loop
// that recomputes stored vectors in short transactions.
import type pg from 'pg';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * How many matches a search ranks: the newest `RANKED_MATCHES` rows matching inside the scope
 * and filters, as in the SQLite store. Ranking every match of a word in most rows reads and
 * scores each of them (seconds at 1M rows); older matches are found by narrowing the search (a
 * time range, a session, a type).
 */
export const RANKED_MATCHES = 10_000;

/** Rows per transaction when stored search vectors are recomputed (rebuilds and backfills). */
export const REINDEX_BATCH = 1000;

/**
 * The score of `vector` for `query`: `ts_rank_cd` with length normalization 1 (higher is better),
 * as `float8` so a cursor's score compares exactly with the next page's.
 */
export const rankSql = (vector: string, query: string) =>
  `ts_rank_cd(${vector}, ${query}, 1)::float8`;

/**
 * Runs `batch` in one transaction after another until one handles fewer than `REINDEX_BATCH`
 * rows (each batch keeps its own position between calls); returns the rows handled in all.
 */
export async function reindexInBatches(
  database: PostgresDatabase,
  batch: (client: pg.PoolClient) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await database.transaction(batch);
    total += count;
    if (count < REINDEX_BATCH) return total;
  }
}
