import type { LedgerRow } from '../core-kit.js';
import type { KeyValueStore } from '../kv/key-value-store.js';

/**
 * The ledger's keys: one value per event, one per session head (its last position), and one
 * clock that every write bumps. Because every write checks the clock in its compare-and-set,
 * ledger writes are serialized: a batch, a redaction or a GC is all or nothing.
 */
export const CLOCK_KEY = 'ledger/clock';
export const EVENT_PREFIX = 'ledger/event/';

export const eventKey = (eventId: string): string => `${EVENT_PREFIX}${eventId}`;

/** The key of a session's head; `\u0000` cannot occur in a scope or a session id. */
export const headKey = (scope: string, sessionId: string): string =>
  `ledger/head/${scope}\u0000${sessionId}`;

/** What the clock holds: how many writes and how many events the ledger has seen. */
export interface LedgerClock {
  readonly version: number;
  readonly sequence: number;
}

export async function readClock(kv: KeyValueStore) {
  const value = await kv.get(CLOCK_KEY);
  const clock: LedgerClock =
    value === undefined ? { version: 0, sequence: 0 } : (JSON.parse(value) as LedgerClock);
  return { value, clock };
}

/** The check and the write of one ledger write's clock tick. */
export function tickClock(value: string | undefined, next: LedgerClock) {
  return {
    check: { key: CLOCK_KEY, value },
    write: { key: CLOCK_KEY, value: JSON.stringify({ ...next, version: next.version + 1 }) },
  };
}

/** Every stored event (a backend with an ordered index would scan only the range it needs). */
export async function readAllRows(kv: KeyValueStore): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = [];
  for (const key of await kv.keys(EVENT_PREFIX)) {
    const value = await kv.get(key);
    if (value !== undefined) rows.push(JSON.parse(value) as LedgerRow);
  }
  return rows;
}

/** The ledger's order: `ts_ms`, then `sequence`. */
export const compareRows = (left: LedgerRow, right: LedgerRow): number =>
  left.ts_ms - right.ts_ms || left.sequence - right.sequence;
