import { EpisodicError, type RunStore, type SessionStore } from '@episodic/core';
import {
  createEpisodicHome,
  type EpisodicLocation,
  type OpenEpisodicStoresOptions,
  resolveEpisodicLocation,
} from './episodic-location.js';
import { openRunFiles } from './open-run-files.js';
import { openSqliteOf } from './open-sqlite-stores.js';

/** The run and session stores of the Episodic home, opened on their own. */
export interface EpisodicRunStores {
  /** Runs: in the SQLite file, or run files under the home. */
  readonly runs: RunStore;
  /** Session snapshots: in the SQLite file, or snapshot files under the home. */
  readonly sessions: SessionStore;
  /** Where everything is. */
  readonly location: EpisodicLocation;
  /** Closes the stores (pending run appends are finished first). Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens only the runs and sessions of the Episodic home, where `openEpisodicStores` would find
 * them. With run files (`store: 'fs'`) the database is not opened and better-sqlite3 is never
 * loaded, so a tool that reads run files works even where the native addon is not built.
 *
 * ```ts
 * const { runs, close } = openEpisodicRunStores({ home: '/tmp/demo', store: 'fs', readOnly: true });
 * console.log((await runs.list()).runs.length);
 * await close();
 * ```
 */
export function openEpisodicRunStores(options?: OpenEpisodicStoresOptions): EpisodicRunStores {
  const location = resolveEpisodicLocation(options);
  if (location.databaseKind === 'postgres' && location.store === 'sqlite') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `openEpisodicRunStores opens a SQLite file or run files; ${location.database} is a PostgreSQL server. Use openEpisodicStores, which opens PostgreSQL too.`,
      details: { database: location.database },
    });
  }
  const checked = options ?? {};
  if (checked.readOnly !== true) createEpisodicHome(location);
  const opened =
    location.store === 'fs' ? openRunFiles(location, checked) : openSqliteOf(location, checked);
  let closing: Promise<void> | undefined;
  return {
    runs: opened.runs,
    sessions: opened.sessions,
    location,
    close() {
      closing ??= opened.close();
      return closing;
    },
  };
}
