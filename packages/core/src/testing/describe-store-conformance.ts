import { describe } from 'vitest';
import { describeArtifactStoreSuite } from './spec/artifacts/index.js';
import { describeLedgerSuite } from './spec/ledger/index.js';
import { describeRunStoreSuite } from './spec/runs/index.js';
import { describeSessionStoreSuite } from './spec/sessions/index.js';
import type { CreateStoreHarness, StoreConformanceCapabilities } from './store-harness.js';

/** Registers one contract's tests; each test creates its own harness and skips when it lacks the contract. */
export type ContractSuite = (
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
) => void;

/** One suite per store contract. A new contract adds its suite here. */
const CONTRACT_SUITES: readonly ContractSuite[] = [
  describeRunStoreSuite,
  describeSessionStoreSuite,
  describeLedgerSuite,
  describeArtifactStoreSuite,
];

/**
 * The store conformance suite: registers, for a backend named `name`, the tests of every store
 * contract (`RunStore`, `SessionStore`, …). `createHarness` is called once per test and must
 * return fresh, empty stores (a new directory or database); the tests drive the public wrappers
 * and assert ordering, domain errors (`VALIDATION_ERROR`, `NOT_FOUND`, `CONFLICT`), idempotency,
 * fresh copies on read and, when `capabilities` says the harness can inject damage, tolerance of
 * damaged data. A contract the harness does not provide is skipped with the reason.
 *
 * ```ts
 * describeStoreConformance('memory', () => ({
 *   runs: createMemoryRunStore(),
 *   sessions: createMemorySessionStore(),
 *   close: async () => {},
 * }));
 * ```
 */
export function describeStoreConformance(
  name: string,
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities = {},
): void {
  describe(`${name} store conformance`, () => {
    for (const suite of CONTRACT_SUITES) suite(createHarness, capabilities);
  });
}
