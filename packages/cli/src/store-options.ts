import type { LedgerOptions } from '@episodic/core';
import type { OpenEpisodicStoresOptions } from '@episodic/mcp/stores';
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
