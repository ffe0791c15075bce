import type {
  ArtifactStoreOptions,
  ChainOption,
  LedgerOptions,
  SessionFoldOption,
} from '@episodic/core';
import {
  createStores,
  EpisodicError,
  parseInput,
  type StoreAdapters,
  type Stores,
} from '@episodic/core/adapter';
import { chainOptionSchema } from '@episodic/core/schemas';
import type Database from 'better-sqlite3';
import { withLockedDatabaseErrors } from './busy-error.js';
import { openSqliteDatabase, type SqliteConnectionOptions } from './open-database.js';
import { createSqliteArtifactStoreAdapter } from './sqlite-artifact-store.js';
import { createSqliteLedgerAdapter } from './sqlite-ledger.js';
import { nodeChainCrypto } from './sqlite-ledger-chain.js';
import { createSqliteRunStoreAdapter } from './sqlite-run-store.js';
import { createSqliteSessionStoreAdapter } from './sqlite-session-store.js';

/** Options of `createSqliteStore`. Give exactly one of `filename` and `database`. */
export interface SqliteStoreOptions extends SqliteConnectionOptions {
  /** The database file to open (created when missing); `:memory:` for a private in-memory one. */
  filename?: string;
  /** An open better-sqlite3 connection to use instead; `close()` then leaves it open. */
  database?: Database.Database;
  /** Ledger rules: clock, id generator, caps, content guards, retention. @default core's defaults */
  ledger?: LedgerOptions;
  /** Artifact store options: the clock that stamps `createdAt` / `updatedAt`. @default core's defaults */
  artifacts?: ArtifactStoreOptions;
  /** The most rows per write transaction in GC and session redaction. @default 500 */
  batchSize?: number;
  /** How long one GC or redaction transaction may hold the write lock (batches are sized to it). @default 8 */
  maxLockMs?: number;
  /** Checkpoint and truncate the WAL after a redaction or GC, so erased bytes leave `-wal` too. @default true */
  truncateWalAfterErase?: boolean;
  /**
   * When a session's deltas are folded into a new base (the seed 001 snapshot other readers
   * see): on every commit while the session holds at most 1 MiB (so the base is current), then
   * every so often; `'always'`: on every commit at any size. @default
   * `{ currentUpToBytes: 1048576, share: 1, minBytes: 65536, deltas: 100000 }` (see
   * `SessionFoldPolicy`)
   */
  fold?: SessionFoldOption;
  /**
   * Chain the ledger (docs/design/verify.md): each appended event gets a salted commitment
   * (schema 15's `chain_*` columns), each session segment heads, and redaction and GC record what
   * they erase in the erasure log, so `ledger.verifyChain` names what changed outside Episodic.
   * `'strict'` is the same as `true` for the ledger. Runs and sessions are not chained yet.
   * @default false
   */
  chain?: ChainOption;
}

/**
 * One SQLite file holding the ledger, the session snapshots, the runs and the artifacts (patterns,
 * reflections…, their episode associations and episode metadata). `close()` closes the connection
 * if this store opened it; idempotent.
 */
export interface SqliteStore extends Stores<Required<StoreAdapters>> {
  /** The native better-sqlite3 connection (for backups, `EXPLAIN`, custom reads). */
  readonly database: Database.Database;
}

/**
 * Opens (or adopts) a SQLite database and returns the ledger, session store, run store and
 * artifact store over it. The connection is configured and migrated by `openSqliteDatabase`.
 *
 * ```ts
 * const store = createSqliteStore({ filename: 'episodic.db' });
 * await store.ledger.append({ scope: 'my-project', session_id: 's-1', agent_id: 'planner', type: 'conversation.user', summary: 'Asked for status' });
 * const page = await store.ledger.query({ scope: 'my-project', sessionId: 's-1' });
 * await store.close();
 * ```
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { filename, database: given } = options ?? {};
  if ((filename === undefined) === (given === undefined)) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid SQLite store options: give exactly one of filename (a path, or ":memory:") and database (an open better-sqlite3 connection). Nothing was opened.',
      details: { field: 'filename' },
    });
  }
  const chainOption =
    parseInput(chainOptionSchema.optional(), options.chain, 'SQLite store options (chain)') ??
    false;
  const database = openSqliteDatabase((filename ?? given) as string | Database.Database, options);
  const owned = given === undefined;
  const durability = options.synchronous === 'FULL' ? 'always' : 'none';
  // The ledger adapter reports a held write lock itself; the other adapters are wrapped here.
  const stores = createStores(
    {
      ledger: createSqliteLedgerAdapter(database, {
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
        ...(options.maxLockMs === undefined ? {} : { maxLockMs: options.maxLockMs }),
        ...(options.truncateWalAfterErase === undefined
          ? {}
          : { truncateWalAfterErase: options.truncateWalAfterErase }),
        ...(chainOption === false ? {} : { chain: nodeChainCrypto() }),
      }),
      sessions: withLockedDatabaseErrors(database, createSqliteSessionStoreAdapter(database)),
      runs: withLockedDatabaseErrors(database, createSqliteRunStoreAdapter(database, durability)),
      artifacts: withLockedDatabaseErrors(database, createSqliteArtifactStoreAdapter(database)),
    },
    {
      ledger: options.ledger,
      sessions: options.fold === undefined ? undefined : { fold: options.fold },
      artifacts: options.artifacts,
      close: () => {
        if (owned && database.open) database.close();
      },
    },
  );
  return { database, ...stores };
}
