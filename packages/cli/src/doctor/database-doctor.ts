import { EpisodicError } from '@episodic/core';
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
  readonly integrity: string;
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
  );
  for (const { session_id: sessionId } of sessionIds) {
    try {
      await sqlite.sessions.load(sessionId);
    } catch (error) {
      const message = EpisodicError.isInstance(error) ? error.message : String(error);
      problems.push({ subject: `session ${sessionId}`, message });
    }
  }
  const listed = await sqlite.runs.list();
  for (const error of listed.errors) {
    problems.push({
      subject: error.runId === undefined ? error.location : `run ${error.runId}`,
      message: error.message,
    });
  }
  for (const [index, summary] of listed.runs.entries()) {
    onRun(index, listed.runs.length);
    const run = await sqlite.runs.read(summary.runId);
    for (const damage of run.errors) {
      problems.push({
        subject: `run ${summary.runId}`,
        ...(damage.line === undefined ? {} : { line: damage.line }),
        message: `${damage.message} ${damage.excerpt}`,
      });
    }
  }
  return { integrity, events, sessions: sessionIds.length, runs: listed.runs.length, problems };
}
