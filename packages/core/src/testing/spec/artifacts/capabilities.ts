// ArtifactStore: the store names itself and declares its capabilities as data.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of what an `ArtifactStore` declares about itself. */
export function artifactCapabilityTests({ open }: ContractGroup<'artifacts'>): void {
  it('declares its capabilities as data', async (context) => {
    const { store } = await open(context);
    expect(typeof store.name).toBe('string');
    expect(typeof store.capabilities.atomicWrites).toBe('boolean');
    expect(typeof store.capabilities.crossProcess).toBe('boolean');
  });
}
