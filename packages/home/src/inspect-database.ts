import { EpisodicError, type RunStore, type SessionStore } from '@episodic/core';
import { checkSqliteDatabase } from '@episodic/store-sqlite';
import type { EpisodicStores } from './episodic-stores.js';

/** A problem found in the database (`episodic doctor` reports it; `--fix` does not rewrite rows). */
export interface DatabaseProblem {
  /** What is affected: `database`, `event <id>`, `session <id>`, `run <id>`. */
  readonly subject: string;
  readonly line?: number;
  readonly message: string;
}

/** What `inspectDatabase` found in the database. */
export interface DatabaseCheck {
  /** SQLite's `integrity_check`; `not_checked` on PostgreSQL (the server's tools check pages). */
  readonly integrity: 'ok' | 'damaged' | 'not_checked';
  readonly events: number;
  readonly sessions: number;
  readonly runs: number;
  readonly problems: DatabaseProblem[];
}

/**
 * Inspects the health of the stores' database, as `episodic doctor` does. A SQLite file: `PRAGMA
 * integrity_check`, the JSON columns of the ledger, every stored session (base and deltas) and
 * every run stored in it (read with core's tolerant reader). A PostgreSQL database: every stored
 * session loads and every run reads, the events are counted; page-level integrity is the server's
 * to check (amcheck, pg_checksums): `integrity` is `not_checked`. Nothing is changed.
 *
 * @example
 * ```ts
 * const stores = await openEpisodicStores({ home: '/path/to/home' });
 * const health = await inspectDatabase(stores);
 * if (health.problems.length > 0) console.log(health.problems);
 * await stores.close();
 * ```
 */
export async function inspectDatabase(
  stores: EpisodicStores,
  onRun: (done: number, total: number) => void = () => {},
): Promise<DatabaseCheck> {
  if (stores.postgres !== undefined) {
    const problems: DatabaseProblem[] = [];
    // Loaded only here, as opening does: commands on SQLite never load the PostgreSQL driver.
    const { checkPostgresTables } = await import('@episodic/store-postgres');
    const { events, sessionIds } = await checkPostgresTables(stores.postgres);
    await checkSessions(stores.postgres.sessions, sessionIds, problems);
    const runs = await checkRuns(stores.postgres.runs, problems, onRun);
    return { integrity: 'not_checked', events, sessions: sessionIds.length, runs, problems };
  }
  if (stores.sqlite === undefined) {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message:
        'inspectDatabase checks a SQLite file or a PostgreSQL database; these stores have neither. Open them with openEpisodicStores.',
    });
  }
  const problems: DatabaseProblem[] = [];
  const checked = checkSqliteDatabase(stores.sqlite.database);
  for (const message of checked.integrityMessages) {
    problems.push({
      subject: 'database',
      message: `integrity_check: ${message}. Restore a backup, or rebuild the file with sqlite3 ".recover".`,
    });
  }
  for (const row of checked.invalidJsonEvents) {
    problems.push({
      subject: `event ${row.event_id}`,
      message: `scope ${row.scope}: a JSON column (payload, refs or metadata) is not valid JSON. Redact the event ("episodic episodes redact --event-id ${row.event_id} --scope ${row.scope}") or restore a backup.`,
    });
  }
  await checkSessions(stores.sqlite.sessions, checked.sessionIds, problems);
  const runs = await checkRuns(stores.sqlite.runs, problems, onRun);
  return {
    integrity: checked.integrity,
    events: checked.events,
    sessions: checked.sessionIds.length,
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
