import type { TestContext } from 'vitest';
import type {
  CreateStoreHarness,
  StoreConformanceCapabilities,
  StoreHarness,
} from '../store-harness.js';
import { openStore, type StoreContractKey } from '../suite-helpers.js';

/**
 * What one group of a contract's tests (one file of `spec/<contract>/`) gets from the contract's
 * index: how a test opens the store under test, and the capabilities the harness declares.
 */
export interface ContractGroup<Key extends StoreContractKey> {
  /**
   * Creates a fresh harness for this test and returns it with the store under test; skips the
   * test, with the reason, when the harness does not provide the contract.
   */
  open(
    context: TestContext,
  ): Promise<{ harness: StoreHarness; store: NonNullable<StoreHarness[Key]> }>;
  /** The harness's declared capabilities (`describeStoreConformance`'s third argument). */
  readonly capabilities: StoreConformanceCapabilities;
}

/** The `ContractGroup` of contract `contract`, provided by the harness as `StoreHarness[key]`. */
export function contractGroup<Key extends StoreContractKey>(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
  key: Key,
  contract: string,
): ContractGroup<Key> {
  return {
    open: (context) => openStore(context, createHarness, key, contract),
    capabilities,
  };
}
