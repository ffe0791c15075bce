import type { Ledger } from '@episodic/core';
import { type EpisodicLedger, openEpisodicLedger } from '@episodic/mcp/stores';
import type { CommandContext } from './command-spec.js';
import { storeOptions } from './store-options.js';
import type { StoreAccess } from './stores.js';

/**
 * Opens only the ledger (the same database, settings and rules as `withStores`), runs `work`, and
 * always closes it. Ledger-only commands use it: the run, session and artifact stores (and their
 * schemas) are then never loaded, which keeps `episodes query` quick to start. It lives apart
 * from `stores.ts` so a command bundle that imports it does not also load `openEpisodicStores`.
 */
export async function withLedger<Result>(
  context: CommandContext,
  work: (ledger: Ledger, opened: EpisodicLedger) => Promise<Result>,
  access: StoreAccess = {},
): Promise<Result> {
  const opened = openEpisodicLedger(storeOptions(context, access));
  try {
    return await work(opened.ledger, opened);
  } finally {
    await opened.close();
  }
}
