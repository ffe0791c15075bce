// @episodic/store-postgres: the ledger, runs, sessions and artifacts on PostgreSQL.
export { describeConnection, isPostgresUrl, schemaOfUrl } from './connection-url.js';
export type { LedgerImportReceipt, SessionHead } from './ledger-import.js';
export type {
  PostgresDatabaseCheck,
  PostgresLedgerEventRow,
  PostgresScopeSummary,
  PostgresTables,
} from './postgres-inspection.js';
export {
  checkPostgresTables,
  listPostgresScopeSummaries,
  readPostgresLedgerEventRow,
} from './postgres-inspection.js';
export type { PostgresStore, PostgresStoreOptions } from './postgres-store.js';
export { createPostgresStore } from './postgres-store.js';
