// What the ledger's and the run records' FTS5 indexes share (sqlite-search.ts,
// sqlite-run-search.ts): both are kept lazily, caught up by the search that needs them in short
// IMMEDIATE transactions, and both prepare their query shapes once per connection.
import { EpisodicError } from '@episodic/core/adapter';
import type Database from 'better-sqlite3';

/** Rows indexed per IMMEDIATE transaction while catching up: keeps the write lock short. */
export const CATCH_UP_BATCH = 2000;

/** How one lazily kept index catches up. */
interface LazyIndexCatchUp {
  /** A plucked statement: how many rows wait to be indexed (new above the mark, or stale). */
  readonly pending: Database.Statement;
  /**
   * Indexes the next batch of at most `CATCH_UP_BATCH` rows in one IMMEDIATE transaction (the
   * caller's `…Transaction.immediate()`, so open-database.test.ts sees every write is IMMEDIATE);
   * returns how many it indexed.
   */
  readonly batch: () => number;
  /** The read-only refusal, for `behind` rows waiting: what is behind and how to fix it. */
  readonly behindMessage: (behind: number) => string;
}

/**
 * The catch-up of a lazily kept index: nothing when nothing waits (no write transaction, no
 * lock: the usual search), else batches until one comes back short. A read-only connection
 * (opened read-only or `query_only`) cannot index: with rows waiting it is `UNSUPPORTED`.
 * Returns the rows indexed.
 */
export function lazyIndexCatchUp(
  database: Database.Database,
  { pending, batch, behindMessage }: LazyIndexCatchUp,
): () => number {
  const readOnly = () => database.readonly || database.pragma('query_only', { simple: true }) === 1;
  return () => {
    // A row committed after this read is one committed after the search, as it would be anyway.
    const behind = pending.get() as number;
    if (behind === 0) return 0;
    if (readOnly()) {
      throw new EpisodicError({
        code: 'UNSUPPORTED',
        message: behindMessage(behind),
        details: { pending: behind },
      });
    }
    let total = 0;
    for (;;) {
      const count = batch();
      total += count;
      if (count < CATCH_UP_BATCH) return total;
    }
  };
}

/** `database.prepare`, once per distinct SQL text (a search's shape depends on its filters). */
export function statementCache(database: Database.Database): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}
