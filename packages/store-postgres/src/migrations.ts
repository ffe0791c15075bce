import { EpisodicError } from '@episodic/core';
import { renderTsVector, searchTextOfLedgerRow, summarizeSession } from '@episodic/core/adapter';
import type pg from 'pg';
import { type SlowQueries, type StoreTables, withQueryTimeout } from './postgres-database.js';
import { codeOf, isConnectionFailure } from './postgres-errors.js';
import { indexStoredRunScopes } from './postgres-run-search.js';
import { seedEventsDdl } from './schema-sql.js';

/** One schema step: it runs once, inside the migration transaction, and is recorded by version. */
interface Migration {
  readonly version: number;
  readonly description: string;
  sql(tables: StoreTables): string;
  /** Work after the SQL that needs core's code (e.g. summaries of stored rows), same transaction. */
  after?(client: SlowQueries, tables: StoreTables): Promise<void>;
}

/** Rows per batch when a migration step reads stored sessions. */
const SESSION_BATCH = 100;

/**
 * Migration 5's data step: the summary columns `list()` reads (so it never reads a base) for the
 * sessions stored before. Sessions are read in batches of their id, so a large table is never held
 * in memory at once.
 */
async function summarizeStoredSessions(client: SlowQueries, tables: StoreTables): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await client.query<{ session_id: string; state_json: string }>(
      `SELECT session_id, state_json FROM ${tables.sessions} WHERE session_id > $1 ORDER BY session_id LIMIT ${SESSION_BATCH}`,
      [after],
    );
    if (rows.length === 0) return;
    for (const row of rows) {
      const summary = summarizeSession({
        sessionId: row.session_id,
        base: row.state_json,
        lastDelta: null,
      });
      if (summary === null) continue;
      await client.query(
        `UPDATE ${tables.sessions} SET last_user_message = $2, episode_count = $3 WHERE session_id = $1`,
        [row.session_id, summary.lastUserMessage ?? null, summary.episodeCount ?? null],
      );
    }
    after = rows[rows.length - 1]?.session_id ?? after;
  }
}

/** Rows per batch when migration 6 indexes the stored ledger events. */
const SEARCH_BACKFILL_BATCH = 1000;

/**
 * Migration 6's data step: the search vector of every event stored before, from core's
 * `searchTextOfLedgerRow` (never text of the database's own), in batches of `id` so a large ledger
 * is never held in memory; then the GIN index, built once over the filled column (faster than
 * keeping it up to date row by row).
 */
async function indexStoredEvents(client: SlowQueries, tables: StoreTables): Promise<void> {
  let after = '0';
  for (;;) {
    const { rows } = await client.query<{
      id: string;
      summary: string;
      payload_json: string | null;
      refs_json: string | null;
    }>(
      `SELECT id, summary, payload_json, refs_json FROM ${tables.events} WHERE id > $1 ORDER BY id LIMIT ${SEARCH_BACKFILL_BATCH}`,
      [after],
    );
    if (rows.length === 0) break;
    await client.query(
      `UPDATE ${tables.events} e SET search_vector = v.vector::tsvector
FROM unnest($1::bigint[], $2::text[]) AS v(id, vector) WHERE e.id = v.id`,
      [rows.map((row) => row.id), rows.map((row) => renderTsVector(searchTextOfLedgerRow(row)))],
    );
    after = rows[rows.length - 1]?.id ?? after;
  }
  await client.query(
    `CREATE INDEX IF NOT EXISTS idx_episodic_events_search ON ${tables.events} USING gin (search_vector)`,
  );
}

