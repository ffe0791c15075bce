import { EpisodicError, type SessionCommitSizes } from '@episodic/core';
import {
  assertExpectedRevision,
  assertReplaceable,
  idPrefixRange,
  type SessionStoreAdapter,
  type StoredSessionHead,
  summarizeSession,
  summaryBaseLine,
  textLines,
} from '@episodic/core/adapter';
import type pg from 'pg';
import type { PostgresDatabase, Queryable } from './postgres-database.js';
import type { Scrubber } from './scrub.js';

interface HeadRow {
  session_id: string;
  revision: string;
  updated_at: string;
  run_id: string | null;
  message_count: string;
  episode_count: string | null;
  last_user_message: string | null;
  last_delta: string | null;
}

interface SizesRow {
  base_bytes: string;
  delta_count: string;
  delta_bytes: string;
  /** The base row's `xmin` (see `SessionCommitSizes.baseToken`); null when it is gone. */
  base_token: string | null;
}

/** How often a write re-reads when the session appeared or vanished between two statements. */
const ATTEMPTS = 5;

/** A write that kept finding the session created or deleted under it by other writers. */
function churning(sessionId: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Session ${sessionId} was created or deleted by other writers ${ATTEMPTS} times while this write ran. Nothing was written; reload the session and retry.`,
    details: { sessionId },
  });
}

/** A base as stored: its lines with a newline each, its summary columns and its size. */
function baseRow(sessionId: string, lines: readonly string[]) {
  const text = `${lines.join('\n')}\n`;
  const summary = summarizeSession({ sessionId, base: lines[0] ?? '', lastDelta: null });
  return {
    values: [
      sessionId,
      summary?.revision ?? 0,
      summary?.updatedAt ?? '',
      summary?.runId ?? null,
      summary?.messageCount ?? 0,
      summary?.episodeCount ?? null,
      summary?.lastUserMessage ?? null,
      text,
    ],
    bytes: Buffer.byteLength(text, 'utf8'),
  };
}

/**
 * The session store adapter: a session's base in `episodic_sessions.state_json` (its summary in
 * the row's other columns), one `episodic_session_deltas` row per commit since, and a narrow
 * `episodic_session_sizes` row holding the session's revision and what the fold policy needs.
 *
 * A commit is ONE statement: it updates the sizes row only if the revision is the expected one
 * (the row lock makes a racing commit wait, then see the new revision and match nothing) and
 * inserts the delta row only if that update matched. It never reads or rewrites the base, so its
 * cost is the commit's, not the session's. A fold or a save locks the sizes row, replaces the base
 * and deletes the deltas in one transaction: a crash leaves the old base with its deltas or the
 * new base without them. A load is one statement, so the base and the deltas it reads are one
 * snapshot of the database even while a fold commits.
 */
export function createPostgresSessionStoreAdapter(
  database: PostgresDatabase,
  scrubber: Scrubber,
): SessionStoreAdapter {
  const { tables } = database;
  // A range on the primary key (COLLATE "C", see idPrefixRange): an index scan, not a table scan.
  const sessionIdRange = database.statement(
    'sessions_id_range',
    `SELECT session_id FROM ${tables.sessions} WHERE session_id >= $1 AND session_id < $2 ORDER BY session_id LIMIT $3`,
  );
  const load = database.statement(
    'sessions_load',
    `SELECT 0 AS part, 0::bigint AS revision, state_json AS text FROM ${tables.sessions} WHERE session_id = $1
UNION ALL
SELECT 1, revision, line FROM ${tables.sessionDeltas} WHERE session_id = $1
ORDER BY part, revision`,
  );
  const commitDelta = database.statement(
    'sessions_commit',
    `WITH moved AS (
  UPDATE ${tables.sessionSizes}
  SET revision = $3, delta_count = delta_count + 1, delta_bytes = delta_bytes + $4
  WHERE session_id = $1 AND revision = $2
  RETURNING base_bytes, delta_count, delta_bytes
), added AS (
  INSERT INTO ${tables.sessionDeltas} (session_id, revision, line) SELECT $1, $3, $5 FROM moved
)
SELECT base_bytes, delta_count, delta_bytes,
  -- The base's token: the transaction that wrote its row. FOR KEY SHARE reads its latest version
  -- even when a fold committed while this statement waited for the sizes row.
  (SELECT xmin::text FROM ${tables.sessions} WHERE session_id = $1 FOR KEY SHARE) AS base_token
FROM moved`,
  );
  const selectRevision = database.statement(
    'sessions_revision',
    `SELECT revision FROM ${tables.sessionSizes} WHERE session_id = $1`,
  );
  const lockRevision = database.statement(
    'sessions_lock',
    `SELECT revision FROM ${tables.sessionSizes} WHERE session_id = $1 FOR UPDATE`,
  );
  const insertSizes = database.statement(
    'sessions_sizes_insert',
    `INSERT INTO ${tables.sessionSizes} (session_id, revision, base_bytes, delta_count, delta_bytes)
VALUES ($1, $2, $3, 0, 0) ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
  );
  const resetSizes = database.statement(
    'sessions_sizes_reset',
    `UPDATE ${tables.sessionSizes} SET revision = $2, base_bytes = $3, delta_count = 0, delta_bytes = 0
WHERE session_id = $1`,
  );
  const upsertBase = database.statement(
    'sessions_upsert',
    `INSERT INTO ${tables.sessions} (session_id, revision, updated_at, run_id, message_count, episode_count, last_user_message, state_json)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at,
  run_id = excluded.run_id, message_count = excluded.message_count, episode_count = excluded.episode_count,
  last_user_message = excluded.last_user_message, state_json = excluded.state_json
RETURNING xmin::text AS base_token`,
  );
  const removeDeltas = database.statement(
    'sessions_deltas_delete',
    `DELETE FROM ${tables.sessionDeltas} WHERE session_id = $1`,
  );
  const removeSizes = database.statement(
    'sessions_sizes_delete',
    `DELETE FROM ${tables.sessionSizes} WHERE session_id = $1`,
  );
  const removeBase = database.statement(
    'sessions_delete',
    `DELETE FROM ${tables.sessions} WHERE session_id = $1`,
  );
  const heads = database.statement(
    'sessions_heads',
    `SELECT s.session_id, s.revision, s.updated_at, s.run_id, s.message_count, s.episode_count,
  s.last_user_message,
  (SELECT d.line FROM ${tables.sessionDeltas} d WHERE d.session_id = s.session_id
   ORDER BY d.revision DESC LIMIT 1) AS last_delta
FROM ${tables.sessions} s`,
  );

  const revisionOf = async (sessionId: string, on: Queryable, lock: boolean) => {
    const row = (
      await database.query<{ revision: string }>(
        lock ? lockRevision : selectRevision,
        [sessionId],
        on,
      )
    ).rows[0];
    return row === undefined ? null : Number(row.revision);
  };

  /**
   * Inside a transaction: locks the session's sizes row, or creates it for a session that does
   * not exist yet (then the new row is this transaction's until it commits). `check` sees the
   * revision found (null: none) and throws to stop; returns whether the row was created.
   * Under READ COMMITTED each statement sees what committed before it, so when another writer
   * created the session between the lock and the insert, the next lock finds its row.
   */
  const claim = async (
    client: pg.PoolClient,
    sessionId: string,
    revision: number,
    baseBytes: number,
    check: (current: number | null) => void,
  ): Promise<boolean> => {
    for (let attempt = 1; ; attempt++) {
      const current = await revisionOf(sessionId, client, true);
      check(current);
      if (current !== null) return false;
      const created = await database.query(insertSizes, [sessionId, revision, baseBytes], client);
      if (created.rowCount === 1) return true;
      if (attempt === ATTEMPTS) throw churning(sessionId);
    }
  };

  /**
   * Inside a transaction holding the sizes row: stores `lines` as the base, dropping the deltas.
   * Returns the base's token: the `xmin` of its row, which every write of a base changes.
   */
  const writeBase = async (
    client: pg.PoolClient,
    sessionId: string,
    row: ReturnType<typeof baseRow>,
    revision: number,
    created: boolean,
  ): Promise<string | undefined> => {
    if (!created) await database.query(resetSizes, [sessionId, revision, row.bytes], client);
    const written = await database.query<{ base_token: string }>(upsertBase, row.values, client);
    await database.query(removeDeltas, [sessionId], client);
    return written.rows[0]?.base_token;
  };

  return {
    specificationVersion: 'v2',
    name: 'postgres',
    capabilities: { atomicSave: true, crossProcessConflicts: true },
    load(sessionId) {
      return database.guard(`load session ${sessionId}`, async () => {
        const { rows } = await database.query<{ part: number; text: string }>(load, [sessionId]);
        const base = rows[0];
        if (base === undefined || base.part !== 0) return null;
        const deltas: string[] = new Array(rows.length - 1);
        for (let index = 1; index < rows.length; index++)
          deltas[index - 1] = (rows[index] as { text: string }).text;
        return { base: textLines(base.text), deltas };
      });
    },
    commit(sessionId, commit) {
      return database.guard(
        `commit session ${sessionId}`,
        async (): Promise<SessionCommitSizes> => {
          if (commit.expectedRevision === null) {
            const row = baseRow(sessionId, commit.base ?? []);
            return database.transaction(async (client) => {
              await claim(client, sessionId, commit.revision, row.bytes, (current) =>
                assertExpectedRevision(sessionId, current, null),
              );
              const baseToken = await writeBase(client, sessionId, row, commit.revision, true);
              const sizes = { deltaCount: 0, deltaBytes: 0, baseBytes: row.bytes };
              return baseToken === undefined ? sizes : { ...sizes, baseToken };
            });
          }
          const values = [
            sessionId,
            commit.expectedRevision,
            commit.revision,
            Buffer.byteLength(commit.delta, 'utf8') + 1,
            commit.delta,
          ];
          for (let attempt = 1; ; attempt++) {
            const sizes = (await database.query<SizesRow>(commitDelta, values)).rows[0];
            if (sizes !== undefined) {
              return {
                deltaCount: Number(sizes.delta_count),
                deltaBytes: Number(sizes.delta_bytes),
                baseBytes: Number(sizes.base_bytes),
                ...(sizes.base_token === null ? {} : { baseToken: sizes.base_token }),
              };
            }
            const current = await revisionOf(sessionId, database.pool, false);
            assertExpectedRevision(sessionId, current, commit.expectedRevision);
            // The revision matched by the time it was read again (the session was deleted and
            // created anew meanwhile): run the commit again, a few times at most.
            if (attempt === ATTEMPTS) throw churning(sessionId);
          }
        },
      );
    },
    replace(sessionId, lines, revision, expectedRevision) {
      return database.guard(`save session ${sessionId}`, async () => {
        const row = baseRow(sessionId, lines);
        return database.transaction(async (client) => {
          const created = await claim(client, sessionId, revision, row.bytes, (current) =>
            assertReplaceable(sessionId, current, revision, expectedRevision),
          );
          return writeBase(client, sessionId, row, revision, created);
        });
      });
    },
    sessionIdsWithPrefix(prefix, limit) {
      const { from, to } = idPrefixRange(prefix);
      return database.guard('find sessions by id prefix', async () =>
        (await database.query<{ session_id: string }>(sessionIdRange, [from, to, limit])).rows.map(
          (row) => row.session_id,
        ),
      );
    },
    list() {
      // The base row's summary columns stand in for its first line (no base text is read).
      return database.guard('list sessions', async () =>
        (await database.query<HeadRow>(heads)).rows.map(
          (row): StoredSessionHead => ({
            sessionId: row.session_id,
            base: summaryBaseLine({
              sessionId: row.session_id,
              revision: Number(row.revision),
              updatedAt: row.updated_at,
              runId: row.run_id,
              messageCount: Number(row.message_count),
              episodeCount: row.episode_count === null ? null : Number(row.episode_count),
              lastUserMessage: row.last_user_message,
            }),
            lastDelta: row.last_delta,
          }),
        ),
      );
    },
    delete(sessionId) {
      return database.guard(`delete session ${sessionId}`, () =>
        database.transaction(async (client) => {
          // The sizes row first: every writer locks it before the base and the deltas.
          await database.query(removeSizes, [sessionId], client);
          await database.query(removeDeltas, [sessionId], client);
          return ((await database.query(removeBase, [sessionId], client)).rowCount ?? 0) > 0;
        }),
      );
    },
    purge() {
      return database.guard('purge replaced snapshots', () =>
        scrubber.scrub([tables.sessions, tables.sessionDeltas]),
      );
    },
  };
}
