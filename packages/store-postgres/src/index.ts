// @episodic/store-postgres: the ledger, runs, sessions and artifacts on PostgreSQL.
export { describeConnection, isPostgresUrl } from './connection-url.js';
export type { PostgresStore, PostgresStoreOptions } from './postgres-store.js';
export { createPostgresStore } from './postgres-store.js';
