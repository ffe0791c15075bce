// What the CLI, the UI and @episodic/home read of a SQLite store beyond its contracts (scope
// summaries, doctor's checks, detection, migration): the SQL stays here, in the store that owns
// the tables. Every function only reads.
import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { openSqliteDatabase } from './open-database.js';

/** What the ledger holds for one scope. */
export interface SqliteScopeSummary {
  readonly scope: string;
  /** Ledger events (redacted ones included). */
  readonly events: number;
  /** Sessions of the scope with a head (a position) in the ledger. */
  readonly sessions: number;
  /** The oldest and newest event times (epoch ms). */
  readonly first_ts_ms: number;
  readonly last_ts_ms: number;
}

const byScope = (left: { scope: string }, right: { scope: string }) =>
  left.scope < right.scope ? -1 : left.scope > right.scope ? 1 : 0;

/**
 * Every scope of the ledger with its counts, by scope name. One indexed pass over
 * `episodic_events` (its `(scope, ts_ms)` index covers it) and one over the session heads.
 */
export function listSqliteScopeSummaries(database: Database): SqliteScopeSummary[] {
  const events = database
    .prepare(
      'SELECT scope, count(*) AS events, min(ts_ms) AS first_ts_ms, max(ts_ms) AS last_ts_ms FROM episodic_events GROUP BY scope',
    )
    .all() as { scope: string; events: number; first_ts_ms: number; last_ts_ms: number }[];
  const sessions = new Map(
    (
      database
        .prepare('SELECT scope, count(*) AS sessions FROM episodic_session_heads GROUP BY scope')
        .all() as { scope: string; sessions: number }[]
    ).map((row) => [row.scope, row.sessions]),
  );
  return events.map((row) => ({ ...row, sessions: sessions.get(row.scope) ?? 0 })).sort(byScope);
}

/** Every scope with a session head, sorted: one index seek per scope (the heads' key starts with it). */
export function listSqliteSessionScopes(database: Database): string[] {
  return database
    .prepare(
      `WITH RECURSIVE scopes(scope) AS (
         SELECT min(scope) FROM episodic_session_heads
         UNION ALL
         SELECT (SELECT min(scope) FROM episodic_session_heads WHERE scope > scopes.scope)
         FROM scopes WHERE scopes.scope IS NOT NULL
       ) SELECT scope FROM scopes WHERE scope IS NOT NULL`,
    )
    .pluck()
    .all() as string[];
}

/**
 * A reader of the stored size in bytes (the JSONL form: each record's JSON and a newline) of a run
 * kept in the database; undefined for a run it does not hold.
 */
export function sqliteRunBytes(database: Database): (runId: string) => number | undefined {
  const statement = database.prepare(
    'SELECT sum(length(CAST(json AS BLOB)) + 1) AS bytes FROM episodic_run_records WHERE run_id = ?',
  );
  return (runId) => {
    const row = statement.get(runId) as { bytes: number | null } | undefined;
    return row?.bytes ?? undefined;
  };
}

/** The columns of one ledger row that redaction needs to find the runs and sessions behind it. */
export interface SqliteLedgerEventRow {
  scope: string;
  session_id: string;
  refs_json: string | null;
}

/** One ledger row by event id (the Ledger contract has no read by id); undefined when absent. */
export function readSqliteLedgerEventRow(
  database: Database,
  eventId: string,
): SqliteLedgerEventRow | undefined {
  return database
    .prepare('SELECT scope, session_id, refs_json FROM episodic_events WHERE event_id = ?')
    .get(eventId) as SqliteLedgerEventRow | undefined;
}

/** What `checkSqliteDatabase` found, before the sessions and runs are read through the stores. */
export interface SqliteDatabaseCheck {
  /** SQLite's `PRAGMA integrity_check`. */
  readonly integrity: 'ok' | 'damaged';
  /** What `integrity_check` said when it was not `ok` (at most 20 lines). */
  readonly integrityMessages: string[];
  readonly events: number;
  /** Ledger events with a JSON column (payload, refs or metadata) that is not valid JSON (at most 1000). */
  readonly invalidJsonEvents: { event_id: string; scope: string }[];
  /** Every stored session, by id. */
  readonly sessionIds: string[];
}

