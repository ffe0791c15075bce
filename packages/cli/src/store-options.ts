import type { OpenEpisodicStoresOptions } from '@episodic/home';
import type { CommandContext } from './command-spec.js';
import type { StoreAccess } from './store-access.js';
import { UsageError } from './usage-error.js';

/**
 * Refuses a database that would not outlive the command: `:memory:` (each command is one process,
 * so what it wrote would be gone at exit while its receipt names positions), and SQLite `file:`
 * URIs (`file::memory:`, `?mode=memory`), which Episodic opens as plain paths: a file literally
 * named `file::memory:` in the working directory. `episodic mcp` keeps a server running and does
 * not come here.
 */
function assertLastingDatabase(value: string | undefined, field: string): void {
  if (value === undefined) return;
  const trimmed = value.trim();
  if (trimmed === ':memory:') {
    throw new UsageError(
      `${field} ":memory:" keeps the database in this command's memory: everything it wrote would be gone when it exits, while its receipt named positions. Nothing was changed. Give a file path (e.g. --db ./episodic.db), or leave it out to use <home>/episodic.db; for a throwaway home, use --home "$(mktemp -d)".`,
      'VALIDATION_ERROR',
    );
  }
  if (/^file:/i.test(trimmed)) {
    throw new UsageError(
      `${field} ${JSON.stringify(value)} is a SQLite URI, which Episodic does not read: it would create a file of that very name in the working directory${/memory/i.test(trimmed) ? ' (not an in-memory database)' : ''}. Nothing was changed. Give a plain file path (e.g. --db ./episodic.db) or a postgres:// URL.`,
      'VALIDATION_ERROR',
    );
  }
}

/** The store options of a command line: `--home`, `--db`, `--store` and the environment. */
export function storeOptions(
  context: CommandContext,
  access: StoreAccess = {},
): OpenEpisodicStoresOptions {
  const { globals } = context;
  if (globals.db !== undefined) assertLastingDatabase(globals.db, '--db');
  else if (context.env.EPISODIC_DB !== '')
    assertLastingDatabase(context.env.EPISODIC_DB, 'EPISODIC_DB');
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
