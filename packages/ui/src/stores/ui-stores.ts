import { statSync } from 'node:fs';
import type { ArtifactStore, Ledger, RunStore, RunSummary, SessionStore } from '@episodic/core';
import { createFsStore, type FsStore } from '@episodic/store-fs';
import { listSqliteSessionScopes, type SqliteStore, sqliteRunBytes } from '@episodic/store-sqlite';

/** The connection of a SQLite store (see `UiStores.sqlite`): the store package reads it. */
export type UiSqliteDatabase = SqliteStore['database'];

/**
 * The stores the UI reads: exactly what `openEpisodicStores` (`@episodic/home`, used by the
 * `episodic` CLI) returns, so `episodic ui` sees the same home as every other command. The UI only
 * reads: it never calls a method that writes.
 */
export interface UiStores {
  readonly runs: RunStore;
  readonly sessions: SessionStore;
  readonly ledger: Ledger;
  readonly artifacts: ArtifactStore;
  /** Where everything is: the home, the database, and where runs and sessions live. */
  readonly location: {
    readonly home: string;
    readonly database: string;
    readonly store: string;
  };
  /** The SQLite store holding the ledger (the store lists scopes and sizes runs on its connection). */
  readonly sqlite?: { readonly database: UiSqliteDatabase } | undefined;
}

/**
 * What the views need beyond the store contracts, for each kind of store. This is the one place
 * that knows how a backend keeps its files and tables (a PostgreSQL store is added here).
 */
export interface StoreAccess {
  /** `fs` or `sqlite`: where runs and sessions live. */
  readonly kind: string;
  /** The full text of a tool output kept in the store's cache under `id`, or null. */
  readToolOutput(id: string): Promise<string | null>;
  /** The stored size in bytes (the JSONL form) of each run that has one, by run id. */
  runBytes(runs: readonly RunSummary[]): Promise<Map<string, number>>;
  /** Every scope that has ledger events, sorted. */
  listScopes(): Promise<string[]>;
}

/** Creates the store access of `stores`; `close()` releases what it opened. */
export function createStoreAccess(stores: UiStores): StoreAccess & { close(): Promise<void> } {
  const kind = stores.location.store;
  let files: FsStore | undefined;
  // The file store's own reader of `cache/tool-output/` and run paths; it opens no file until asked.
  const fsStore = () => {
    files ??= createFsStore({ root: stores.location.home, durability: 'none' });
    return files;
  };
  const database = stores.sqlite?.database;
  const runBytesOf =
    kind === 'sqlite' && database !== undefined ? sqliteRunBytes(database) : undefined;
  return {
    kind,
    async readToolOutput(id) {
      if (kind !== 'fs') return null;
      return fsStore().readToolOutput(id);
    },
    async runBytes(runs) {
      const sizes = new Map<string, number>();
      if (kind === 'fs') {
        const files = fsStore();
        // One header read of the days these runs started on tells the store where their files
        // are, so finding each file does not walk every day directory.
        const starts = runs
          .map((run) => Date.parse(run.startedAt))
          .filter((ms) => !Number.isNaN(ms));
        if (starts.length > 0) {
          await files.runs.list({
            from: new Date(Math.min(...starts)).toISOString(),
            to: new Date(Math.max(...starts)).toISOString(),
          });
        }
        for (const run of runs) {
          const path = await files.locateRun(run.runId);
          if (path === null) continue;
          try {
            sizes.set(run.runId, statSync(path).size);
          } catch {
            // Deleted meanwhile: no size.
          }
        }
        return sizes;
      }
      for (const run of runs) {
        const bytes = runBytesOf?.(run.runId);
        if (bytes !== undefined) sizes.set(run.runId, bytes);
      }
      return sizes;
    },
    async listScopes() {
      return database === undefined ? [] : listSqliteSessionScopes(database);
    },
    async close() {
      await files?.close();
    },
  };
}
