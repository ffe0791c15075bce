// `@episodic/core/testing/child`: what a conformance harness's child process runs. It does not
// import vitest, so a plain `node` child can load it.

export type {
  ConformanceChildResult,
  ConformanceChildStores,
  ConformanceChildTask,
} from './conformance-child.js';
export { runConformanceChild } from './conformance-child.js';
// The @episodic/core types this entry's signatures name, type-only (no runtime name here).
export type * from './core-types.js';
