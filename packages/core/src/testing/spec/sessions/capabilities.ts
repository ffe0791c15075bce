// SessionStore: the store names itself and declares its capabilities as data.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of what a `SessionStore` declares about itself. */
export function sessionCapabilityTests({ open }: ContractGroup<'sessions'>): void {
  it('declares its capabilities as data', async (context) => {
    const { store } = await open(context);
    expect(typeof store.name).toBe('string');
    expect(typeof store.capabilities.atomicSave).toBe('boolean');
    expect(typeof store.capabilities.crossProcessConflicts).toBe('boolean');
  });
}
