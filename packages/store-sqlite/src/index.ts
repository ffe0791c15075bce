export type { Migration } from './migrations.js';
export { MIGRATIONS, migrate, SCHEMA_VERSION, schemaVersionOf } from './migrations.js';
export type { SqliteConnectionOptions, SqliteSynchronous } from './open-database.js';
export { openSqliteDatabase } from './open-database.js';
export { SEED_EVENTS_DDL, SEED_INDEXES } from './schema-sql.js';
export { createSqliteArtifactStoreAdapter } from './sqlite-artifact-store.js';
export type {
  SqliteArtifactRow,
  SqliteDatabaseCheck,
  SqliteLedgerEventRow,
  SqliteScopeSummary,
} from './sqlite-inspection.js';
export {
  checkSqliteDatabase,
  listSqliteScopeSummaries,
  listSqliteSessionScopes,
  readSqliteArtifactRows,
  readSqliteEpisodeMetadataRows,
  readSqliteLedgerEventRow,
  readSqliteSessionHeads,
  sqliteDatabaseHoldsRuns,
  sqliteRunBytes,
} from './sqlite-inspection.js';
export type { SqliteLedgerAdapterOptions } from './sqlite-ledger.js';
export { createSqliteLedgerAdapter, rebuildSqliteSearchIndex } from './sqlite-ledger.js';
export { rebuildSqliteRunSearchIndex } from './sqlite-run-search.js';
export { createSqliteRunStoreAdapter } from './sqlite-run-store.js';
export { createSqliteSessionStoreAdapter } from './sqlite-session-store.js';
export type { SqliteStore, SqliteStoreOptions } from './sqlite-store.js';
export { createSqliteStore } from './sqlite-store.js';
export {
  assertSqliteVersion,
  isSqliteVersionSupported,
  MINIMUM_SQLITE_VERSION,
} from './sqlite-version.js';
