import type { EpisodicStores } from '@episodic/home';
import { readSqliteLedgerEventRow } from '@episodic/store-sqlite';

/** The columns of one ledger row that redaction needs to find the runs and sessions behind it. */
export interface LedgerEventRow {
  scope: string;
  session_id: string;
  refs_json: string | null;
}

/**
 * Reads one ledger row by event id, through the store that holds it (the Ledger API has no read by
 * id): the SQLite file or the PostgreSQL schema. Undefined when absent.
 */
export async function readLedgerEventRow(
  stores: EpisodicStores,
  eventId: string,
): Promise<LedgerEventRow | undefined> {
  if (stores.postgres !== undefined) {
    const { readPostgresLedgerEventRow } = await import('@episodic/store-postgres');
    return readPostgresLedgerEventRow(stores.postgres, eventId);
  }
  if (stores.sqlite === undefined) return undefined;
  return readSqliteLedgerEventRow(stores.sqlite.database, eventId);
}
