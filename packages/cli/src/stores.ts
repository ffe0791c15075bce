import {
  type EpisodicLocation,
  type EpisodicRunStores,
  type EpisodicStores,
  openEpisodicRunStores,
  openEpisodicStores,
  resolveEpisodicLocation,
} from '@episodic/home';
import type { CommandContext } from './command-spec.js';
import type { StoreAccess } from './store-access.js';
import { storeOptions } from './store-options.js';

/** Where the stores of this command line live, without opening (or creating) anything. */
export function locate(context: CommandContext): EpisodicLocation {
  return resolveEpisodicLocation(storeOptions(context));
}

/**
 * Opens the stores (`@episodic/home`: the ledger and artifacts in SQLite, runs and sessions
 * where the home keeps them), runs `work`, and always closes them.
 */
export async function withStores<Result>(
  context: CommandContext,
  work: (stores: EpisodicStores) => Promise<Result>,
  access: StoreAccess = {},
): Promise<Result> {
  const stores = await openEpisodicStores(storeOptions(context, access));
  try {
    return await work(stores);
  } finally {
    await stores.close();
  }
}

/**
 * Opens only the runs and sessions (for `runs` and `sessions` commands): with run files the
 * database is never opened, so they work without better-sqlite3.
 */
export async function withRunStores<Result>(
  context: CommandContext,
  work: (stores: EpisodicRunStores) => Promise<Result>,
  access: StoreAccess = {},
): Promise<Result> {
  const options = storeOptions(context, access);
  const location = resolveEpisodicLocation(options);
  // PostgreSQL opens asynchronously, through the full store; run files on a PostgreSQL home
  // (store fs) still never touch the database.
  const stores: EpisodicRunStores =
    location.databaseKind === 'postgres' && location.store === 'sqlite'
      ? await openEpisodicStores(options)
      : openEpisodicRunStores(options);
  try {
    return await work(stores);
  } finally {
    await stores.close();
  }
}
