import type { LedgerOptions } from '@episodic/core';
import {
  type EpisodicLocation,
  type EpisodicStores,
  type OpenEpisodicStoresOptions,
  openEpisodicStores,
  resolveEpisodicLocation,
} from '@episodic/mcp/stores';
import type { CommandContext } from './command-spec.js';

/** The store options of a command line: `--home`, `--db`, `--store` and the environment. */
export function storeOptions(
  context: CommandContext,
  ledger?: LedgerOptions,
): OpenEpisodicStoresOptions {
  const { globals } = context;
  return {
    // A plain copy: the options are validated as a plain record, which `process.env` is not.
    env: { ...context.env },
    ...(globals.home === undefined ? {} : { home: globals.home }),
    ...(globals.db === undefined ? {} : { db: globals.db }),
    ...(globals.store === undefined ? {} : { store: globals.store }),
    ...(ledger === undefined ? {} : { ledger }),
  };
}

/** Where the stores of this command line live, without opening (or creating) anything. */
export function locate(context: CommandContext): EpisodicLocation {
  return resolveEpisodicLocation(storeOptions(context));
}

/**
 * Opens the stores (`@episodic/mcp/stores`: the ledger and artifacts in SQLite, runs and sessions
 * in SQLite or in run files), runs `work`, and always closes them.
 */
export async function withStores<Result>(
  context: CommandContext,
  work: (stores: EpisodicStores) => Promise<Result>,
  ledger?: LedgerOptions,
): Promise<Result> {
  const stores = await openEpisodicStores(storeOptions(context, ledger));
  try {
    return await work(stores);
  } finally {
    await stores.close();
  }
}
