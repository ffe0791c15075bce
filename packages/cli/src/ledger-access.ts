import type { Ledger } from '@episodic/core';
import { type EpisodicLedger, openEpisodicLedger, resolveEpisodicLocation } from '@episodic/home';
import type { CommandContext } from './command-spec.js';
import type { StoreAccess } from './store-access.js';
import { storeOptions } from './store-options.js';

/**
 * Opens only the ledger (the same database, settings and rules as `withStores`), runs `work`, and
 * always closes it. Ledger-only commands use it: the run, session and artifact stores (and their
 * schemas) are then never loaded, which keeps `episodes query` quick to start. It lives apart
 * from `stores.ts` so a command bundle that imports it does not also load `openEpisodicStores`.
 */
export async function withLedger<Result>(
  context: CommandContext,
  work: (
    ledger: Ledger,
    opened: Pick<EpisodicLedger, 'location'> & Partial<Pick<EpisodicLedger, 'database'>>,
  ) => Promise<Result>,
  access: StoreAccess = {},
): Promise<Result> {
  const options = storeOptions(context, access);
  if (resolveEpisodicLocation(options).databaseKind === 'postgres') {
    // PostgreSQL opens asynchronously, through the full store (loaded only for a postgres:// URL).
    const { withStores } = await import('./stores.js');
    return withStores(
      context,
      (stores) => work(stores.ledger, { location: stores.location }),
      access,
    );
  }
  const opened = openEpisodicLedger(options);
  try {
    return await work(opened.ledger, opened);
  } finally {
    await opened.close();
  }
}
