import { type OpenEpisodicStoresOptions, resolveEpisodicLocation } from './episodic-location.js';
import type { EpisodicStores } from './episodic-stores.js';
import { openPostgresStores } from './open-postgres-stores.js';
import { openSqliteStores } from './open-sqlite-stores.js';

/**
 * Opens the stores under the Episodic home, as the `episodic` CLI and the `episodic-mcp` server do:
 * the ledger and the artifacts in the SQLite file, runs and sessions in that file too or as
 * store-fs files under the home (`store: 'fs'`; by default, where the home keeps them: see
 * `resolveEpisodicLocation`). With a `postgres://` URL as `db` (or `EPISODIC_DB`), the database is
 * PostgreSQL (`@episodic/store-postgres`, loaded only then). With `readOnly`, nothing is created
 * or changed.
 *
 * ```ts
 * const stores = await openEpisodicStores({ home: '/tmp/demo' });
 * await stores.ledger.query({ scope: 'my-project' });
 * await stores.close();
 * ```
 */
export async function openEpisodicStores(
  options?: OpenEpisodicStoresOptions,
): Promise<EpisodicStores> {
  const location = resolveEpisodicLocation(options);
  return location.databaseKind === 'postgres'
    ? openPostgresStores(location, options)
    : openSqliteStores(location, options);
}
