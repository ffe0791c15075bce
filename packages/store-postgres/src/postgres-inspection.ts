// What the CLI and @episodic/home read of a PostgreSQL store beyond its contracts (scope summaries,
// doctor's counts, a ledger row by id): the SQL stays here, in the store that owns the tables.
// Every function only reads.
import type pg from 'pg';
import { quoteIdentifier } from './postgres-database.js';

/** The pool and schema of a store (a `PostgresStore` has both). */
export interface PostgresTables {
  readonly pool: pg.Pool;
  readonly schema: string;
}

/** What the ledger holds for one scope. */
export interface PostgresScopeSummary {
  readonly scope: string;
  /** Ledger events (redacted ones included). */
  readonly events: number;
  /** Sessions of the scope with a head (a position) in the ledger. */
  readonly sessions: number;
  /** The oldest and newest event times (epoch ms). */
  readonly first_ts_ms: number;
  readonly last_ts_ms: number;
}

/** Every scope of the ledger with its counts, by scope name (two passes over the schema). */
export async function listPostgresScopeSummaries(
  store: PostgresTables,
): Promise<PostgresScopeSummary[]> {
  const schema = quoteIdentifier(store.schema);
  const events = await store.pool.query<{
    scope: string;
    events: string;
    first_ts_ms: string;
    last_ts_ms: string;
  }>(
    `SELECT scope, count(*) AS events, min(ts_ms) AS first_ts_ms, max(ts_ms) AS last_ts_ms FROM ${schema}.episodic_events GROUP BY scope`,
  );
  const heads = await store.pool.query<{ scope: string; sessions: string }>(
    `SELECT scope, count(*) AS sessions FROM ${schema}.episodic_session_heads GROUP BY scope`,
  );
  const sessions = new Map(heads.rows.map((row) => [row.scope, Number(row.sessions)]));
  return events.rows
    .map((row) => ({
      scope: row.scope,
      events: Number(row.events),
      sessions: sessions.get(row.scope) ?? 0,
      first_ts_ms: Number(row.first_ts_ms),
      last_ts_ms: Number(row.last_ts_ms),
    }))
    .sort((left, right) => (left.scope < right.scope ? -1 : left.scope > right.scope ? 1 : 0));
}

/** What `checkPostgresTables` counted: the ledger's events and every stored session, by id. */
export interface PostgresDatabaseCheck {
  readonly events: number;
  readonly sessionIds: string[];
}

/** Counts the ledger's events and lists the stored sessions (page integrity is the server's). */
export async function checkPostgresTables(store: PostgresTables): Promise<PostgresDatabaseCheck> {
  const schema = quoteIdentifier(store.schema);
  const counted = await store.pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM ${schema}.episodic_events`,
  );
  const sessions = await store.pool.query<{ session_id: string }>(
    `SELECT session_id FROM ${schema}.episodic_sessions ORDER BY session_id`,
  );
  return {
    events: counted.rows[0]?.count ?? 0,
    sessionIds: sessions.rows.map((row) => row.session_id),
  };
}

/** The columns of one ledger row that redaction needs to find the runs and sessions behind it. */
export interface PostgresLedgerEventRow {
  scope: string;
  session_id: string;
  refs_json: string | null;
}

/** One ledger row by event id (the Ledger contract has no read by id); undefined when absent. */
export async function readPostgresLedgerEventRow(
  store: PostgresTables,
  eventId: string,
): Promise<PostgresLedgerEventRow | undefined> {
  const { rows } = await store.pool.query<PostgresLedgerEventRow>(
    `SELECT scope, session_id, refs_json FROM ${quoteIdentifier(store.schema)}.episodic_events WHERE event_id = $1`,
    [eventId],
  );
  return rows[0];
}
