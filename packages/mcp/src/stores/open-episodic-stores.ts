import { existsSync } from 'node:fs';
import type { ArtifactStore, Ledger, RunStore, SessionStore } from '@episodic/core';
import type { PostgresStore } from '@episodic/store-postgres';
import { createSqliteStore, type SqliteStore } from '@episodic/store-sqlite';
import {
  createEpisodicHome,
  type EpisodicLocation,
  type OpenEpisodicStoresOptions,
  resolveEpisodicLocation,
} from './episodic-location.js';
import { openPostgresStores } from './open-postgres-stores.js';
import { openRunFiles } from './open-run-files.js';

/** The stores under the Episodic home, opened together. */
export interface EpisodicStores {
  /** The scoped ledger (always in the database: the SQLite file or PostgreSQL). */
  readonly ledger: Ledger;
  /** Runs (and task episodes): in the database, or run files under the home. */
  readonly runs: RunStore;
  /** Session snapshots: in the database, or snapshot files under the home. */
  readonly sessions: SessionStore;
  /** Artifacts, associations and episode metadata (always in the database). */
  readonly artifacts: ArtifactStore;
  /** Where everything is. */
  readonly location: EpisodicLocation;
  /**
   * The SQLite store, with its native connection (for backups, `integrity_check`, doctor tools);
   * absent when the database is PostgreSQL. Opened with `readOnly` on a home without a database, it
   * is an empty in-memory database.
   */
  readonly sqlite?: SqliteStore;
  /** The PostgreSQL store, with its pool; present when the database is PostgreSQL. */
  readonly postgres?: PostgresStore;
  /** Closes every store: pending run appends are finished first. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the SQLite store of a location: read-only (an empty in-memory database when there is no
 * file yet, so nothing is created), or for writing (created and migrated when missing).
 */
export function openSqliteOf(
  location: EpisodicLocation,
  options: OpenEpisodicStoresOptions,
): SqliteStore {
  const readOnly = options.readOnly === true;
  const missing = location.database !== ':memory:' && !existsSync(location.database);
  return createSqliteStore({
    filename: readOnly && missing ? ':memory:' : location.database,
    ...(readOnly && !missing ? { readOnly: true } : {}),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
    ...(options.artifacts === undefined ? {} : { artifacts: options.artifacts }),
  });
}

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
  if (location.databaseKind === 'postgres') return openPostgresStores(location, options);
  const checked = options ?? {};
  if (checked.readOnly !== true) createEpisodicHome(location);
  const sqlite = openSqliteOf(location, checked);
  let runs = sqlite.runs;
  let sessions = sqlite.sessions;
  let closeFs: (() => Promise<void>) | undefined;
  if (location.store === 'fs') {
    try {
      const files = openRunFiles(location, checked);
      runs = files.runs;
      sessions = files.sessions;
      closeFs = files.close;
    } catch (error) {
      await sqlite.close();
      throw error;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    ledger: sqlite.ledger,
    runs,
    sessions,
    artifacts: sqlite.artifacts,
    location,
    sqlite,
    close() {
      closing ??= (async () => {
        try {
          await closeFs?.();
        } finally {
          await sqlite.close();
        }
      })();
      return closing;
    },
  };
}
