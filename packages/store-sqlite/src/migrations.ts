import { EpisodicError } from '@episodic/core';
import { summarizeSession } from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import { newBaseGeneration, splitBaseBytes } from './base-chunks.js';
import { CHAIN_MIGRATION } from './migration-15-chain.js';
import { SEED_EVENTS_DDL } from './schema-sql.js';

/**
 * The ledger's search index: one FTS5 row per `episodic_events` row (its `id` as the rowid), the
 * text `searchTextOfLedgerRow` gives. Kept lazily: `episodic_search_state.indexed_through` is the
 * highest `id` indexed; a search indexes the rows above it first.
 */
export const SEARCH_INDEX_DDL = `CREATE VIRTUAL TABLE IF NOT EXISTS episodic_search USING fts5(
  text,
  tokenize = 'unicode61 remove_diacritics 2'
);`;

/**
 * The run records' search index (schema 16): one FTS5 row per `episodic_run_records` row (its
 * `rowid` as the rowid), the text `searchFieldsOfRunLine` gives, with the row's run, position,
 * record type and time as unindexed columns (filters and hits need no join). Kept lazily like
 * the ledger's: `episodic_run_search_state.indexed_through` is the highest rowid indexed.
 */
export const RUN_SEARCH_INDEX_DDL = `CREATE VIRTUAL TABLE IF NOT EXISTS episodic_run_search USING fts5(
  text,
  run_id UNINDEXED,
  seq UNINDEXED,
  type UNINDEXED,
  ts_ms UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);`;

/** One schema step: it runs once, inside an IMMEDIATE transaction, and bumps `user_version`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  up(database: Database.Database): void;
}

function columnsOf(database: Database.Database, table: string): Set<string> {
  const rows = database.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  return new Set(rows.map((row) => row.name));
}

/**
 * The view that gives each session's base whole, as `episodic_session_states.state_json` did
 * before schema 10: its rows' `lines` joined in `chunk` order. Other tools read it (a seed 001
 * reader, the `sqlite3` shell, Python), so it must parse in every SQLite from 3.37 on:
 * `group_concat(x, '' ORDER BY y)` needs 3.44, and a file whose schema an engine cannot parse
 * fails there on every statement. So each base's rows are aggregated from a subquery ordered by
 * chunk, for one session at a time (no GROUP BY, so no sort of its own reorders them, and a
 * `WHERE session_id = ?` on the view reads that session's rows only). group_concat over such a
 * subquery keeps its order: SQLite's optimizer neither flattens an ordered subquery into an
 * aggregate query nor drops its ORDER BY there, and its own test suite checks exactly this form
 * (ticket 2942, `SELECT group_concat(x) FROM (SELECT … ORDER BY …)`); our tests check it on
 * SQLite 3.36, 3.40 and the bundled one. A recursive CTE, whose order needs no such rule, copies
 * the text built so far at every row: 24 s of CPU for a base of forty 1 MiB rows on SQLite 3.40,
 * where this takes under a second.
 */
const SESSION_STATES_VIEW = `CREATE VIEW episodic_session_states AS
  SELECT ids.session_id AS session_id,
    (SELECT group_concat(base.lines, '') FROM (
      SELECT part.lines AS lines FROM episodic_session_base_chunks AS part
      WHERE part.session_id = ids.session_id ORDER BY part.chunk
    ) AS base) AS state_json
  FROM (SELECT DISTINCT session_id FROM episodic_session_base_chunks) AS ids`;

/**
 * Schema 13's stand-in for openclaw-mem's full-text index: an FTS5 table by its name without a
 * `search_text` column, which openclaw-mem replaces with its own, indexing every row (see
 * migration 13 and docs/design/openclaw-mem.md).
 */
export const OPENCLAW_SEARCH_INDEX_STAND_IN =
  "CREATE VIRTUAL TABLE IF NOT EXISTS episodic_events_fts USING fts5(summary, content='')";

