import { existsSync } from 'node:fs';
import { createSqliteStore, type SqliteStore } from '@episodic/store-sqlite';
import {
  createEpisodicHome,
  type EpisodicLocation,
  type OpenEpisodicStoresOptions,
} from './episodic-location.js';
import type { EpisodicStores } from './episodic-stores.js';
import { readHomeConfig } from './home-config.js';
import { openRunFiles } from './open-run-files.js';

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
  // The home's config may turn the chained ledger on (`"chain": true | "strict"`).
  const chain = readHomeConfig(location.home)?.chain;
  return createSqliteStore({
    filename: readOnly && missing ? ':memory:' : location.database,
    ...(readOnly && !missing ? { readOnly: true } : {}),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
    ...(options.artifacts === undefined ? {} : { artifacts: options.artifacts }),
    ...(chain === undefined ? {} : { chain }),
  });
}

/**
 * The SQLite branch of `openEpisodicStores`: the ledger and the artifacts in the SQLite file, and
 * the runs and sessions there too or as run files under the home (`store: 'fs'`).
 */
export async function openSqliteStores(
  location: EpisodicLocation,
  options: OpenEpisodicStoresOptions | undefined,
): Promise<EpisodicStores> {
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