/**
 * The schema history, one version table per schema (`episodic_schema_migrations`). The same steps
 * as store-sqlite's, in the same order, so the two stores hold the same data in the same shapes.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'seed 002 episodic_events + positions, metadata and session heads',
    sql: seedEventsDdl,
  },
  {
    version: 2,
    description: 'session state snapshots',
    sql: (tables) => `CREATE TABLE IF NOT EXISTS ${tables.sessions} (
  session_id TEXT COLLATE "C" PRIMARY KEY,
  revision BIGINT NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  run_id TEXT,
  message_count BIGINT NOT NULL,
  state_json TEXT NOT NULL
);
CREATE OR REPLACE FUNCTION ${tables.schema}.episodic_json_valid(text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM $1::json;
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END
$$;`,
  },
  {
    version: 3,
    description: 'runs and run records',
    // Lines are stored as bytes: a run copied from files may hold what text columns refuse (NUL
    // runs, invalid UTF-8 in a damaged line), and reads decode them like a run file's.
    sql: (tables) => `CREATE TABLE IF NOT EXISTS ${tables.runs} (
  run_id TEXT COLLATE "C" PRIMARY KEY,
  header_json BYTEA NOT NULL,
  session_id TEXT,
  record_count BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS idx_episodic_runs_session ON ${tables.runs} (lower(session_id));
CREATE TABLE IF NOT EXISTS ${tables.runRecords} (
  run_id TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  json BYTEA NOT NULL,
  PRIMARY KEY (run_id, seq)
);`,
  },
  {
    version: 4,
    description: 'artifacts, their episode associations and episode metadata',
    sql: (tables) => `CREATE TABLE IF NOT EXISTS ${tables.artifacts} (
  key TEXT COLLATE "C" PRIMARY KEY,
  kind TEXT COLLATE "C" NOT NULL,
  content_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_episodic_artifacts_kind ON ${tables.artifacts} (kind, key);
CREATE TABLE IF NOT EXISTS ${tables.artifactEpisodes} (
  artifact_key TEXT COLLATE "C" NOT NULL REFERENCES ${tables.artifacts} (key) ON DELETE CASCADE,
  episode_ref TEXT COLLATE "C" NOT NULL,
  ordinal BIGINT NOT NULL,
  PRIMARY KEY (artifact_key, episode_ref)
);
CREATE INDEX IF NOT EXISTS idx_episodic_artifact_episodes_ref ON ${tables.artifactEpisodes} (episode_ref, artifact_key);
CREATE TABLE IF NOT EXISTS ${tables.episodeMetadata} (
  episode_ref TEXT COLLATE "C" PRIMARY KEY,
  metadata_json TEXT NOT NULL
);`,
  },
  {
    version: 5,
    description: 'sessions as a base plus deltas',
    // A session is its base (episodic_sessions.state_json, rewritten only by a fold or a save) plus
    // one row per commit since. The sizes row is what every commit locks and updates: the
    // session's revision and what the fold policy needs, in a narrow row of its own (a row update
    // writes a new version of the whole row; fillfactor leaves room for HOT updates in place).
    // Session ids were stored as given before; the store now keys them in lowercase.
    sql: (tables) => `ALTER TABLE ${tables.sessions} ADD COLUMN IF NOT EXISTS episode_count BIGINT;
ALTER TABLE ${tables.sessions} ADD COLUMN IF NOT EXISTS last_user_message TEXT;
UPDATE ${tables.sessions} s SET session_id = lower(s.session_id)
WHERE s.session_id <> lower(s.session_id)
  AND NOT EXISTS (SELECT 1 FROM ${tables.sessions} t WHERE t.session_id = lower(s.session_id));
CREATE TABLE IF NOT EXISTS ${tables.sessionDeltas} (
  session_id TEXT COLLATE "C" NOT NULL,
  revision BIGINT NOT NULL,
  line TEXT NOT NULL,
  PRIMARY KEY (session_id, revision)
);
CREATE TABLE IF NOT EXISTS ${tables.sessionSizes} (
  session_id TEXT COLLATE "C" PRIMARY KEY,
  revision BIGINT NOT NULL,
  base_bytes BIGINT NOT NULL,
  delta_count BIGINT NOT NULL,
  delta_bytes BIGINT NOT NULL
) WITH (fillfactor = 50);
INSERT INTO ${tables.sessionSizes} (session_id, revision, base_bytes, delta_count, delta_bytes)
SELECT session_id, revision, octet_length(state_json), 0, 0 FROM ${tables.sessions}
ON CONFLICT (session_id) DO NOTHING;`,
    after: summarizeStoredSessions,
  },
  {
    version: 6,
    description: 'full-text search: a tsvector of each ledger event and its GIN index',
    // Filled by the store in the append transaction (and here for the rows stored before); a row
    // another writer inserts without it is NULL, found by no search until `rebuildSearchIndex`.
    sql: (tables) =>
      `ALTER TABLE ${tables.events} ADD COLUMN IF NOT EXISTS search_vector tsvector;`,
    after: indexStoredEvents,
  },
  {
    version: 7,
    description: 'full-text search of run records: type, time and tsvector of each line, GIN index',
    // Columns on the record rows rather than a side table: an append stays one INSERT, and a
    // redaction's UPDATE of a line and a deletion of a run's rows change the vector with the line
    // they come from (nothing to keep in step). The runs' scopes are set here (a row per run);
    // the lines stored before are indexed after this transaction, in batches
    // (`finishRunSearchBackfill`), from the key the backfill table holds while any are left.
    // The search ranks the newest 10,000 matches: `idx_episodic_run_records_newest` is that
    // order, so a word in most lines is read newest first until the cap (~10× faster at 100,000
    // lines) instead of every match being fetched and sorted.
    sql: (tables) => `ALTER TABLE ${tables.runRecords} ADD COLUMN IF NOT EXISTS type TEXT;
ALTER TABLE ${tables.runRecords} ADD COLUMN IF NOT EXISTS ts_ms BIGINT;
ALTER TABLE ${tables.runRecords} ADD COLUMN IF NOT EXISTS search_vector tsvector;
ALTER TABLE ${tables.runs} ADD COLUMN IF NOT EXISTS scope TEXT;
CREATE INDEX IF NOT EXISTS idx_episodic_run_records_search ON ${tables.runRecords} USING gin (search_vector);
CREATE INDEX IF NOT EXISTS idx_episodic_run_records_newest ON ${tables.runRecords} (ts_ms DESC NULLS LAST, run_id DESC, seq DESC);
CREATE INDEX IF NOT EXISTS idx_episodic_runs_scope ON ${tables.runs} (scope);
CREATE TABLE IF NOT EXISTS ${tables.runSearchBackfill} (
  run_id TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL
);
INSERT INTO ${tables.runSearchBackfill} (run_id, seq)
SELECT '', 0 WHERE EXISTS (SELECT 1 FROM ${tables.runRecords});`,
    after: async (client, tables) => {
      await indexStoredRunScopes(client, tables);
    },
  },
];

/** The schema version this package writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** Advisory lock keys: one class for Episodic's migrations, one key per schema. */
const LOCK_CLASS = 0x45504953; // "EPIS"

