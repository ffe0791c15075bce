// The store conformance suite (`@episodic/core/testing`). Imports vitest: use it from tests only.

export type { ConformanceChildResult, ConformanceChildTask } from './conformance-child.js';
// The @episodic/core types this entry's signatures name, type-only (no runtime name here): those of
// @episodic/core/testing/child, and the ledger's and the errors'.
export type * from './core-types.js';
export type { ContractSuite } from './describe-store-conformance.js';
export { describeStoreConformance } from './describe-store-conformance.js';
export { agentEvent, completedRun, headerFor, runIdFor } from './run-fixtures.js';
export { describeArtifactStoreSuite } from './spec/artifacts/index.js';
export { describeLedgerSuite } from './spec/ledger/index.js';
export { describeRunStoreSuite } from './spec/runs/index.js';
export { describeSessionStoreSuite } from './spec/sessions/index.js';
export type {
  CreateStoreHarness,
  StoreConformanceCapabilities,
  StoreDamageHooks,
  StoreHarness,
  StoreHarnessChain,
} from './store-harness.js';
export type { StoreContractKey } from './suite-helpers.js';
export {
  expectEpisodicError,
  openStore,
  rejection,
  requireCapability,
  utf8,
} from './suite-helpers.js';
