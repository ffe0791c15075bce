import { countFsStoreFiles } from '@episodic/store-fs';
import { sqliteDatabaseHoldsRuns } from '@episodic/store-sqlite';
import { readHomeConfig } from './home-config.js';

/** Where a home keeps its runs and sessions, and how that was decided. */
export interface DetectedRunStore {
  readonly store: 'sqlite' | 'fs';
  readonly source: 'home-config' | 'detected' | 'default';
}

/**
 * Whether the database holds any run or session, read without changing anything. A database that
 * cannot be read says no: the home's run files are then the data this home is known to hold.
 */
export function databaseHoldsRuns(database: string): boolean {
  return sqliteDatabaseHoldsRuns(database);
}

/**
 * Where a home keeps runs and sessions when neither `--store` nor `EPISODIC_STORE` says:
 *
 * 1. the home's config (`episodic-home.json`), written when the CLI or the MCP server created it;
 * 2. for a home without one (created before configs existed, or by an agent that writes run files
 *    itself with `@episodic/store-fs`, like the demo): `fs` when it holds run files or snapshots
 *    and the database holds no runs or sessions; `sqlite` when the database holds some;
 * 3. `sqlite` for a home that holds neither (a new home).
 *
 * It creates and changes nothing.
 */
export function detectRunStore(home: string, database: string): DetectedRunStore {
  const config = readHomeConfig(home);
  if (config !== null) return { store: config.store, source: 'home-config' };
  const files = countFsStoreFiles(home, { atMost: 1 });
  if (files.runFiles + files.snapshots === 0) return { store: 'sqlite', source: 'default' };
  return { store: databaseHoldsRuns(database) ? 'sqlite' : 'fs', source: 'detected' };
}
