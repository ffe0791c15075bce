import type pg from 'pg';
import { withQueryTimeout } from './postgres-database.js';

/**
 * Removes the bytes of redacted and deleted rows from the server's table files. PostgreSQL never
 * overwrites a row in place: an `UPDATE` or `DELETE` leaves the old row version in the table's
 * pages, and a plain `VACUUM` only marks its space free (measured: 94 of 100 redacted values were
 * still in the heap file after `VACUUM`). `VACUUM FULL` writes the live rows into new files (the
 * table, its TOAST table and its indexes) and deletes the old ones, so nothing redacted is left
 * in them. It holds an ACCESS EXCLUSIVE lock on the table while it runs, so readers and writers of
 * that table wait; its cost grows with the table (see the README's "Redaction and VACUUM").
 */
export interface Scrubber {
  /** False when the store was opened with `scrubAfterErase: false`. */
  readonly enabled: boolean;
  /** Rewrites `tables` (qualified names); concurrent calls for one table share one rewrite. */
  scrub(tables: readonly string[]): Promise<void>;
}

/** `timeoutMs`: the limit of one rewrite, on the server and the client (0: none). */
export function createScrubber(pool: pg.Pool, enabled: boolean, timeoutMs: number): Scrubber {
  // Per table: the rewrite running now, and at most one queued after it. A call that arrives
  // while one is queued joins the queued one (it starts after the call's changes committed).
  const running = new Map<string, Promise<void>>();
  const queued = new Map<string, Promise<void>>();
  const rewrite = (table: string): Promise<void> => {
    const waiting = queued.get(table);
    if (waiting !== undefined) return waiting;
    const before = running.get(table) ?? Promise.resolve();
    const next = before
      .catch(() => undefined)
      .then(async () => {
        queued.delete(table);
        running.set(table, next);
        try {
          // VACUUM cannot run inside a transaction block: one plain statement, on a connection
          // whose statement timeout is the maintenance one for as long as it runs.
          const client = await pool.connect();
          let broken: Error | undefined;
          try {
            const queries = withQueryTimeout(client, timeoutMs);
            await queries.query(`SET statement_timeout = ${timeoutMs}`);
            await queries.query(`VACUUM (FULL) ${table}`);
            await queries.query('RESET statement_timeout');
          } catch (error) {
            // Whatever state the connection is in, it is not handed out again.
            broken = error as Error;
            throw error;
          } finally {
            client.release(broken);
          }
        } finally {
          if (running.get(table) === next) running.delete(table);
        }
      });
    queued.set(table, next);
    return next;
  };
  return {
    enabled,
    async scrub(tables) {
      if (!enabled) return;
      for (const table of tables) await rewrite(table);
    },
  };
}
