import {
  type SessionStoreAdapter,
  type StoredSessionHead,
  summarizeSession,
  summaryBaseLine,
} from '@episodic/core';
import { assertExpectedRevision, assertReplaceable } from '@episodic/core/internal';
import type Database from 'better-sqlite3';
import { baseChunks, chunkLines, newBaseGeneration } from './base-chunks.js';
import { truncateWal } from './sqlite-run-store.js';

interface HeadRow {
  session_id: string;
  revision: number;
  updated_at: string;
  run_id: string | null;
  message_count: number;
  episode_count: number | null;
  last_user_message: string | null;
  last_delta: string | null;
}

/** What a commit reads before it appends: the base's revision and bytes, and the last delta. */
interface TipRow {
  base_revision: number;
  base_bytes: number | null;
  last_revision: number | null;
  bytes_since_base: number | null;
}

/** What a load reads of a base with the deltas: its generation, rows and first row. */
interface BaseHeadRow {
  generation: number | null;
  chunks: number;
  first: Buffer | null;
}

/**
 * The session store adapter: a session's base in `episodic_session_base_chunks` (its lines in rows
 * of about a mebibyte, see base-chunks.ts; its summary in the `episodic_sessions` row) and one
 * `episodic_session_deltas` row per commit since. A commit is one IMMEDIATE transaction that reads
 * the base's revision and the last delta row, checks the revision and inserts its row, which
 * carries the deltas' bytes since the base for the fold policy (the cost of the commit, not of the
 * session); a fold or a save replaces the base's rows, its bytes in `episodic_session_sizes`, and
 * deletes the deltas in one transaction.
 */
