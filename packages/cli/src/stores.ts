import type { LedgerOptions } from '@episodic/core';
import {
  type EpisodicLocation,
  type EpisodicStores,
  openEpisodicStores,
  resolveEpisodicLocation,
} from '@episodic/mcp/stores';
import type { CommandContext } from './command-spec.js';
import { storeOptions } from './store-options.js';

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
