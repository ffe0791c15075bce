// `@episodic/mcp/stores`: opens the stores under the Episodic home, and the views that bind them to
// one scope as the MCP tools see them (Node only; no MCP SDK here).

export { BOUND_SCOPE_MAX_LENGTH, bindScope, DEFAULT_SCOPE } from './scope/bound-scope.js';
export type { ScopedArtifactStore } from './scope/scoped-artifact-store.js';
export {
  artifactKeyPrefix,
  createScopedArtifactStore,
  scopeOfArtifactKey,
} from './scope/scoped-artifact-store.js';
export type {
  ListVisibleOptions,
  ScopedRunView,
  ScopedRunViewOptions,
  VisibleRun,
} from './scope/scoped-run-store.js';
export { createScopedRunView, RUN_SCOPE_FIELD, scopeOfRun } from './scope/scoped-run-store.js';
export { databaseHoldsRuns } from './stores/detect-run-store.js';
export type {
  EpisodicDatabaseKind,
  EpisodicLocation,
  EpisodicRunStoreKind,
  EpisodicStoreSource,
  EpisodicStoresEnv,
  OpenEpisodicStoresOptions,
} from './stores/episodic-location.js';
export { resolveEpisodicLocation } from './stores/episodic-location.js';
export type { EpisodicStores } from './stores/episodic-stores.js';
export type { EpisodicHomeConfig } from './stores/home-config.js';
export { HOME_CONFIG_FILE, homeConfigSchema, readHomeConfig } from './stores/home-config.js';
export type { EpisodicLedger } from './stores/open-episodic-ledger.js';
export { openEpisodicLedger } from './stores/open-episodic-ledger.js';
export type { EpisodicRunStores } from './stores/open-episodic-run-stores.js';
export { openEpisodicRunStores } from './stores/open-episodic-run-stores.js';
export { openEpisodicStores } from './stores/open-episodic-stores.js';
