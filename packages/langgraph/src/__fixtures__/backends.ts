// The run-store backends this package's saver is validated on (test-support/run-store-backends.ts).
import { createMemoryRunStore, type RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore } from '@episodic/store-postgres';
import { schemaOfUrl } from '@episodic/store-postgres/url';
import { createSqliteStore } from '@episodic/store-sqlite';
import pg from 'pg';
import {
  type Backend,
  type OpenedStore as OpenedBackendStore,
  runStoreBackends,
} from '../../../../test-support/run-store-backends.js';

/** A fresh, empty run store of one backend, and how to close and remove it. */
export type OpenedStore = OpenedBackendStore<RunStore>;

/** Every backend the saver is validated on: memory, files, SQLite and PostgreSQL. */
export const BACKENDS: readonly Backend<RunStore>[] = runStoreBackends('langgraph', {
  createMemoryRunStore,
  createFsStore,
  createSqliteStore,
  createPostgresStore,
  schemaOfUrl,
  PostgresClient: pg.Client,
});
