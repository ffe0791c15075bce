// The store conformance suite (`@episodic/core/testing`). Imports vitest: use it from tests only.
export { describeArtifactStoreSuite } from './artifact-suite.js';
export type { ConformanceChildResult, ConformanceChildTask } from './conformance-child.js';
export type { ContractSuite } from './describe-store-conformance.js';
export { describeStoreConformance } from './describe-store-conformance.js';
export { describeLedgerSuite } from './ledger-suite.js';
export { agentEvent, completedRun, headerFor, runIdFor } from './run-fixtures.js';
export { describeRunStoreSuite } from './run-store-suite.js';
export { describeSessionStoreSuite } from './session-store-suite.js';
export type {
  CreateStoreHarness,
  StoreConformanceCapabilities,
  StoreDamageHooks,
  StoreHarness,
} from './store-harness.js';
export { expectEpisodicError, openStore, requireCapability, utf8 } from './suite-helpers.js';