function rowsOrNone<Row>(database: Database, sql: string): Row[] {
  try {
    return database.prepare(sql).all() as Row[];
  } catch {
    // A table this version does not have yet (an older file): nothing to check there.
    return [];
  }
}

/** Checks the file's pages and the ledger's JSON columns, and lists the stored sessions. */
export function checkSqliteDatabase(database: Database): SqliteDatabaseCheck {
  const integrityRows = database.prepare('PRAGMA integrity_check').pluck().all() as string[];
  const integrity = integrityRows.length === 1 && integrityRows[0] === 'ok' ? 'ok' : 'damaged';
  const [{ count: events } = { count: 0 }] = rowsOrNone<{ count: number }>(
    database,
    'SELECT count(*) AS count FROM episodic_events',
  );
  const invalidJsonEvents = rowsOrNone<{ event_id: string; scope: string }>(
    database,
    `SELECT event_id, scope FROM episodic_events
     WHERE (payload_json IS NOT NULL AND json_valid(payload_json) = 0)
        OR (refs_json IS NOT NULL AND json_valid(refs_json) = 0)
        OR (metadata_json IS NOT NULL AND json_valid(metadata_json) = 0)
     LIMIT 1000`,
  );
  const sessionIds = rowsOrNone<{ session_id: string }>(
    database,
    'SELECT session_id FROM episodic_sessions ORDER BY session_id',
  ).map((row) => row.session_id);
  return {
    integrity,
    integrityMessages: integrity === 'ok' ? [] : integrityRows.slice(0, 20),
    events,
    invalidJsonEvents,
    sessionIds,
  };
}

/**
 * Whether the database file holds any run or session, read without changing anything. A file that
 * cannot be read says no.
 */
export function sqliteDatabaseHoldsRuns(filename: string): boolean {
  // Only a regular file is opened: SQLite would block on a FIFO in its place.
  if (filename === ':memory:' || statSync(filename, { throwIfNoEntry: false })?.isFile() !== true)
    return false;
  let connection: Database | undefined;
  try {
    connection = openSqliteDatabase(filename, { readOnly: true });
    return (
      connection
        .prepare(
          'SELECT EXISTS (SELECT 1 FROM episodic_runs) OR EXISTS (SELECT 1 FROM episodic_sessions)',
        )
        .pluck()
        .get() === 1
    );
  } catch {
    return false;
  } finally {
    connection?.close();
  }
}

/** One artifact as stored, with its episodes in order (what a migration copies). */
export interface SqliteArtifactRow {
  readonly key: string;
  readonly kind: string;
  readonly content_json: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly episodes: string[];
}

/** Every session head (scope, session, position): a migration copies them beside the ledger. */
export function readSqliteSessionHeads(
  database: Database,
): Array<{ scope: string; session_id: string; position: number }> {
  return database
    .prepare('SELECT scope, session_id, position FROM episodic_session_heads')
    .all() as Array<{ scope: string; session_id: string; position: number }>;
}

/** Every artifact as stored, by key, with its episodes in order (what a migration copies). */
export function readSqliteArtifactRows(database: Database): SqliteArtifactRow[] {
  const episodesOf = database
    .prepare(
      'SELECT episode_ref FROM episodic_artifact_episodes WHERE artifact_key = ? ORDER BY ordinal',
    )
    .pluck();
  return (
    database
      .prepare(
        'SELECT key, kind, content_json, created_at, updated_at FROM episodic_artifacts ORDER BY key',
      )
      .all() as Omit<SqliteArtifactRow, 'episodes'>[]
  ).map((row) => ({ ...row, episodes: episodesOf.all(row.key) as string[] }));
}

/** Every episode's metadata as stored, by episode ref (what a migration copies). */
export function readSqliteEpisodeMetadataRows(
  database: Database,
): Array<{ episode_ref: string; metadata_json: string }> {
  return database
    .prepare(
      'SELECT episode_ref, metadata_json FROM episodic_episode_metadata ORDER BY episode_ref',
    )
    .all() as Array<{ episode_ref: string; metadata_json: string }>;
}
