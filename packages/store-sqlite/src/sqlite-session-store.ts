import {
  assertExpectedRevision,
  assertReplaceable,
  BASE_CLOSE,
  idPrefixRange,
  MESSAGES_OPEN,
  type SessionAdapterFold,
  type SessionStoreAdapter,
  type StoredSessionHead,
  summarizeSession,
  summaryBaseLine,
} from '@episodic/core/adapter';
import type Database from 'better-sqlite3';
import {
  baseChunks,
  chunkLines,
  newBaseGeneration,
  SECTION_ROWS,
  sectionRows,
} from './base-chunks.js';
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

/**
 * How many bytes of a base's rows a load reads in its snapshot, with the deltas (all of a base
 * of up to about this size; a mebibyte row more at most). A larger base's further rows are read
 * one at a time as core decodes them, so it is never held whole as text.
 */
const SNAPSHOT_BYTES = 16 * 1024 * 1024;

/** What a commit reads before it appends: the base's revision and bytes, and the last delta. */
interface TipRow {
  base_revision: number;
  base_bytes: number | null;
  /** The generation of the base's first row, which every write of a base writes anew. */
  base_generation: number | null;
  last_revision: number | null;
  bytes_since_base: number | null;
}

/** One row of a base as a load lists it (its text is read when core gets to it). */
interface BaseRow {
  chunk: number;
  generation: number;
}

/** What a fold needs to know of the stored base to keep its rows. */
interface FoldedBaseRow {
  /** Episodes in the base (its summary); null when it records none. */
  episode_count: number | null;
  /** 1 when a fold wrote the base (its rows by section, its messages derived). */
  folded: number;
  /** 1 when a delta since the base emptied the log. */
  reset: number;
}

/**
 * The session store adapter: a session's base in `episodic_session_base_chunks` (its lines in rows
 * of about a mebibyte, see base-chunks.ts; its summary in the `episodic_sessions` row) and one
 * `episodic_session_deltas` row per commit since. A commit is one IMMEDIATE transaction that reads
 * the base's revision and the last delta row, checks the revision and inserts its row, which
 * carries the deltas' bytes since the base for the fold policy (the cost of the commit, not of the
 * session); a save replaces the base's rows, its bytes in `episodic_session_sizes`, and deletes
 * the deltas in one transaction, and a fold does the same but keeps the rows the new base shares
 * with one an earlier fold wrote (see `foldTransaction`).
 */
export function createSqliteSessionStoreAdapter(database: Database.Database): SessionStoreAdapter {
  return sqliteSessionStoreAdapter(database, SNAPSHOT_BYTES);
}

/**
 * The adapter, reading up to `snapshotBytes` of a base in a load's snapshot (`SNAPSHOT_BYTES`;
 * a test passes less to reach the rows read after it).
 */
