// The run-store backends that the framework packages (claude-agent-sdk, google-adk, langgraph,
// openai-agents) validate their session stores on: memory, files, SQLite and PostgreSQL. Like the
// rest of test-support it imports no Episodic package: the package passes in the store factories.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
// The type of inject('postgresUrl').
import type {} from './postgres-global-setup.js';

/** A store of the run store `runs`, closed as a whole. */
interface ClosableStore<Runs> {
  readonly runs: Runs;
  close(): Promise<void>;
}

/** The package's store factories (`@episodic/core`, store-fs, store-sqlite, store-postgres, pg). */
export interface BackendFactories<Runs extends { close(): Promise<void> }> {
  createMemoryRunStore(): Runs;
  createFsStore(options: { root: string; durability: 'none' }): ClosableStore<Runs>;
  createSqliteStore(options: { filename: string }): ClosableStore<Runs>;
  createPostgresStore(options: {
    connectionString: string;
    schema?: string | undefined;
  }): Promise<ClosableStore<Runs>>;
  schemaOfUrl(location: string): { url: string; schema?: string | undefined };
  /** `pg.Client`, to drop a store's schema once it is closed. */
  readonly PostgresClient: new (options: {
    connectionString: string;
  }) => {
    connect(): Promise<unknown>;
    query(sql: string): Promise<unknown>;
    end(): Promise<void>;
  };
}

/** A fresh, empty run store of one backend, and how to close and remove it. */
export interface OpenedStore<Runs> {
  readonly runs: Runs;
  /** Where it lives (a folder, a database file or a postgres:// URL), for a second process to open. */
  readonly location?: string;
  close(): Promise<void>;
}

export interface Backend<Runs> {
  readonly name: string;
  open(): Promise<OpenedStore<Runs>>;
  /** Opens the store another opener created (a second one on the same home). */
  reopen?(location: string): Promise<OpenedStore<Runs>>;
}

function temporary(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Every backend a framework package's session store is validated on; `label` (e.g. `claude-sdk`)
 * names its temporary folders and PostgreSQL schemas. A new Episodic store is one more entry here:
 * the session stores only need its `RunStore`.
 */
export function runStoreBackends<Runs extends { close(): Promise<void> }>(
  label: string,
  factories: BackendFactories<Runs>,
): readonly Backend<Runs>[] {
  const opened = (
    store: ClosableStore<Runs>,
    location: string,
    remove?: () => Promise<void> | void,
  ): OpenedStore<Runs> => ({
    runs: store.runs,
    location,
    close: async () => {
      await store.close();
      await remove?.();
    },
  });
  const files = (root: string, remove?: () => void) =>
    opened(factories.createFsStore({ root, durability: 'none' }), root, remove);
  const sqlite = (filename: string, remove?: () => void) =>
    opened(factories.createSqliteStore({ filename }), filename, remove);
  /**
   * PostgreSQL: the test server of test-support/postgres-global-setup.ts, one schema per store
   * (`?schema=` in the URL), dropped when the store that created it closes.
   */
  const postgres = async (location: string, dropSchema?: string) => {
    const { url, schema } = factories.schemaOfUrl(location);
    const store = await factories.createPostgresStore({ connectionString: url, schema });
    return opened(store, location, async () => {
      if (dropSchema === undefined) return;
      const client = new factories.PostgresClient({ connectionString: inject('postgresUrl') });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${dropSchema}" CASCADE`);
      } finally {
        await client.end();
      }
    });
  };
  return [
    {
      name: 'memory',
      open: async () => {
        const runs = factories.createMemoryRunStore();
        return { runs, close: () => runs.close() };
      },
    },
    {
      name: 'files',
      open: async () => {
        const directory = temporary(`episodic-${label}-fs-`);
        return files(directory.path, directory.remove);
      },
      reopen: async (location) => files(location),
    },
    {
      name: 'sqlite',
      open: async () => {
        const directory = temporary(`episodic-${label}-sqlite-`);
        return sqlite(join(directory.path, 'episodic.db'), directory.remove);
      },
      reopen: async (location) => sqlite(location),
    },
    {
      name: 'postgres',
      open: () => {
        const schema = `${label.replaceAll('-', '_')}_${randomBytes(6).toString('hex')}`;
        const url = new URL(inject('postgresUrl'));
        url.searchParams.set('schema', schema);
        return postgres(url.href, schema);
      },
      reopen: (location) => postgres(location),
    },
  ];
}
