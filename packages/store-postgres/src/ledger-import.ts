import { EpisodicError } from '@episodic/core';
import type { LedgerRow } from '@episodic/core/adapter';
import type { PostgresDatabase } from './postgres-database.js';
import { searchVectorOf } from './postgres-ledger.js';

/** A session head as another backend stores it: the last position it handed out. */
export interface SessionHead {
  scope: string;
  session_id: string;
  position: number;
}

/** What `importLedgerRows` did. */
export interface LedgerImportReceipt {
  /** Rows written. */
  written: number;
  /** Rows already stored with the same content (an earlier, interrupted import). */
  skipped: number;
}

const COLUMNS =
  'event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position';

const SOURCE_COLUMNS = COLUMNS.split(', ')
  .map((name) => `r.${name}`)
  .join(', ');

/** Compared when an event id is already stored: everything but the insertion order. */
function sameRow(left: LedgerRow, right: LedgerRow): boolean {
  return (
    left.ts_ms === right.ts_ms &&
    left.scope === right.scope &&
    left.session_id === right.session_id &&
    left.agent_id === right.agent_id &&
    left.type === right.type &&
    left.summary === right.summary &&
    (left.payload_json ?? null) === (right.payload_json ?? null) &&
    left.refs_json === right.refs_json &&
    left.redacted === right.redacted &&
    left.schema_version === right.schema_version &&
    left.created_at === right.created_at &&
    left.metadata_json === right.metadata_json &&
    left.position === right.position
  );
}

/**
 * Writes ledger rows exactly as another backend stored them (event ids, times, positions,
 * redaction, schema version, payload text), in the given order, in one transaction; raises each
 * session's head to at least its highest imported position. Rows already stored with the same
 * content are skipped; an event id stored with other content is `CONFLICT` and nothing is written.
 */
export async function importLedgerRows(
  database: PostgresDatabase,
  rows: readonly LedgerRow[],
): Promise<LedgerImportReceipt> {
  const { tables } = database;
  return database.guard('import ledger rows', () =>
    database.transaction(async (client) => {
      const inserted = new Set<string>();
      if (rows.length > 0) {
        const column = <Value>(pick: (row: LedgerRow) => Value) => rows.map(pick);
        const result = await database.query<{ event_id: string }>(
          `INSERT INTO ${tables.events} (${COLUMNS}, search_vector)
SELECT ${SOURCE_COLUMNS}, r.search_vector::tsvector
FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
  $8::text[], $9::text[], $10::integer[], $11::text[], $12::text[], $13::text[], $14::bigint[],
  $15::text[])
  WITH ORDINALITY AS r(${COLUMNS}, search_vector, ordinality)
ORDER BY r.ordinality
ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
          [
            column((row) => row.event_id),
            column((row) => row.ts_ms),
            column((row) => row.scope),
            column((row) => row.session_id),
            column((row) => row.agent_id),
            column((row) => row.type),
            column((row) => row.summary),
            column((row) => row.payload_json ?? null),
            column((row) => row.refs_json),
            column((row) => (row.redacted ? 1 : 0)),
            column((row) => row.schema_version),
            column((row) => row.created_at),
            column((row) => row.metadata_json),
            column((row) => (row.position === 0 ? null : row.position)),
            // Indexed for search as the store's own appends are.
            column(searchVectorOf),
          ],
          client,
        );
        for (const row of result.rows) inserted.add(row.event_id);
      }
      const others = rows.filter((row) => !inserted.has(row.event_id));
      if (others.length > 0) {
        const stored = await database.query<Record<string, unknown>>(
          `SELECT id, ${COLUMNS} FROM ${tables.events} WHERE event_id = ANY($1::text[])`,
          [others.map((row) => row.event_id)],
          client,
        );
        const byId = new Map(
          stored.rows.map((row) => [
            row.event_id as string,
            {
              ...row,
              ts_ms: Number(row.ts_ms),
              position: row.position === null ? 0 : Number(row.position),
              redacted: Number(row.redacted) !== 0,
            } as unknown as LedgerRow,
          ]),
        );
        const different = others.filter((row) => {
          const existing = byId.get(row.event_id);
          return existing === undefined || !sameRow(existing, row);
        });
        if (different.length > 0) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `Event id ${different[0]?.event_id} is already stored in PostgreSQL with other content${different.length > 1 ? ` (and ${different.length - 1} more)` : ''}. Nothing of this batch was imported; import into another schema, or remove the conflicting events.`,
            details: { conflictingEventIds: different.slice(0, 20).map((row) => row.event_id) },
          });
        }
      }
      const heads = new Map<string, SessionHead>();
      for (const row of rows) {
        const key = `${row.scope}\u0000${row.session_id}`;
        const head = heads.get(key);
        if (head === undefined || row.position > head.position) {
          heads.set(key, { scope: row.scope, session_id: row.session_id, position: row.position });
        }
      }
      await raiseHeads(database, [...heads.values()], client);
      return { written: inserted.size, skipped: others.length };
    }),
  );
}

async function raiseHeads(
  database: PostgresDatabase,
  heads: readonly SessionHead[],
  client?: Parameters<PostgresDatabase['query']>[2],
): Promise<void> {
  if (heads.length === 0) return;
  const sorted = [...heads].sort((left, right) =>
    left.scope === right.scope
      ? left.session_id < right.session_id
        ? -1
        : 1
      : left.scope < right.scope
        ? -1
        : 1,
  );
  await database.query(
    `INSERT INTO ${database.tables.heads} AS h (scope, session_id, position)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
ON CONFLICT (scope, session_id) DO UPDATE SET position = greatest(h.position, excluded.position)`,
    [
      sorted.map((head) => head.scope),
      sorted.map((head) => head.session_id),
      sorted.map((head) => head.position),
    ],
    client,
  );
}

/**
 * Raises session heads to at least the given positions: a session whose last events were
 * collected keeps counting from where the other backend was, so new events get the positions
 * they would have got there.
 */
export function importSessionHeads(
  database: PostgresDatabase,
  heads: readonly SessionHead[],
): Promise<void> {
  return database.guard('import session heads', () => raiseHeads(database, heads));
}
