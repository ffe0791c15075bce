import { EpisodicError } from '../errors/episodic-error.js';
import type {
  LedgerDamagedRow,
  LedgerEvent,
  LedgerEventType,
  LedgerJson,
} from '../schema/ledger-event.js';
import type { Metadata } from '../schema/metadata.js';
import { safeParseJsonExact } from '../util/exact-json.js';
import { safeJsonParse } from '../util/json.js';

/**
 * A ledger event as adapters store and return it: the seed's columns, with `payload_json`,
 * `refs_json` and `metadata_json` as canonical JSON text. Adapters never interpret these fields;
 * core builds rows on the way in and turns them into `LedgerEvent`s on the way out.
 */
export interface LedgerRow {
  readonly event_id: string;
  readonly ts_ms: number;
  /** The normalized scope. */
  readonly scope: string;
  readonly session_id: string;
  readonly agent_id: string;
  readonly type: string;
  readonly summary: string;
  /** Canonical JSON or null; `undefined` when the read did not select payloads. */
  readonly payload_json?: string | null;
  readonly refs_json: string | null;
  readonly redacted: boolean;
  readonly schema_version: string;
  readonly created_at: string;
  readonly metadata_json: string | null;
  /** 1-based place in its session (within its scope), assigned by the adapter on append. */
  readonly position: number;
  /**
   * Insertion order, assigned by the adapter on append: strictly increasing across the whole
   * ledger (SQLite's `id`). Ties on `ts_ms` are ordered by it; it is never shown to callers.
   */
  readonly sequence: number;
}

/** A row about to be appended: no position or sequence yet (the adapter assigns them). */
export type NewLedgerRow = Omit<LedgerRow, 'position' | 'sequence' | 'payload_json'> & {
  readonly payload_json: string | null;
};

/**
 * A ledger row as a SQL backend selects it: the seed's columns, `redacted` as 0 or 1, the row's
 * `id` as its sequence, and numbers that may come back as text (PostgreSQL's `bigint`).
 */
export interface SqlLedgerRow {
  id: number | string;
  event_id: string;
  ts_ms: number | string;
  scope: string;
  session_id: string;
  agent_id: string;
  type: string;
  summary: string;
  payload_json?: string | null;
  refs_json: string | null;
  redacted: number;
  schema_version: string;
  created_at: string;
  metadata_json: string | null;
  /** Null for a row stored before positions existed (read as 0). */
  position: number | string | null;
}

/**
 * The `LedgerRow` of a row an adapter returned: a `SqlLedgerRow` (told by its numeric `redacted`)
 * is converted in place (a query may return thousands: no copy), its `id` staying as an extra
 * property that core never reads; a `LedgerRow` (boolean `redacted`) is returned as it is, so a
 * row converted once is never converted again. `createLedger` does this for every row it reads;
 * call it only when you read an adapter yourself.
 */
export function ledgerRowFromSql(stored: LedgerRow | SqlLedgerRow): LedgerRow {
  if (typeof stored.redacted !== 'number') return stored as LedgerRow;
  const row = stored as unknown as {
    redacted: boolean;
    position: number;
    sequence: number;
    ts_ms: number;
  };
  row.redacted = stored.redacted !== 0;
  row.position = stored.position === null ? 0 : Number(stored.position);
  if (typeof stored.ts_ms !== 'number') row.ts_ms = Number(stored.ts_ms);
  row.sequence = Number(stored.id);
  return row as unknown as LedgerRow;
}

/**
 * A new row's insert values, in this column order: `event_id, ts_ms, scope, session_id, agent_id,
 * type, summary, payload_json, refs_json, schema_version, created_at, metadata_json` (`redacted`
 * is false for every new row; position and sequence are the backend's). Core hands them to
 * `LedgerAdapter.append` as `LedgerAppendBatch.values`.
 */