export function sqliteSessionStoreAdapter(
  database: Database.Database,
  snapshotBytes: number,
): SessionStoreAdapter {
  const selectExists = database
    .prepare('SELECT 1 FROM episodic_sessions WHERE session_id = ?')
    .pluck();
  // Rows as UTF-8 bytes: their lines are decoded one by one (a JS string of a whole row would be
  // decoded at once, at two bytes a character when one is not ASCII).
  const selectRows = database.prepare(
    'SELECT chunk, generation FROM episodic_session_base_chunks WHERE session_id = ? ORDER BY chunk',
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
       (SELECT generation FROM episodic_session_base_chunks c
         WHERE c.session_id = s.session_id AND c.chunk = ${SECTION_ROWS.head}) AS base_generation,
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
  const selectFoldedBase = database.prepare(
    `SELECT s.episode_count,
       EXISTS (SELECT 1 FROM episodic_session_base_chunks c
         WHERE c.session_id = s.session_id AND c.chunk = ${SECTION_ROWS.messagesOpen}) AS folded,
       (SELECT reset_since_base FROM episodic_session_sizes z WHERE z.session_id = s.session_id) AS reset
     FROM episodic_sessions s WHERE s.session_id = ?`,
  );
  const markReset = database.prepare(
    'UPDATE episodic_session_sizes SET reset_since_base = 1 WHERE session_id = ?',
  );
  const selectLastRow = database
    .prepare(
      'SELECT max(chunk) FROM episodic_session_base_chunks WHERE session_id = ? AND chunk >= ? AND chunk <= ?',
    )
    .pluck();
  // The rows a fold writes again: the first line, the episodes from `?` and the messages from `?`.
  const rewrittenRows = `session_id = ? AND (chunk = ${SECTION_ROWS.head}
    OR (chunk >= ? AND chunk < ${SECTION_ROWS.messagesOpen})
    OR (chunk >= ? AND chunk < ${SECTION_ROWS.close}))`;
  const selectRewrittenBytes = database
    .prepare(
      `SELECT coalesce(sum(length(CAST(lines AS BLOB))), 0) FROM episodic_session_base_chunks WHERE ${rewrittenRows}`,
    )
    .pluck();
  const removeRewrittenRows = database.prepare(
    `DELETE FROM episodic_session_base_chunks WHERE ${rewrittenRows}`,
  );
  const insertDelta = database.prepare(
    'INSERT INTO episodic_session_deltas (session_id, revision, line, bytes_since_base) VALUES (?, ?, ?, ?)',
  );
  const resetSizes = database.prepare(
    `INSERT INTO episodic_session_sizes (session_id, base_bytes, reset_since_base) VALUES (?, ?, 0)
     ON CONFLICT (session_id) DO UPDATE SET base_bytes = excluded.base_bytes, reset_since_base = 0`,
  );
  // A range on the primary key (idPrefixRange): the index, not a scan, finds a prefix's sessions.
  const sessionIdRange = database.prepare(
    'SELECT session_id FROM episodic_sessions WHERE session_id >= ? AND session_id < ? ORDER BY session_id LIMIT ?',
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

  /** Writes the summary row of a base whose first line is `head`. */
  const writeSummary = (sessionId: string, head: string) => {
    const summary = summarizeSession({ sessionId, base: head, lastDelta: null });
    insertBase.run({
      session_id: sessionId,
      revision: summary?.revision ?? 0,
      updated_at: summary?.updatedAt ?? '',
      run_id: summary?.runId ?? null,
      message_count: summary?.messageCount ?? 0,
      episode_count: summary?.episodeCount ?? null,
      last_user_message: summary?.lastUserMessage ?? null,
    });
  };

  /** Inserts rows of one base generation; returns their bytes. */
  const insertRows = (
    sessionId: string,
    generation: number,
    rows: Iterable<readonly [chunk: number, text: string]>,
  ): number => {
    let bytes = 0;
    for (const [chunk, text] of rows) {
      insertChunk.run(sessionId, chunk, generation, text);
      bytes += Buffer.byteLength(text, 'utf8');
    }
    return bytes;
  };

  /**
   * Stores `lines` as the session's base and drops its deltas; returns the base's bytes and its
   * token (the generation of its rows, the first one's included).
   */
  const writeBase = (sessionId: string, lines: readonly string[]) => {
    writeSummary(sessionId, lines[0] ?? '');
    removeChunks.run(sessionId);
    const rows = baseChunks(lines).map((text, index) => [index, text] as const);
    const generation = newBaseGeneration();
    const bytes = insertRows(sessionId, generation, rows);
    removeDeltas.run(sessionId);
    resetSizes.run(sessionId, bytes);
    return { bytes, baseToken: String(generation) };
  };

  /**
   * Writes a fold's base in rows by section (see `SECTION_ROWS`): `whole`, or from episode
   * `fromEpisode` and message `fromMessage` on (the rows before them, and the rows opening the
   * messages and closing the base, are kept), and drops the deltas. The last episode has a row of
   * its own and the messages of the base's last turn begin one, so that the next fold writes
   * little again. Returns the bytes written and the base's token (the generation of the rows
   * written, its first row's: see `SessionCommitSizes.baseToken`).
   */
  const writeFoldRows = (
    sessionId: string,
    fold: SessionAdapterFold,
    whole: boolean,
    fromEpisode = 0,
    fromMessage = 0,
  ): { bytes: number; baseToken: string } => {
    const { base } = fold;
    const nextKept = fold.keptMessages(base.episodeCount) ?? 0;
    writeSummary(sessionId, base.head);
    const rows: Array<readonly [number, string]> = [[SECTION_ROWS.head, `${base.head}\n`]];
    for (const [first, text] of sectionRows(base.episodeLine, fromEpisode, base.episodeCount, [
      base.episodeCount - 1,
    ]))
      rows.push([SECTION_ROWS.episodes + first, text]);
    if (whole) rows.push([SECTION_ROWS.messagesOpen, `${MESSAGES_OPEN}\n`]);
    for (const [first, text] of sectionRows(base.messageLine, fromMessage, base.messageCount, [
      nextKept,
    ]))
      rows.push([SECTION_ROWS.messages + first, text]);
    if (whole) rows.push([SECTION_ROWS.close, `${BASE_CLOSE}\n`]);
    const generation = newBaseGeneration();
    const bytes = insertRows(sessionId, generation, rows);
    removeDeltas.run(sessionId);
    return { bytes, baseToken: String(generation) };
  };

  /**
   * One read transaction (deferred: in WAL mode its snapshot is taken at its first read and
   * writers go on meanwhile) reads the deltas and the base's rows up to `snapshotBytes`, so a
   * fold committing in another process is seen whole or not at all. Only the rows of a larger
   * base past that are read later, as core gets to them: a row a fold replaced meanwhile is
   * gone (its generation), and core reads the session again.
   */
  const loadSnapshot = database.transaction((sessionId: string) => {
    if (selectExists.get(sessionId) === undefined) return null;
    const rows = selectRows.all(sessionId) as BaseRow[];
    const selectRow = (row: BaseRow) =>
      selectChunk.get(sessionId, row.chunk, row.generation) as Buffer | undefined;
    const read: Array<Buffer | undefined> = [];
    for (let bytes = 0; read.length < rows.length && bytes < snapshotBytes; ) {
      const row = selectRow(rows[read.length] as BaseRow);
      read.push(row);
      bytes += row?.length ?? 0;
    }
    const readRow = (position: number) => {
      if (position < read.length) {
        const row = read[position];
        read[position] = undefined; // Decoded from here on: not held beside the next rows.
        return row;
      }
      const row = rows[position];
      return row === undefined ? undefined : selectRow(row);
    };
    return {
      base: chunkLines(sessionId, readRow(0) ?? Buffer.alloc(0), rows.length, readRow),
      deltas: selectDeltas.all(sessionId) as string[],
    };
  });
  const commitTransaction = database.transaction(
    (sessionId: string, commit: Parameters<SessionStoreAdapter['commit']>[1]) => {
      const tip = tipOf(sessionId);
      assertExpectedRevision(sessionId, revisionOf(tip), commit.expectedRevision);
      if (tip === undefined) {
        const { bytes, baseToken } = writeBase(sessionId, commit.base ?? []);
        return { deltaCount: 0, deltaBytes: 0, baseBytes: bytes, baseToken };
      }
      // One row written: the delta, with the bytes of the deltas since the base (its own included).
      const deltaBytes = (tip.bytes_since_base ?? 0) + Buffer.byteLength(commit.delta, 'utf8') + 1;
      insertDelta.run(sessionId, commit.revision, commit.delta, deltaBytes);
      if (commit.reset === true) markReset.run(sessionId);
      return {
        deltaCount: commit.revision - tip.base_revision,
        deltaBytes,
        baseBytes: tip.base_bytes ?? 0,
        ...(tip.base_generation === null ? {} : { baseToken: String(tip.base_generation) }),
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
      return writeBase(sessionId, lines).baseToken;
    },
  );
  const foldTransaction = database.transaction((sessionId: string, fold: SessionAdapterFold) => {
    const tip = tipOf(sessionId);
    // Every row written anew: a save in a fold's layout (replace's check), or a base no fold wrote.
    const writeWhole = () => {
      removeChunks.run(sessionId);
      const { bytes, baseToken } = writeFoldRows(sessionId, fold, true);
      resetSizes.run(sessionId, bytes);
      return baseToken;
    };
    if (fold.save !== undefined) {
      assertReplaceable(sessionId, revisionOf(tip), fold.revision, fold.save.expectedRevision);
      return writeWhole();
    }
    assertExpectedRevision(sessionId, revisionOf(tip), fold.revision);
    const stored = selectFoldedBase.get(sessionId) as FoldedBaseRow;
    const kept =
      stored.folded === 1 && stored.reset === 0 && stored.episode_count !== null
        ? fold.keptMessages(stored.episode_count)
        : null;
    if (kept === null || tip?.base_bytes == null) return writeWhole();
    // Rows kept: the episodes before the last one's row (it gains a comma now) and the messages
    // before the row holding message `kept` (the ones from there on may change). With no such
    // row, the section is written from its start.
    const lastRow = (from: number, to: number) =>
      (selectLastRow.get(sessionId, from, to) as number | null) ?? from;
    const episodeRowsFrom = lastRow(SECTION_ROWS.episodes, SECTION_ROWS.messagesOpen - 1);
    const messageRowsFrom = lastRow(SECTION_ROWS.messages, SECTION_ROWS.messages + kept);
    const removed = selectRewrittenBytes.get(sessionId, episodeRowsFrom, messageRowsFrom) as number;
    removeRewrittenRows.run(sessionId, episodeRowsFrom, messageRowsFrom);
    const written = writeFoldRows(
      sessionId,
      fold,
      false,
      episodeRowsFrom - SECTION_ROWS.episodes,
      messageRowsFrom - SECTION_ROWS.messages,
    );
    resetSizes.run(sessionId, tip.base_bytes - removed + written.bytes);
    return written.baseToken;
  });
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
      // One snapshot for the base (up to SNAPSHOT_BYTES of it) and its deltas.
      return loadSnapshot.deferred(sessionId);
    },
    commit(sessionId, commit) {
      return commitTransaction.immediate(sessionId, commit);
    },
    replace(sessionId, lines, revision, expectedRevision) {
      return replaceTransaction.immediate(sessionId, lines, revision, expectedRevision);
    },
    fold(sessionId, fold) {
      return foldTransaction.immediate(sessionId, fold);
    },
    sessionIdsWithPrefix(prefix, limit) {
      const { from, to } = idPrefixRange(prefix);
      return (sessionIdRange.all(from, to, limit) as Array<{ session_id: string }>).map(
        (row) => row.session_id,
      );
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
