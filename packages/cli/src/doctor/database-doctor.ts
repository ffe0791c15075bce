import { EpisodicError, type RunStore, type SessionStore } from '@episodic/core';
import type { EpisodicStores } from '@episodic/mcp/stores';

/** A problem doctor found in the database (reported; `--fix` does not rewrite database rows). */
export interface DatabaseProblem {
  /** What is affected: `database`, `event <id>`, `session <id>`, `run <id>`. */
  readonly subject: string;
  readonly line?: number;
  readonly message: string;
}

/** What doctor found in the database. */
export interface DatabaseCheck {
  /** SQLite's `integrity_check`; `not_checked` on PostgreSQL (the server's tools check pages). */
  readonly integrity: 'ok' | 'damaged' | 'not_checked';
  readonly events: number;
  readonly sessions: number;
  readonly runs: number;
  readonly problems: DatabaseProblem[];
}

function sqliteOf(stores: EpisodicStores) {
  if (stores.sqlite === undefined) {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message:
        'doctor checks SQLite files; this database is PostgreSQL (check it with the server’s own tools, e.g. amcheck).',
    });
  }
  return stores.sqlite;
}

function rows<Row>(stores: EpisodicStores, sql: string): Row[] {
  try {
    return sqliteOf(stores).database.prepare(sql).all() as Row[];
  } catch {
    // A table this version does not have yet (an older file): nothing to check there.
    return [];
  }
}

/**
 * Checks the SQLite file: `PRAGMA integrity_check`, the JSON columns of the ledger, every stored
 * session snapshot and every run stored in it (read with core's tolerant reader).
 */
export async function checkDatabase(
  stores: EpisodicStores,
  onRun: (done: number, total: number) => void,
): Promise<DatabaseCheck> {
  const problems: DatabaseProblem[] = [];
  const sqlite = sqliteOf(stores);
  const database = sqlite.database;
  const integrityRows = database.prepare('PRAGMA integrity_check').pluck().all() as string[];
  const integrity = integrityRows.length === 1 && integrityRows[0] === 'ok' ? 'ok' : 'damaged';
  if (integrity !== 'ok') {
    for (const message of integrityRows.slice(0, 20)) {
      problems.push({
        subject: 'database',
        message: `integrity_check: ${message}. Restore a backup, or rebuild the file with sqlite3 ".recover".`,
      });
    }
  }
  const [{ count: events } = { count: 0 }] = rows<{ count: number }>(
    stores,
    'SELECT count(*) AS count FROM episodic_events',
  );
  const badEvents = rows<{ event_id: string; scope: string }>(
    stores,
    `SELECT event_id, scope FROM episodic_events
     WHERE (payload_json IS NOT NULL AND json_valid(payload_json) = 0)
        OR (refs_json IS NOT NULL AND json_valid(refs_json) = 0)
        OR (metadata_json IS NOT NULL AND json_valid(metadata_json) = 0)
     LIMIT 1000`,
  );
  for (const row of badEvents) {
    problems.push({
      subject: `event ${row.event_id}`,
      message: `scope ${row.scope}: a JSON column (payload, refs or metadata) is not valid JSON. Redact the event ("episodic episodes redact --event-id ${row.event_id} --scope ${row.scope}") or restore a backup.`,
    });
  }
  const sessionIds = rows<{ session_id: string }>(
    stores,
    'SELECT session_id FROM episodic_sessions ORDER BY session_id',
  ).map((row) => row.session_id);
  await checkSessions(sqlite.sessions, sessionIds, problems);
  const runs = await checkRuns(sqlite.runs, problems, onRun);
  return { integrity, events, sessions: sessionIds.length, runs, problems };
}

/**
 * Checks a PostgreSQL database: every stored session loads (base and deltas) and every run reads
 * with core's tolerant reader; the events are counted. Page-level integrity is the server's to
 * check (amcheck, pg_checksums): `integrity` is `not_checked`.
 */
export async function checkPostgresDatabase(
  stores: EpisodicStores,
  onRun: (done: number, total: number) => void,
): Promise<DatabaseCheck> {
  const postgres = stores.postgres;
  if (postgres === undefined) {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: 'checkPostgresDatabase needs stores opened on a PostgreSQL database.',
    });
  }
  const problems: DatabaseProblem[] = [];
  const schema = `"${postgres.schema.replaceAll('"', '""')}"`;
  const counted = await postgres.pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM ${schema}.episodic_events`,
  );
  const sessionIds = (
    await postgres.pool.query<{ session_id: string }>(
      `SELECT session_id FROM ${schema}.episodic_sessions ORDER BY session_id`,
    )
  ).rows.map((row) => row.session_id);
  await checkSessions(postgres.sessions, sessionIds, problems);
  const runs = await checkRuns(postgres.runs, problems, onRun);
  return {
    integrity: 'not_checked',
    events: counted.rows[0]?.count ?? 0,
    sessions: sessionIds.length,
    runs,
    problems,
  };
}

/** Loads every stored session (base and deltas); each that does not load is a problem. */
async function checkSessions(
  sessions: SessionStore,
  sessionIds: readonly string[],
  problems: DatabaseProblem[],
): Promise<void> {
  for (const sessionId of sessionIds) {
    try {
      await sessions.load(sessionId);
    } catch (error) {
      const message = EpisodicError.isInstance(error) ? error.message : String(error);
      problems.push({ subject: `session ${sessionId}`, message });
    }
  }
}

/** Reads every run with core's tolerant reader; returns how many runs there are. */
async function checkRuns(
  runs: RunStore,
  problems: DatabaseProblem[],
  onRun: (done: number, total: number) => void,
): Promise<number> {
  const listed = await runs.list();
  for (const error of listed.errors) {
    problems.push({
      subject: error.runId === undefined ? error.location : `run ${error.runId}`,
      message: error.message,
    });
  }
  for (const [index, summary] of listed.runs.entries()) {
    onRun(index, listed.runs.length);
    const run = await runs.read(summary.runId);
    for (const damage of run.errors) {
      problems.push({
        subject: `run ${summary.runId}`,
        ...(damage.line === undefined ? {} : { line: damage.line }),
        message: `${damage.message} ${damage.excerpt}`,
      });
    }
  }
  return listed.runs.length;
}
