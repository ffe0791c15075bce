import { existsSync } from 'node:fs';
import { createLedger, EpisodicError, type Ledger } from '@episodic/core';
import {
  createSqliteLedgerAdapter,
  openSqliteDatabase,
  type SqliteStore,
} from '@episodic/store-sqlite';
import {
  createEpisodicHome,
  type EpisodicLocation,
  type OpenEpisodicStoresOptions,
  resolveEpisodicLocation,
} from './episodic-location.js';
import { readHomeConfig } from './home-config.js';
import { nodeChainCrypto } from './node-chain-crypto.js';

/** The ledger under the Episodic home, opened on its own (SQLite only). */
export interface EpisodicLedger {
  /** The scoped ledger in the SQLite file. */
  readonly ledger: Ledger;
  /** Where everything is. */
  readonly location: EpisodicLocation;
  /**
   * The native better-sqlite3 connection (with `readOnly` on a home without a database, an empty
   * in-memory one).
   */
  readonly database: SqliteStore['database'];
  /** Closes the connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens only the ledger of the Episodic home: the same SQLite file, connection settings,
 * migrations and ledger rules as `openEpisodicStores`, without the run, session and artifact
 * stores. A command that reads or writes ledger events and nothing else loads and builds less this
 * way (the CLI's `episodes query` starts faster); the ledger behaves exactly as the one
 * `openEpisodicStores` returns. With `readOnly`, nothing is created or changed (a missing database
 * reads as empty).
 *
 * ```ts
 * const { ledger, close } = openEpisodicLedger({ home: '/tmp/demo' });
 * await ledger.query({ scope: 'my-project' });
 * await close();
 * ```
 */
export function openEpisodicLedger(options?: OpenEpisodicStoresOptions): EpisodicLedger {
  const location = resolveEpisodicLocation(options);
  if (location.databaseKind === 'postgres') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `openEpisodicLedger opens a SQLite file; ${location.database} is a PostgreSQL server. Use openEpisodicStores, which opens PostgreSQL too.`,
      details: { database: location.database },
    });
  }
  const checked = options ?? {};
  const readOnly = checked.readOnly === true;
  if (!readOnly) createEpisodicHome(location);
  const missing = location.database !== ':memory:' && !existsSync(location.database);
  const database = openSqliteDatabase(readOnly && missing ? ':memory:' : location.database, {
    ...(checked.synchronous === undefined ? {} : { synchronous: checked.synchronous }),
    ...(readOnly && !missing ? { readOnly: true } : {}),
  });
  let ledger: Ledger;
  try {
    // The home's config may turn the chained ledger on (`"chain": true | "strict"`).
    const chain = readHomeConfig(location.home)?.chain;
    ledger = createLedger(
      createSqliteLedgerAdapter(
        database,
        chain === undefined || chain === false ? {} : { chain: nodeChainCrypto() },
      ),
      checked.ledger,
    );
  } catch (error) {
    database.close();
    throw error;
  }
  return {
    ledger,
    location,
    database,
    async close() {
      if (database.open) database.close();
    },
  };
}
