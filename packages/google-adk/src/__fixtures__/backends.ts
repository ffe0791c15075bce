import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryRunStore, type RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore } from '@episodic/store-postgres';
import { schemaOfUrl } from '@episodic/store-postgres/url';
import { createSqliteStore } from '@episodic/store-sqlite';
import pg from 'pg';
import { inject } from 'vitest';
// The type of inject('postgresUrl').
import type {} from '../../../../test-support/postgres-global-setup.js';

/** A fresh, empty run store of one backend, and how to close and remove it. */
export interface OpenedStore {
  readonly runs: RunStore;
  /** Where it lives (a folder, a database file or a postgres:// URL), for a second process to open. */
  readonly location?: string;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  open(): Promise<OpenedStore>;
  /** Opens the store another opener created (a second session service on the same home). */
  reopen?(location: string): Promise<OpenedStore>;
}

function temporary(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

const files = (root: string, remove?: () => void): OpenedStore => {
  const store = createFsStore({ root, durability: 'none' });
  return {
    runs: store.runs,
    location: root,
    close: async () => {
      await store.close();
      remove?.();
    },
  };
};

const sqlite = (filename: string, remove?: () => void): OpenedStore => {
  const store = createSqliteStore({ filename });
  return {
    runs: store.runs,
    location: filename,
    close: async () => {
      await store.close();
      remove?.();
    },
  };
};

/**
 * PostgreSQL: the test server of test-support/postgres-global-setup.ts, one schema per store
 * (`?schema=` in the URL), dropped when the store that created it closes.
 */
const postgres = async (location: string, dropSchema?: string): Promise<OpenedStore> => {
  const { url, schema } = schemaOfUrl(location);
  const store = await createPostgresStore({ connectionString: url, schema });
  return {
    runs: store.runs,
    location,
    close: async () => {
      await store.close();
      if (dropSchema === undefined) return;
      const client = new pg.Client({ connectionString: inject('postgresUrl') });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${dropSchema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
};

/**
 * Every backend the session service is validated on. A new Episodic store is one more
 * entry here: the session service only needs its `RunStore`.
 */
export const BACKENDS: readonly Backend[] = [
  {
    name: 'memory',
    open: async () => {
      const runs = createMemoryRunStore();
      return { runs, close: () => runs.close() };
    },
  },
  {
    name: 'files',
    open: async () => {
      const directory = temporary('episodic-google-adk-fs-');
      return files(directory.path, directory.remove);
    },
    reopen: async (location) => files(location),
  },
  {
    name: 'sqlite',
    open: async () => {
      const directory = temporary('episodic-google-adk-sqlite-');
      return sqlite(join(directory.path, 'episodic.db'), directory.remove);
    },
    reopen: async (location) => sqlite(location),
  },
  {
    name: 'postgres',
    open: () => {
      const schema = `google_adk_${randomBytes(6).toString('hex')}`;
      const url = new URL(inject('postgresUrl'));
      url.searchParams.set('schema', schema);
      return postgres(url.href, schema);
    },
    reopen: (location) => postgres(location),
  },
];
