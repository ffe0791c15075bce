// RunStore: the store names itself and declares its capabilities as data.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of what a `RunStore` declares about itself. */
export function runCapabilityTests({ open }: ContractGroup<'runs'>): void {
  it('declares its capabilities as data', async (context) => {
    const { store } = await open(context);
    expect(typeof store.name).toBe('string');
    expect(typeof store.capabilities.crossProcessAppends).toBe('boolean');
    expect(typeof store.capabilities.toolOutputCache).toBe('boolean');
    expect(['none', 'run', 'always']).toContain(store.capabilities.durability);
  });
}
