// `@episodic/mcp/stores`: opens the stores under the Episodic home, and the views that bind them to
// one scope as the MCP tools see them (Node only; no MCP SDK here).

export { BOUND_SCOPE_MAX_LENGTH, bindScope, DEFAULT_SCOPE } from './scope/bound-scope.js';
export type { ScopedArtifactStore } from './scope/scoped-artifact-store.js';
export { artifactKeyPrefix, createScopedArtifactStore } from './scope/scoped-artifact-store.js';
export type {
  ListVisibleOptions,
  ScopedRunView,
  ScopedRunViewOptions,
  VisibleRun,
} from './scope/scoped-run-store.js';
export { createScopedRunView, RUN_SCOPE_FIELD, scopeOfRun } from './scope/scoped-run-store.js';
export type {
  EpisodicDatabaseKind,
  EpisodicLocation,
  EpisodicRunStoreKind,
  EpisodicStoresEnv,
  OpenEpisodicStoresOptions,
} from './stores/episodic-location.js';
export { resolveEpisodicLocation } from './stores/episodic-location.js';
export type { EpisodicLedger } from './stores/open-episodic-ledger.js';
export { openEpisodicLedger } from './stores/open-episodic-ledger.js';
export type { EpisodicStores } from './stores/open-episodic-stores.js';
export { openEpisodicStores } from './stores/open-episodic-stores.js';
