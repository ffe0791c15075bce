// Layer 1: errors, validation and schemas.

// Layer 2: pure logic.
export * from './episodic/index.js';
export * from './errors/index.js';
export * from './schema/index.js';
export * from './util/index.js';
export * from './validation/index.js';
export { VERSION } from './version.js';
