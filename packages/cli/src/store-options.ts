import type { OpenEpisodicStoresOptions } from '@episodic/mcp/stores';
import type { CommandContext } from './command-spec.js';
import type { StoreAccess } from './stores.js';

/** The store options of a command line: `--home`, `--db`, `--store` and the environment. */
export function storeOptions(
  context: CommandContext,
  access: StoreAccess = {},
): OpenEpisodicStoresOptions {
  const { globals } = context;
  return {
    // A plain copy: the options are validated as a plain record, which `process.env` is not.
    env: { ...context.env },
    ...(globals.home === undefined ? {} : { home: globals.home }),
    ...(globals.db === undefined ? {} : { db: globals.db }),
    ...(globals.store === undefined ? {} : { store: globals.store }),
    ...(access.ledger === undefined ? {} : { ledger: access.ledger }),
    ...(access.artifacts === undefined ? {} : { artifacts: access.artifacts }),
    ...(access.readOnly === true ? { readOnly: true } : {}),
  };
}
