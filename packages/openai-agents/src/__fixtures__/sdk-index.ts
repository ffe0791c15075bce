// Stands in for the SDK's `src/index.ts` when sdk-conformance.test.ts runs the SDK's own tests:
// the SDK's public API, with `MemorySession` an EpisodicSession (see sdk-memory-session.ts).
export * from '@openai/agents-core';
export { MemorySession } from './sdk-memory-session.js';
