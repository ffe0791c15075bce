import {
  assertExpectedRevision,
  EpisodicError,
  type SessionState,
  type SessionStoreAdapter,
  type SessionSummary,
  safeJsonParse,
  sessionStateSchema,
} from '@episodic/core';
import type { PostgresDatabase } from './postgres-database.js';
import type { Scrubber } from './scrub.js';

interface SummaryRow {
  session_id: string;
  revision: string;
  updated_at: string;
  run_id: string | null;
  message_count: string;
}

function corrupt(sessionId: string, reason: string): EpisodicError {
  return new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `The stored snapshot of session ${sessionId} is unreadable (${reason}). Save the session again, or delete it.`,
    details: { sessionId },
  });
}

/**
 * The session store adapter over `episodic_sessions`. A save with an expected revision locks the
 * session's row (`SELECT … FOR UPDATE`) and checks the revision under that lock; saving a new
 * session (`expectedRevision: null`) inserts only if no row exists. Both hold across processes.
 */
export function createPostgresSessionStoreAdapter(
  database: PostgresDatabase,
  scrubber: Scrubber,
): SessionStoreAdapter {
  const { tables } = database;
  const select = database.statement(
    'sessions_load',
    `SELECT state_json FROM ${tables.sessions} WHERE session_id = $1`,
  );
  const lockRevision = database.statement(
    'sessions_lock',
    `SELECT revision FROM ${tables.sessions} WHERE session_id = $1 FOR UPDATE`,
  );
  const columns = 'session_id, revision, updated_at, run_id, message_count, state_json';
  const insertNew = database.statement(
    'sessions_insert',
    `INSERT INTO ${tables.sessions} (${columns}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id) DO NOTHING`,
  );
  const upsert = database.statement(
    'sessions_upsert',
    `INSERT INTO ${tables.sessions} (${columns}) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at,
  run_id = excluded.run_id, message_count = excluded.message_count, state_json = excluded.state_json`,
  );
  const list = database.statement(
    'sessions_list',
    `SELECT session_id, revision, updated_at, run_id, message_count FROM ${tables.sessions}
WHERE ${tables.schema}.episodic_json_valid(state_json) ORDER BY updated_at DESC, session_id`,
  );
  const remove = database.statement(
    'sessions_delete',
    `DELETE FROM ${tables.sessions} WHERE session_id = $1`,
  );
  const valuesOf = (state: SessionState) => [
    state.session_id,
    state.revision ?? 0,
    state.updated_at,
    state.run_id ?? null,
    state.messages.length,
    JSON.stringify(state),
  ];

  return {
    specificationVersion: 'v1',
    name: 'postgres',
    capabilities: { atomicSave: true, crossProcessConflicts: true },
    load(sessionId) {
      return database.guard(`load session ${sessionId}`, async () => {
        const row = (await database.query<{ state_json: string }>(select, [sessionId])).rows[0];
        if (row === undefined) return null;
        const parsed = safeJsonParse(row.state_json);
        if (!parsed.success) throw corrupt(sessionId, parsed.error);
        const checked = sessionStateSchema.safeParse(parsed.value);
        if (!checked.success) throw corrupt(sessionId, 'it is not a session state');
        return checked.data;
      });
    },
    save(state, expectedRevision) {
      return database.guard(`save session ${state.session_id}`, async () => {
        if (expectedRevision === undefined) {
          await database.query(upsert, valuesOf(state));
          return;
        }
        if (expectedRevision === null) {
          const inserted = await database.query(insertNew, valuesOf(state));
          if (inserted.rowCount === 0) {
            const current = await database.query<{ revision: string }>(
              `SELECT revision FROM ${tables.sessions} WHERE session_id = $1`,
              [state.session_id],
            );
            const revision = current.rows[0]?.revision;
            assertExpectedRevision(
              state.session_id,
              revision === undefined ? null : Number(revision),
              null,
            );
          }
          return;
        }
        await database.transaction(async (client) => {
          const current = (
            await database.query<{ revision: string }>(lockRevision, [state.session_id], client)
          ).rows[0]?.revision;
          assertExpectedRevision(
            state.session_id,
            current === undefined ? null : Number(current),
            expectedRevision,
          );
          await database.query(upsert, valuesOf(state), client);
        });
      });
    },
    list() {
      return database.guard('list sessions', async () =>
        (await database.query<SummaryRow>(list)).rows.map(
          (row): SessionSummary => ({
            sessionId: row.session_id,
            updatedAt: row.updated_at,
            revision: Number(row.revision),
            ...(row.run_id === null ? {} : { runId: row.run_id }),
            messageCount: Number(row.message_count),
          }),
        ),
      );
    },
    delete(sessionId) {
      return database.guard(`delete session ${sessionId}`, async () => {
        const removed = ((await database.query(remove, [sessionId])).rowCount ?? 0) > 0;
        return removed;
      });
    },
    purge() {
      return database.guard('purge replaced snapshots', () => scrubber.scrub([tables.sessions]));
    },
  };
}