export function createSqliteSessionStoreAdapter(database: Database.Database): SessionStoreAdapter {
  const selectExists = database
    .prepare('SELECT 1 FROM episodic_sessions WHERE session_id = ?')
    .pluck();
  // Rows as UTF-8 bytes: their lines are decoded one by one (a JS string of a whole row would be
  // decoded at once, at two bytes a character when one is not ASCII).
  const selectBaseHead = database.prepare(
    `SELECT min(generation) AS generation, count(*) AS chunks,
       (SELECT CAST(lines AS BLOB) FROM episodic_session_base_chunks f
        WHERE f.session_id = ? AND f.chunk = 0) AS first
     FROM episodic_session_base_chunks WHERE session_id = ?`,
  );
  const selectChunk = database
    .prepare(
      `SELECT CAST(lines AS BLOB) FROM episodic_session_base_chunks
       WHERE session_id = ? AND chunk = ? AND generation = ?`,
    )
    .pluck();
  const selectDeltas = database
    .prepare('SELECT line FROM episodic_session_deltas WHERE session_id = ? ORDER BY revision')
    .pluck();
  const selectTip = database.prepare(
    `SELECT s.revision AS base_revision,
       (SELECT base_bytes FROM episodic_session_sizes z WHERE z.session_id = s.session_id) AS base_bytes,
       d.revision AS last_revision, d.bytes_since_base
     FROM episodic_sessions s
     LEFT JOIN episodic_session_deltas d ON d.session_id = s.session_id
       AND d.revision = (SELECT max(revision) FROM episodic_session_deltas m WHERE m.session_id = s.session_id)
     WHERE s.session_id = ?`,
  );
  const insertBase = database.prepare(
    `INSERT INTO episodic_sessions (session_id, revision, updated_at, run_id, message_count, episode_count, last_user_message)
     VALUES (@session_id, @revision, @updated_at, @run_id, @message_count, @episode_count, @last_user_message)
     ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at,
       run_id = excluded.run_id, message_count = excluded.message_count,
       episode_count = excluded.episode_count, last_user_message = excluded.last_user_message`,
  );
  const insertChunk = database.prepare(
    'INSERT INTO episodic_session_base_chunks (session_id, chunk, generation, lines) VALUES (?, ?, ?, ?)',
  );
  const removeChunks = database.prepare(
    'DELETE FROM episodic_session_base_chunks WHERE session_id = ?',
  );
  const insertDelta = database.prepare(
    'INSERT INTO episodic_session_deltas (session_id, revision, line, bytes_since_base) VALUES (?, ?, ?, ?)',
  );
  const resetSizes = database.prepare(
    `INSERT INTO episodic_session_sizes (session_id, base_bytes) VALUES (?, ?)
     ON CONFLICT (session_id) DO UPDATE SET base_bytes = excluded.base_bytes`,
  );
  const heads = database.prepare(
    `SELECT s.session_id, s.revision, s.updated_at, s.run_id, s.message_count, s.episode_count,
       s.last_user_message,
       (SELECT line FROM episodic_session_deltas d WHERE d.session_id = s.session_id
        ORDER BY revision DESC LIMIT 1) AS last_delta
     FROM episodic_sessions s`,
  );
  const removeBase = database.prepare('DELETE FROM episodic_sessions WHERE session_id = ?');
  const removeDeltas = database.prepare('DELETE FROM episodic_session_deltas WHERE session_id = ?');
  const removeSizes = database.prepare('DELETE FROM episodic_session_sizes WHERE session_id = ?');

  /** The session's base revision and bytes and its last delta row; undefined when there is none. */
  const tipOf = (sessionId: string) => selectTip.get(sessionId) as TipRow | undefined;
  /** The session's revision: its last delta's, or the base's when no delta follows it. */
  const revisionOf = (tip: TipRow | undefined): number | null =>
    tip === undefined ? null : Math.max(tip.base_revision, tip.last_revision ?? 0);

  /** Stores `lines` as the session's base and drops its deltas; returns the base's bytes. */
  const writeBase = (sessionId: string, lines: readonly string[]): number => {
    const summary = summarizeSession({ sessionId, base: lines[0] ?? '', lastDelta: null });
    insertBase.run({
      session_id: sessionId,
      revision: summary?.revision ?? 0,
      updated_at: summary?.updatedAt ?? '',
      run_id: summary?.runId ?? null,
      message_count: summary?.messageCount ?? 0,
      episode_count: summary?.episodeCount ?? null,
      last_user_message: summary?.lastUserMessage ?? null,
    });
    removeChunks.run(sessionId);
    const generation = newBaseGeneration();
    let bytes = 0;
    baseChunks(lines).forEach((chunk, index) => {
      insertChunk.run(sessionId, index, generation, chunk);
      bytes += Buffer.byteLength(chunk, 'utf8');
    });
    removeDeltas.run(sessionId);
    resetSizes.run(sessionId, bytes);
    return bytes;
  };

  const loadSnapshot = database.transaction((sessionId: string) => {
    if (selectExists.get(sessionId) === undefined) return null;
    const head = selectBaseHead.get(sessionId, sessionId) as BaseHeadRow;
    const { generation } = head;
    return {
      base: chunkLines(sessionId, head.first ?? Buffer.alloc(0), head.chunks, (chunk) =>
        generation === null
          ? undefined
          : (selectChunk.get(sessionId, chunk, generation) as Buffer | undefined),
      ),
      deltas: selectDeltas.all(sessionId) as string[],
    };
  });
  const commitTransaction = database.transaction(
    (sessionId: string, commit: Parameters<SessionStoreAdapter['commit']>[1]) => {
      const tip = tipOf(sessionId);
      assertExpectedRevision(sessionId, revisionOf(tip), commit.expectedRevision);
      if (tip === undefined) {
        return { deltaCount: 0, deltaBytes: 0, baseBytes: writeBase(sessionId, commit.base()) };
      }
      // One row written: the delta, with the bytes of the deltas since the base (its own included).
      const deltaBytes = (tip.bytes_since_base ?? 0) + Buffer.byteLength(commit.delta, 'utf8') + 1;
      insertDelta.run(sessionId, commit.revision, commit.delta, deltaBytes);
      return {
        deltaCount: commit.revision - tip.base_revision,
        deltaBytes,
        baseBytes: tip.base_bytes ?? 0,
      };
    },
  );
  const replaceTransaction = database.transaction(
    (
      sessionId: string,
      lines: readonly string[],
      revision: number,
      expectedRevision: number | null | undefined,
    ) => {
      assertReplaceable(sessionId, revisionOf(tipOf(sessionId)), revision, expectedRevision);
      writeBase(sessionId, lines);
    },
  );
  const removeTransaction = database.transaction((sessionId: string) => {
    removeDeltas.run(sessionId);
    removeSizes.run(sessionId);
    removeChunks.run(sessionId);
    return removeBase.run(sessionId).changes > 0;
  });

  return {
    specificationVersion: 'v2',
    name: 'sqlite',
    capabilities: { atomicSave: true, crossProcessConflicts: true },
    load(sessionId) {
      // One snapshot for the base and its deltas.
      return loadSnapshot.deferred(sessionId);
    },
    commit(sessionId, commit) {
      return commitTransaction.immediate(sessionId, commit);
    },
    replace(sessionId, lines, revision, expectedRevision) {
      replaceTransaction.immediate(sessionId, lines, revision, expectedRevision);
    },
    list() {
      // The base row's summary columns stand in for its first line (no base text is read).
      return (heads.all() as HeadRow[]).map(
        (row): StoredSessionHead => ({
          sessionId: row.session_id,
          base: summaryBaseLine({
            sessionId: row.session_id,
            revision: row.revision,
            updatedAt: row.updated_at,
            runId: row.run_id,
            messageCount: row.message_count,
            episodeCount: row.episode_count,
            lastUserMessage: row.last_user_message,
          }),
          lastDelta: row.last_delta,
        }),
      );
    },
    delete(sessionId) {
      return removeTransaction.immediate(sessionId);
    },
    purge() {
      // secure_delete zeroed the replaced base in the database file; this removes the WAL's copy.
      truncateWal(database);
    },
  };
}
