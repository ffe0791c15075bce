// @episodic/core/internal: every module's exports, for core's own tests. Outside semver, no API
// report, and no other package imports it (a test in src/store/ checks): everything they use is in
// the public entry of its audience: @episodic/core, @episodic/core/adapter or @episodic/core/schemas.

export * from './assembly/index.js';
export * from './episodic/index.js';
export * from './errors/index.js';
export * from './learning/index.js';
export * from './ledger/index.js';
export * from './lifecycle/index.js';
export * from './messages/index.js';
export * from './provenance/index.js';
export * from './run/index.js';
export * from './schema/index.js';
export * from './session/index.js';
export * from './store/index.js';
export * from './util/index.js';
export * from './validation/index.js';
export { VERSION } from './version.js';