async function versionOf(client: SlowQueries, tables: StoreTables): Promise<number> {
  try {
    const result = await client.query<{ version: number | null }>(
      `SELECT max(version)::integer AS version FROM ${tables.migrations}`,
    );
    return result.rows[0]?.version ?? 0;
  } catch (error) {
    // 42P01: no version table yet; 3F000: no schema yet.
    if (codeOf(error) === '42P01' || codeOf(error) === '3F000') return 0;
    throw error;
  }
}

function tooNew(current: number): EpisodicError {
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message: `This PostgreSQL schema has Episodic schema version ${current}, newer than the ${SCHEMA_VERSION} this @episodic/store-postgres understands. Upgrade @episodic/store-postgres; the database was not changed.`,
    details: { schemaVersion: current, supported: SCHEMA_VERSION },
  });
}

/**
 * Brings the schema up to date and returns its version. Already current: one read, no lock.
 * Otherwise every missing step runs in ONE transaction holding a transaction-level advisory lock
 * for this schema, re-reading the version under it, so any number of processes opening an old or
 * empty schema at once migrate it exactly once (PostgreSQL's DDL is transactional: a failed step
 * leaves nothing behind). A schema from a newer version of this package is refused (`UNSUPPORTED`).
 */
export async function migrate(
  pool: pg.Pool,
  tables: StoreTables,
  schema: string,
  timeoutMs: number,
): Promise<number> {
  const connection = await pool.connect();
  let broken: Error | undefined;
  try {
    const seen = await versionOf(connection, tables);
    if (seen > SCHEMA_VERSION) throw tooNew(seen);
    if (seen === SCHEMA_VERSION) return seen;
    // The steps (and waiting for another process's migration) get the maintenance timeout, on
    // the client and, for this transaction only, on the server.
    const client = withQueryTimeout(connection, timeoutMs);
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL statement_timeout = ${timeoutMs}`);
      await client.query('SELECT pg_advisory_xact_lock($1::integer, hashtext($2))', [
        LOCK_CLASS,
        schema,
      ]);
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${tables.schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${tables.migrations} (
  version INTEGER PRIMARY KEY,
  description TEXT NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`);
      const current = await versionOf(client, tables);
      if (current > SCHEMA_VERSION) throw tooNew(current);
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query(migration.sql(tables));
        await migration.after?.(client, tables);
        await client.query(
          `INSERT INTO ${tables.migrations} (version, description) VALUES ($1, $2)`,
          [migration.version, migration.description],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      // A server that is gone or did not answer would not answer a ROLLBACK either: the
      // connection is discarded, and the server rolls back when it sees it close.
      if (isConnectionFailure(error)) broken = error as Error;
      else {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError as Error;
        }
      }
      throw error;
    }
    return SCHEMA_VERSION;
  } catch (error) {
    // A connection whose reply never came must not go back to the pool.
    if (isConnectionFailure(error)) broken ??= error as Error;
    throw error;
  } finally {
    connection.release(broken);
  }
}
