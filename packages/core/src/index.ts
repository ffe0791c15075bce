// Layer 1: errors, validation and schemas.

export * from './assembly/index.js';
// Layer 2: pure logic.
export * from './episodic/index.js';
export * from './errors/index.js';
export * from './learning/index.js';
export * from './ledger/index.js';
export * from './lifecycle/index.js';
export * from './messages/index.js';
export * from './provenance/index.js';
export * from './run/index.js';
export * from './schema/index.js';
// Layer 4: orchestration.
export * from './session/index.js';
// Layer 3: store contracts and reference stores (the conformance suite is at @episodic/core/testing).
export * from './store/index.js';
export * from './util/index.js';
export * from './validation/index.js';
export { VERSION } from './version.js';
