import { listSqliteScopeSummaries } from '@episodic/store-sqlite';
import type { EpisodicStores } from './episodic-stores.js';

/** What a home's ledger holds for one scope. */
export interface HomeScopeSummary {
  readonly scope: string;
  /** Ledger events (redacted ones included). */
  readonly events: number;
  /** Sessions of the scope with a head (a position) in the ledger. */
  readonly sessions: number;
  /** The oldest and newest event times (epoch ms). */
  readonly first_ts_ms: number;
  readonly last_ts_ms: number;
}

/**
 * Every scope of the stores' ledger (SQLite or PostgreSQL) with its counts, sorted by scope name:
 * what `episodic scopes list` shows of the ledger. Each store counts its own tables.
 *
 * @example
 * ```ts
 * const stores = await openEpisodicStores({ home: '/path/to/home' });
 * for (const entry of await listScopes(stores)) console.log(entry.scope, entry.events);
 * await stores.close();
 * ```
 */
export async function listScopes(stores: EpisodicStores): Promise<HomeScopeSummary[]> {
  if (stores.sqlite !== undefined) return listSqliteScopeSummaries(stores.sqlite.database);
  if (stores.postgres !== undefined) {
    const { listPostgresScopeSummaries } = await import('@episodic/store-postgres');
    return listPostgresScopeSummaries(stores.postgres);
  }
  return [];
}
