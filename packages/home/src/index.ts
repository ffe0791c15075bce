// `@episodic/home` (Node only): opens an Episodic home (a folder, a SQLite file or a PostgreSQL
// URL) and its stores, detects where it keeps runs and sessions, binds a scope, lists the scopes
// it holds and inspects its database's health. The SQL behind the last two lives in the store
// packages; this package composes them.

export type { AnchorKey, CreateAnchorsOptions, CreatedAnchors } from './anchors.js';
export {
  anchorKeyId,
  createAnchors,
  generateAnchorKey,
  parseAnchorPublicKey,
  readAnchorFile,
  verifyAnchorSignature,
} from './anchors.js';
export { BOUND_SCOPE_MAX_LENGTH, bindScope, DEFAULT_SCOPE, resolveScope } from './bind-scope.js';
export {
  assertArgumentsAreUtf8,
  firstInvalidUtf8Offset,
  rawProcessArguments,
  showBytes,
} from './command-line-utf8.js';
export { databaseHoldsRuns } from './detect-run-store.js';
export type {
  EpisodicDatabaseKind,
  EpisodicLocation,
  EpisodicRunStoreKind,
  EpisodicStoreSource,
  EpisodicStoresEnv,
  OpenEpisodicStoresOptions,
} from './episodic-location.js';
export { resolveEpisodicLocation } from './episodic-location.js';
export type { EpisodicStores } from './episodic-stores.js';
export type { EpisodicHomeConfig } from './home-config.js';
export { HOME_CONFIG_FILE, homeConfigSchema, readHomeConfig } from './home-config.js';
export type { DatabaseCheck, DatabaseProblem } from './inspect-database.js';
export { inspectDatabase } from './inspect-database.js';
export type { HomeScopeSummary } from './list-scopes.js';
export { listScopes } from './list-scopes.js';
export type { EpisodicHome, OpenEpisodicHomeOptions } from './open-episodic-home.js';
export { openEpisodicHome } from './open-episodic-home.js';
export type { EpisodicLedger } from './open-episodic-ledger.js';
export { openEpisodicLedger } from './open-episodic-ledger.js';
export type { EpisodicRunStores } from './open-episodic-run-stores.js';
export { openEpisodicRunStores } from './open-episodic-run-stores.js';
export { openEpisodicStores } from './open-episodic-stores.js';
export type {
  ErasuresAfterAnchor,
  HomeAnchorResult,
  HomeVerification,
  HomeVerifyPart,
  VerifyAnchorsOptions,
  VerifyEpisodicHomeOptions,
} from './verify-home.js';
export { verifyEpisodicHome } from './verify-home.js';
