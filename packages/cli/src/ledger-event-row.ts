import type { EpisodicStores } from '@episodic/mcp/stores';

/** The columns of one ledger row that redaction needs to find the runs and sessions behind it. */
export interface LedgerEventRow {
  scope: string;
  session_id: string;
  refs_json: string | null;
}

/**
 * Reads one ledger row by event id, straight from the database (the Ledger API has no read by id;
 * the CLI owns this database): the SQLite file or the PostgreSQL schema. Undefined when absent.
 */
export async function readLedgerEventRow(
  stores: EpisodicStores,
  eventId: string,
): Promise<LedgerEventRow | undefined> {
  if (stores.postgres !== undefined) {
    const { rows } = await stores.postgres.pool.query<LedgerEventRow>(
      `SELECT scope, session_id, refs_json FROM "${stores.postgres.schema}".episodic_events WHERE event_id = $1`,
      [eventId],
    );
    return rows[0];
  }
  return stores.sqlite?.database
    .prepare('SELECT scope, session_id, refs_json FROM episodic_events WHERE event_id = ?')
    .get(eventId) as LedgerEventRow | undefined;
}
