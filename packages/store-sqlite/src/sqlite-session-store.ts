import {
  assertExpectedRevision,
  type BaseMessage,
  EpisodicError,
  lastUserMessage,
  type SessionState,
  type SessionStoreAdapter,
  type SessionSummary,
  safeJsonParse,
  sessionStateSchema,
} from '@episodic/core';
import type Database from 'better-sqlite3';
import { truncateWal } from './sqlite-run-store.js';

interface SummaryRow {
  session_id: string;
  revision: number;
  updated_at: string;
  run_id: string | null;
  message_count: number;
  /** The last user message that has content, as JSON (seed 001's `last_user_message` comes from it). */
  last_user_json: string | null;
}

function corrupt(sessionId: string, reason: string): EpisodicError {
  return new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `The stored snapshot of session ${sessionId} is unreadable (${reason}). Save the session again, or delete it.`,
    details: { sessionId },
  });
}

/** `{ lastUserMessage }` from the JSON of the last user message, or nothing. */
function lastUserMessageOf(json: string | null): { lastUserMessage?: string } {
  if (json === null) return {};
  const parsed = safeJsonParse(json);
  if (!parsed.success) return {};
  const text = lastUserMessage([parsed.value as BaseMessage]);
  return text === undefined ? {} : { lastUserMessage: text };
}

/**
 * The session store adapter over the `episodic_sessions` table. A save is one IMMEDIATE
 * transaction that checks the expected revision and writes the snapshot, so the check holds
 * across processes.
 */
export function createSqliteSessionStoreAdapter(database: Database.Database): SessionStoreAdapter {
  const select = database
    .prepare('SELECT state_json FROM episodic_sessions WHERE session_id = ?')
    .pluck();
  const selectRevision = database
    .prepare('SELECT revision FROM episodic_sessions WHERE session_id = ?')
    .pluck();
  const upsert = database.prepare(
    `INSERT INTO episodic_sessions (session_id, revision, updated_at, run_id, message_count, state_json)
     VALUES (@session_id, @revision, @updated_at, @run_id, @message_count, @state_json)
     ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at,
       run_id = excluded.run_id, message_count = excluded.message_count, state_json = excluded.state_json`,
  );
  const list = database.prepare(
    `SELECT session_id, revision, updated_at, run_id, message_count,
       (SELECT value FROM json_each(state_json, '$.messages')
        WHERE json_extract(value, '$.role') = 'user' AND json_type(value, '$.content') IS NOT NULL
        ORDER BY key DESC LIMIT 1) AS last_user_json
     FROM episodic_sessions
     WHERE json_valid(state_json) ORDER BY updated_at DESC, session_id`,
  );
  const remove = database.prepare('DELETE FROM episodic_sessions WHERE session_id = ?');
  const saveTransaction = database.transaction(
    (state: SessionState, expectedRevision: number | null | undefined) => {
      const current = selectRevision.get(state.session_id) as number | undefined;
      assertExpectedRevision(
        state.session_id,
        current === undefined ? null : current,
        expectedRevision,
      );
      upsert.run({
        session_id: state.session_id,
        revision: state.revision ?? 0,
        updated_at: state.updated_at,
        run_id: state.run_id ?? null,
        message_count: state.messages.length,
        state_json: JSON.stringify(state),
      });
    },
  );

  return {
    specificationVersion: 'v1',
    name: 'sqlite',
    capabilities: { atomicSave: true, crossProcessConflicts: true },
    load(sessionId) {
      const text = select.get(sessionId) as string | undefined;
      if (text === undefined) return null;
      const parsed = safeJsonParse(text);
      if (!parsed.success) throw corrupt(sessionId, parsed.error);
      const checked = sessionStateSchema.safeParse(parsed.value);
      if (!checked.success) throw corrupt(sessionId, 'it is not a session state');
      return checked.data;
    },
    save(state, expectedRevision) {
      saveTransaction.immediate(state, expectedRevision);
    },
    list() {
      return (list.all() as SummaryRow[]).map(
        (row): SessionSummary => ({
          sessionId: row.session_id,
          updatedAt: row.updated_at,
          revision: row.revision,
          ...(row.run_id === null ? {} : { runId: row.run_id }),
          messageCount: row.message_count,
          ...lastUserMessageOf(row.last_user_json),
        }),
      );
    },
    delete(sessionId) {
      return remove.run(sessionId).changes > 0;
    },
    purge() {
      // secure_delete zeroed the replaced snapshot in the database file; this removes the WAL's copy.
      truncateWal(database);
    },
  };
}
