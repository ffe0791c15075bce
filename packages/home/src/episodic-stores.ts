import type { ArtifactStore, Ledger, RunStore, SessionStore } from '@episodic/core';
import type { PostgresStore } from '@episodic/store-postgres';
import type { SqliteStore } from '@episodic/store-sqlite';
import type { EpisodicLocation } from './episodic-location.js';

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
