import type { EpisodicLedger, EpisodicStores } from '@episodic/mcp/stores';

/** The native connection of the ledger's database. */
type LedgerDatabase = EpisodicLedger['database'];

/** What the ledger holds for one scope. */
export interface LedgerScopeCount {
  readonly scope: string;
  /** Ledger events (redacted ones included). */
  readonly events: number;
  /** Distinct sessions with at least one event. */
  readonly sessions: number;
  /** The oldest and newest event times (epoch ms). */
  readonly first_ts_ms: number;
  readonly last_ts_ms: number;
}

/**
 * Every scope of the ledger with its counts, by scope name. One indexed pass over
 * `episodic_events` (its `(scope, ts_ms)` index covers it) and one over the session heads.
 */
function ledgerScopes(database: LedgerDatabase): LedgerScopeCount[] {
  const events = database
    .prepare(
      'SELECT scope, count(*) AS events, min(ts_ms) AS first_ts_ms, max(ts_ms) AS last_ts_ms FROM episodic_events GROUP BY scope',
    )
    .all() as { scope: string; events: number; first_ts_ms: number; last_ts_ms: number }[];
  const sessions = new Map(
    (
      database
        .prepare('SELECT scope, count(*) AS sessions FROM episodic_session_heads GROUP BY scope')
        .all() as { scope: string; sessions: number }[]
    ).map((row) => [row.scope, row.sessions]),
  );
  return events
    .map((row) => ({ ...row, sessions: sessions.get(row.scope) ?? 0 }))
    .sort((left, right) => (left.scope < right.scope ? -1 : left.scope > right.scope ? 1 : 0));
}

/** A note naming the scopes that hold events, when a query of `scope` found none. */
export function otherScopesNote(
  opened: Partial<Pick<EpisodicLedger, 'database'>>,
  scope: string | null,
): string | null {
  // Named from the SQLite file only; on PostgreSQL the note is left out (`scopes list` has them).
  if (opened.database === undefined) return null;
  const scopes = ledgerScopes(opened.database).filter((entry) => entry.scope !== scope);
  if (scopes.length === 0) return null;
  const shown = scopes
    .sort((left, right) => right.events - left.events)
    .slice(0, 5)
    .map((entry) => `${entry.scope} (${entry.events} event${entry.events === 1 ? '' : 's'})`);
  const more = scopes.length > 5 ? ` and ${scopes.length - 5} more` : '';
  return `Scopes with events: ${shown.join(', ')}${more}. List them all with "episodic scopes list".`;
}

/** `ledgerScopes` on PostgreSQL: the same two passes over the store's schema. */
async function postgresLedgerScopes(
  store: NonNullable<EpisodicStores['postgres']>,
): Promise<LedgerScopeCount[]> {
  const schema = `"${store.schema.replaceAll('"', '""')}"`;
  const events = await store.pool.query<{
    scope: string;
    events: string;
    first_ts_ms: string;
    last_ts_ms: string;
  }>(
    `SELECT scope, count(*) AS events, min(ts_ms) AS first_ts_ms, max(ts_ms) AS last_ts_ms FROM ${schema}.episodic_events GROUP BY scope`,
  );
  const heads = await store.pool.query<{ scope: string; sessions: string }>(
    `SELECT scope, count(*) AS sessions FROM ${schema}.episodic_session_heads GROUP BY scope`,
  );
  const sessions = new Map(heads.rows.map((row) => [row.scope, Number(row.sessions)]));
  return events.rows
    .map((row) => ({
      scope: row.scope,
      events: Number(row.events),
      sessions: sessions.get(row.scope) ?? 0,
      first_ts_ms: Number(row.first_ts_ms),
      last_ts_ms: Number(row.last_ts_ms),
    }))
    .sort((left, right) => (left.scope < right.scope ? -1 : left.scope > right.scope ? 1 : 0));
}

/** Every scope of the stores' ledger (SQLite or PostgreSQL) with its counts, by scope name. */
export async function storeLedgerScopes(stores: EpisodicStores): Promise<LedgerScopeCount[]> {
  if (stores.sqlite !== undefined) return ledgerScopes(stores.sqlite.database);
  if (stores.postgres !== undefined) return postgresLedgerScopes(stores.postgres);
  return [];
}