export function newLedgerRowValues(row: NewLedgerRow): unknown[] {
  return [
    row.event_id,
    row.ts_ms,
    row.scope,
    row.session_id,
    row.agent_id,
    row.type,
    row.summary,
    row.payload_json,
    row.refs_json,
    row.schema_version,
    row.created_at,
    row.metadata_json,
  ];
}

/** The row an adapter stored for `row`, with the position and sequence it assigned. */
export function storedLedgerRow(
  row: NewLedgerRow,
  position: number | string,
  sequence: number | string | bigint,
): LedgerRow {
  return {
    event_id: row.event_id,
    ts_ms: row.ts_ms,
    scope: row.scope,
    session_id: row.session_id,
    agent_id: row.agent_id,
    type: row.type,
    summary: row.summary,
    payload_json: row.payload_json,
    refs_json: row.refs_json,
    redacted: row.redacted,
    schema_version: row.schema_version,
    created_at: row.created_at,
    metadata_json: row.metadata_json,
    position: Number(position),
    sequence: Number(sequence),
  };
}

/**
 * Parses a stored JSON column. Payload and refs keep every number exactly (an integer beyond 2^53
 * becomes a `bigint`); metadata only ever holds numbers a double keeps.
 */
function parseStored(row: LedgerRow, column: string, text: string): unknown {
  const parsed = column === 'metadata_json' ? safeJsonParse(text) : safeParseJsonExact(text);
  if (parsed.success) return parsed.value;
  throw new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `Ledger event ${row.event_id} has unreadable ${column}: it is not JSON (${parsed.error}). Another tool wrote it, or the row was changed outside Episodic; redact the event to clear it (the row is kept), or restore the database from a backup.`,
    details: { eventId: row.event_id, column },
  });
}

/**
 * The damage report for a row `rowToLedgerEvent` could not read, or null when `error` is not
 * such a failure: reads list these instead of failing (one damaged row never hides the others).
 */
export function damagedRowOf(row: LedgerRow, error: unknown): LedgerDamagedRow | null {
  if (!EpisodicError.hasCode(error, 'CORRUPT_DATA')) return null;
  const column = error.details.column;
  if (typeof column !== 'string' || error.details.eventId !== row.event_id) return null;
  return {
    event_id: row.event_id,
    ts_ms: row.ts_ms,
    scope: row.scope,
    session_id: row.session_id,
    column,
    error: error.message,
  };
}

/**
 * Turns a stored row into the event callers see; `payload` only when it was selected. With
 * `'lazy'` (append receipts, whose payload is rarely read), `payload` is an ordinary enumerable
 * property that parses the stored text on first read and then holds the value: a batch of a
 * thousand appends does not parse a thousand payloads nobody looks at.
 */
export function rowToLedgerEvent(row: LedgerRow, includePayload: boolean | 'lazy'): LedgerEvent {
  const event: LedgerEvent = {
    event_id: row.event_id,
    ts_ms: row.ts_ms,
    scope: row.scope,
    session_id: row.session_id,
    agent_id: row.agent_id,
    type: row.type as LedgerEventType,
    summary: row.summary,
    refs:
      row.refs_json === null ? null : (parseStored(row, 'refs_json', row.refs_json) as LedgerJson),
    redacted: row.redacted,
    schema_version: row.schema_version,
    created_at: row.created_at,
    position: row.position,
  };
  if (includePayload === 'lazy' && typeof row.payload_json === 'string') {
    const text = row.payload_json;
    const settle = (value: unknown) =>
      Object.defineProperty(event, 'payload', {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    Object.defineProperty(event, 'payload', {
      enumerable: true,
      configurable: true,
      get() {
        const value = parseStored(row, 'payload_json', text) as LedgerJson;
        settle(value);
        return value;
      },
      set: settle,
    });
  } else if (includePayload) {
    const text = row.payload_json;
    event.payload =
      text === null || text === undefined
        ? null
        : (parseStored(row, 'payload_json', text) as LedgerJson);
  }
  if (row.metadata_json !== null) {
    event.metadata = parseStored(row, 'metadata_json', row.metadata_json) as Metadata;
  }
  return event;
}