/**
 * The schema history. Version 1 is the seed's table and indexes plus our ledger columns; later
 * versions add tables. A database left by the seed's own implementation (the v0 table, with rows,
 * `user_version` 0) is upgraded in place: its rows get session positions in `(ts_ms, id)` order.
 * Version 5 keeps it that way while the seed's implementation goes on appending to the same file:
 * its new rows get the next position of their session.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'seed 002 episodic_events + positions, metadata and session heads',
    up(database) {
      database.exec(SEED_EVENTS_DDL);
      const columns = columnsOf(database, 'episodic_events');
      if (!columns.has('position')) {
        database.exec('ALTER TABLE episodic_events ADD COLUMN position INTEGER');
      }
      if (!columns.has('metadata_json')) {
        database.exec('ALTER TABLE episodic_events ADD COLUMN metadata_json TEXT');
      }
      database.exec(`CREATE TABLE IF NOT EXISTS episodic_session_heads (
  scope TEXT NOT NULL,
  session_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (scope, session_id)
) WITHOUT ROWID`);
      // Rows written before positions existed are numbered per (scope, session) in timeline order.
      database.exec(`WITH numbered AS (
  SELECT id, row_number() OVER (PARTITION BY scope, session_id ORDER BY ts_ms, id) AS n
  FROM episodic_events WHERE position IS NULL
)
UPDATE episodic_events SET position = numbered.n FROM numbered WHERE episodic_events.id = numbered.id`);
      database.exec(`INSERT INTO episodic_session_heads (scope, session_id, position)
SELECT scope, session_id, max(position) FROM episodic_events GROUP BY scope, session_id
ON CONFLICT (scope, session_id) DO UPDATE SET position = max(position, excluded.position)`);
    },
  },
  {
    version: 2,
    description: 'session state snapshots',
    up(database) {
      database.exec(`CREATE TABLE IF NOT EXISTS episodic_sessions (
  session_id TEXT PRIMARY KEY,
  revision INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  run_id TEXT,
  message_count INTEGER NOT NULL,
  state_json TEXT NOT NULL
)`);
    },
  },
  {
    version: 3,
    description: 'runs and run records',
    up(database) {
      database.exec(`CREATE TABLE IF NOT EXISTS episodic_runs (
  run_id TEXT PRIMARY KEY,
  header_json TEXT NOT NULL,
  session_id TEXT,
  record_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS idx_episodic_runs_session ON episodic_runs(session_id);
CREATE TABLE IF NOT EXISTS episodic_run_records (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
)`);
    },
  },
  {
    version: 4,
    description: 'artifacts, their episode associations and episode metadata',
    up(database) {
      // Artifact content can be 64 KB, so the artifact table keeps its rowid (large rows do not
      // belong in a WITHOUT ROWID b-tree); the two narrow tables are keyed by what they are read by.
      database.exec(`CREATE TABLE IF NOT EXISTS episodic_artifacts (
  key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  content_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_episodic_artifacts_kind ON episodic_artifacts(kind, key);
CREATE TABLE IF NOT EXISTS episodic_artifact_episodes (
  artifact_key TEXT NOT NULL REFERENCES episodic_artifacts(key) ON DELETE CASCADE,
  episode_ref TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  PRIMARY KEY (artifact_key, episode_ref)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_episodic_artifact_episodes_ref ON episodic_artifact_episodes(episode_ref, artifact_key);
CREATE TABLE IF NOT EXISTS episodic_episode_metadata (
  episode_ref TEXT PRIMARY KEY,
  metadata_json TEXT NOT NULL
) WITHOUT ROWID`);
    },
  },
  {
    version: 5,
    description: 'positions for rows another writer (seed 002) appends to a migrated file',
    up(database) {
      // Rows another tool appended after an earlier migration have no position: each continues its
      // session from the session's head, in insertion order.
      database.exec(`WITH numbered AS (
  SELECT e.id, coalesce(h.position, 0) + row_number() OVER (PARTITION BY e.scope, e.session_id ORDER BY e.id) AS n
  FROM episodic_events AS e
  LEFT JOIN episodic_session_heads AS h ON h.scope = e.scope AND h.session_id = e.session_id
  WHERE e.position IS NULL
)
UPDATE episodic_events SET position = numbered.n FROM numbered WHERE episodic_events.id = numbered.id`);
      database.exec(`INSERT INTO episodic_session_heads (scope, session_id, position)
SELECT scope, session_id, max(position) FROM episodic_events GROUP BY scope, session_id
ON CONFLICT (scope, session_id) DO UPDATE SET position = max(position, excluded.position)`);
      // From now on SQLite numbers them as they arrive: seed 002's own implementation shares the
      // file and inserts without a position. Episodic's inserts always carry one (the WHEN skips them).
      database.exec(`CREATE TRIGGER IF NOT EXISTS episodic_events_position_for_other_writers
AFTER INSERT ON episodic_events WHEN NEW.position IS NULL
BEGIN
  INSERT OR IGNORE INTO episodic_session_heads (scope, session_id, position) VALUES (NEW.scope, NEW.session_id, 0);
  UPDATE episodic_session_heads SET position = position + 1 WHERE scope = NEW.scope AND session_id = NEW.session_id;
  UPDATE episodic_events SET position = (
    SELECT position FROM episodic_session_heads WHERE scope = NEW.scope AND session_id = NEW.session_id
  ) WHERE id = NEW.id;
END`);
    },
  },
  {
    version: 6,
    description: 'sessions as a base plus deltas',
    up(database) {
      // A session is its base (episodic_sessions.state_json, rewritten only by a fold or a save)
      // plus one row per commit since. The sizes the fold policy needs live in a small row of
      // their own: updating a row rewrites all of it, and the base row can be very large.
      const columns = columnsOf(database, 'episodic_sessions');
      if (!columns.has('episode_count')) {
        database.exec('ALTER TABLE episodic_sessions ADD COLUMN episode_count INTEGER');
      }
      if (!columns.has('last_user_message')) {
        database.exec('ALTER TABLE episodic_sessions ADD COLUMN last_user_message TEXT');
      }
      database.exec(`CREATE TABLE IF NOT EXISTS episodic_session_deltas (
  session_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  line TEXT NOT NULL,
  PRIMARY KEY (session_id, revision)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS episodic_session_sizes (
  session_id TEXT PRIMARY KEY,
  base_bytes INTEGER NOT NULL,
  delta_count INTEGER NOT NULL,
  delta_bytes INTEGER NOT NULL
) WITHOUT ROWID`);
      // Schema 10 moved the bases out of episodic_sessions (a database whose user_version was
      // set back has them in chunk rows already, with their sizes and summaries).
      if (!columnsOf(database, 'episodic_sessions').has('state_json')) return;
      // Schema 9 drops the delta columns (a database whose user_version was set back has none).
      const withDeltaColumns = columnsOf(database, 'episodic_session_sizes').has('delta_count');
      database.exec(
        withDeltaColumns
          ? `INSERT OR IGNORE INTO episodic_session_sizes (session_id, base_bytes, delta_count, delta_bytes)
SELECT session_id, length(CAST(state_json AS BLOB)), 0, 0 FROM episodic_sessions`
          : `INSERT OR IGNORE INTO episodic_session_sizes (session_id, base_bytes)
SELECT session_id, length(CAST(state_json AS BLOB)) FROM episodic_sessions`,
      );
      // The summary columns of the sessions stored before: list() reads them, never a base.
      const update = database.prepare(
        'UPDATE episodic_sessions SET last_user_message = ?, episode_count = ? WHERE session_id = ?',
      );
      for (const row of database
        .prepare('SELECT session_id, state_json FROM episodic_sessions')
        .iterate() as Iterable<{ session_id: string; state_json: string }>) {
        const summary = summarizeSession({
          sessionId: row.session_id,
          base: row.state_json,
          lastDelta: null,
        });
        if (summary === null) continue;
        update.run(summary.lastUserMessage ?? null, summary.episodeCount ?? null, row.session_id);
      }
    },
  },
  {
    version: 7,
    description: 'session ids in lower case',
    up(database) {
      // Up to schema 5 a session was keyed by its id as given; since 6 the store looks sessions up
      // by the lower-case id, so one saved as "0B7D…" could no longer be loaded, listed or
      // deleted. Re-key those rows (unless a lower-case twin exists: then both stay as they are).
      for (const table of ['episodic_sessions', 'episodic_session_sizes']) {
        database.exec(`UPDATE ${table} SET session_id = lower(session_id)
WHERE session_id <> lower(session_id)
  AND NOT EXISTS (SELECT 1 FROM ${table} AS twin WHERE twin.session_id = lower(${table}.session_id))`);
      }
      database.exec(`UPDATE episodic_session_deltas SET session_id = lower(session_id)
WHERE session_id <> lower(session_id)
  AND NOT EXISTS (SELECT 1 FROM episodic_session_deltas AS twin
    WHERE twin.session_id = lower(episodic_session_deltas.session_id)
      AND twin.revision = episodic_session_deltas.revision)`);
    },
  },
  {
    version: 8,
    description: 'session deltas in a rowid table',
    up(database) {
      // Schema 6 kept the deltas WITHOUT ROWID: a delta line (a turn's episodes, often over a
      // kilobyte) is too large for an index b-tree page, so every commit also wrote overflow
      // pages and split pages, and cost twice what the same insert costs in a rowid table.
      database.exec(`CREATE TABLE episodic_session_deltas_new (
  session_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  line TEXT NOT NULL,
  PRIMARY KEY (session_id, revision)
);
INSERT INTO episodic_session_deltas_new (session_id, revision, line)
  SELECT session_id, revision, line FROM episodic_session_deltas ORDER BY session_id, revision;
DROP TABLE episodic_session_deltas;
ALTER TABLE episodic_session_deltas_new RENAME TO episodic_session_deltas;`);
    },
  },
  {
    version: 9,
    description: 'session delta sizes in the delta rows',
    up(database) {
      // Up to schema 8 a commit also updated the session's sizes row (a second table, one more
      // page written per commit) for the fold policy. Each delta row now carries the bytes of
      // the deltas since the base up to and including itself, so a commit reads the last row and
      // writes only its own; the sizes row keeps the base's bytes, rewritten by a fold or a save.
      if (!columnsOf(database, 'episodic_session_deltas').has('bytes_since_base')) {
        database.exec(
          'ALTER TABLE episodic_session_deltas ADD COLUMN bytes_since_base INTEGER NOT NULL DEFAULT 0',
        );
      }
      database.exec(`UPDATE episodic_session_deltas SET bytes_since_base = running.bytes
FROM (SELECT rowid AS row, sum(length(CAST(line AS BLOB)) + 1)
        OVER (PARTITION BY session_id ORDER BY revision) AS bytes
      FROM episodic_session_deltas) AS running
WHERE episodic_session_deltas.rowid = running.row`);
      const sizes = columnsOf(database, 'episodic_session_sizes');
      for (const column of ['delta_count', 'delta_bytes']) {
        if (sizes.has(column))
          database.exec(`ALTER TABLE episodic_session_sizes DROP COLUMN ${column}`);
      }
    },
  },
  {
    version: 10,
    description: 'session bases in chunk rows',
    up(database) {
      // Up to schema 9 a base was one value (episodic_sessions.state_json), fetched whole: a load
      // of a long session held hundreds of megabytes at once before decoding its first line. A
      // base is now its lines in rows of about a mebibyte, read one row at a time (see
      // base-chunks.ts); the view episodic_session_states gives each base's text whole, as
      // state_json did. The bytes are moved as they are.
      database.exec(`CREATE TABLE IF NOT EXISTS episodic_session_base_chunks (
  session_id TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  lines TEXT NOT NULL,
  PRIMARY KEY (session_id, chunk)
);
${SESSION_STATES_VIEW.replace('CREATE VIEW', 'CREATE VIEW IF NOT EXISTS')}`);
      if (!columnsOf(database, 'episodic_sessions').has('state_json')) return;
      const ids = database
        .prepare('SELECT session_id FROM episodic_sessions')
        .pluck()
        .all() as string[];
      const base = database
        .prepare('SELECT CAST(state_json AS BLOB) FROM episodic_sessions WHERE session_id = ?')
        .pluck();
      const insert = database.prepare(
        'INSERT INTO episodic_session_base_chunks (session_id, chunk, generation, lines) VALUES (?, ?, ?, CAST(? AS TEXT))',
      );
      for (const id of ids) {
        const bytes = (base.get(id) as Buffer | null) ?? Buffer.alloc(0);
        const generation = newBaseGeneration();
        splitBaseBytes(bytes).forEach((chunk, index) => {
          insert.run(id, index, generation, chunk);
        });
      }
      database.exec('ALTER TABLE episodic_sessions DROP COLUMN state_json');
    },
  },
  {
    version: 11,
    description: 'session bases a fold writes in rows by section',
    up(database) {
      // Bases stay as they are, rows numbered 0, 1, 2, … A fold now writes a base in rows
      // numbered by section (see SECTION_ROWS in base-chunks.ts) and keeps the rows the next base
      // shares, which a reader of schema 10 would read as a base cut short: the version makes such
      // a reader refuse the database instead. reset_since_base tells a fold that a delta since the
      // base emptied the log (so the new base does not extend it); every existing base is written
      // whole at its next fold anyway, so 0 is right for all of them.
      if (!columnsOf(database, 'episodic_session_sizes').has('reset_since_base')) {
        database.exec(
          'ALTER TABLE episodic_session_sizes ADD COLUMN reset_since_base INTEGER NOT NULL DEFAULT 0',
        );
      }
    },
  },
  {
    version: 12,
    description: 'the base view in SQL that SQLite 3.37 parses',
    up(database) {
      // Schemas 10 and 11 made the view with group_concat(lines, '' ORDER BY chunk), which only
      // SQLite 3.44 parses: every older engine (Python's sqlite3 and the sqlite3 shell on Debian 12
      // or Ubuntu 22.04, DB Browser, Datasette) refused the whole file. The same view again, in
      // SQL they parse, giving each base byte for byte as before.
      database.exec(`DROP VIEW IF EXISTS episodic_session_states;
${SESSION_STATES_VIEW}`);
    },
  },
  {
    version: 13,
    description: "an empty stand-in for openclaw-mem's search index",
    up(database) {
      // openclaw-mem 1.3.1 to 1.9.x (seed 002's implementation) add a search index to a ledger
      // file on open: a search_text column (added empty), an external-content FTS5 table
      // episodic_events_fts and triggers, then fill each row's search_text with an UPDATE whose
      // trigger first deletes the row's old entry from the index. Where they made that table
      // themselves it is empty, so the delete names entries that are not there and SQLite
      // answers "database disk image is malformed": openclaw-mem could not open a ledger that
      // already had rows, its own 1.3.0 files included. When the table exists without a
      // search_text column (their earlier layout) they drop it, make their own and index every
      // row before that UPDATE. So the ledger carries such a table: contentless, never written
      // (no trigger), a few empty pages. A file openclaw-mem already opened keeps its index.
      database.exec(OPENCLAW_SEARCH_INDEX_STAND_IN);
    },
  },
  {
    version: 14,
    description: 'the full-text search index of the ledger (FTS5), filled lazily by search',
    up(database) {
      // Only options SQLite 3.36 parses (no secure-delete, no contentless_delete). Names of our
      // own: openclaw-mem adds episodic_events_fts and a search_text column to files it opens.
      // Any writer's change to an indexed row (seed 002's redaction UPDATE and retention DELETE
      // in openclaw-mem, or an engine without FTS5) lists the row as stale through plain-table
      // triggers, which every engine runs; the next search or redaction re-indexes it.
      database.exec(`${SEARCH_INDEX_DDL}
CREATE TABLE IF NOT EXISTS episodic_search_state (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO episodic_search_state (name, value) VALUES ('indexed_through', 0);
CREATE TABLE IF NOT EXISTS episodic_search_stale (id INTEGER PRIMARY KEY);
CREATE TRIGGER IF NOT EXISTS episodic_search_stale_on_update
  AFTER UPDATE OF summary, payload_json, refs_json ON episodic_events
  WHEN OLD.id <= (SELECT value FROM episodic_search_state WHERE name = 'indexed_through')
BEGIN
  INSERT OR IGNORE INTO episodic_search_stale (id) VALUES (OLD.id);
END;
CREATE TRIGGER IF NOT EXISTS episodic_search_stale_on_delete
  AFTER DELETE ON episodic_events
  WHEN OLD.id <= (SELECT value FROM episodic_search_state WHERE name = 'indexed_through')
BEGIN
  INSERT OR IGNORE INTO episodic_search_stale (id) VALUES (OLD.id);
END;`);
    },
  },
  // Its own file, so that a renumbering at a merge is one line.
  CHAIN_MIGRATION,
  {
    // 15 is the verify chain's (issue #34). This step stands alone (its own state and stale
    // tables, nothing of schema 14 reused), so renumbering it is a change of this number only.
    version: 16,
    description: 'the full-text search index of run records (FTS5), filled lazily by search',
    up(database) {
      // As schema 14: options SQLite 3.36 parses, plain-table triggers every engine runs. The
      // records table keeps plain rowids, which SQLite may hand out again after the highest rows
      // are deleted: the index lowers its mark to the highest stored rowid whenever it takes
      // deleted rows out (sqlite-run-search.ts), so a reused rowid is always above the mark.
      database.exec(`${RUN_SEARCH_INDEX_DDL}
CREATE TABLE IF NOT EXISTS episodic_run_search_state (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO episodic_run_search_state (name, value) VALUES ('indexed_through', 0);
CREATE TABLE IF NOT EXISTS episodic_run_search_stale (id INTEGER PRIMARY KEY);
CREATE TRIGGER IF NOT EXISTS episodic_run_search_stale_on_update
  AFTER UPDATE OF json ON episodic_run_records
  WHEN OLD.rowid <= (SELECT value FROM episodic_run_search_state WHERE name = 'indexed_through')
BEGIN
  INSERT OR IGNORE INTO episodic_run_search_stale (id) VALUES (OLD.rowid);
END;
CREATE TRIGGER IF NOT EXISTS episodic_run_search_stale_on_delete
  AFTER DELETE ON episodic_run_records
  WHEN OLD.rowid <= (SELECT value FROM episodic_run_search_state WHERE name = 'indexed_through')
BEGIN
  INSERT OR IGNORE INTO episodic_run_search_stale (id) VALUES (OLD.rowid);
END;`);
    },
  },
];

/** The schema version this package writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * The oldest schema a read-only connection reads as it is, without migrating a copy in memory
 * (a copy of the whole file): schema 13 only adds openclaw-mem's stand-in, which no read uses, and
 * schema 14 the search index, which only `search` uses (it answers `UNSUPPORTED` without one), and
 * schema 16 the run records' index, which only a run search uses (the same).
 */
export const READ_AS_IS_FROM_SCHEMA = 12;

/** The database's `user_version`. */
export function schemaVersionOf(database: Database.Database): number {
  return database.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the schema up to date. Each step runs in its own IMMEDIATE transaction and re-reads
 * `user_version` inside it, so two processes opening an old database at once migrate it once.
 * A database from a newer version of this package is refused (`UNSUPPORTED`).
 */
export function migrate(database: Database.Database): number {
  const current = schemaVersionOf(database);
  if (current > SCHEMA_VERSION) {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `This database has schema version ${current}, newer than the ${SCHEMA_VERSION} this @episodic/store-sqlite understands. Upgrade @episodic/store-sqlite; the database was not changed.`,
      details: { schemaVersion: current, supported: SCHEMA_VERSION },
    });
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    database
      .transaction(() => {
        if (schemaVersionOf(database) >= migration.version) return;
        migration.up(database);
        database.pragma(`user_version = ${migration.version}`);
      })
      .immediate();
  }
  return schemaVersionOf(database);
}
