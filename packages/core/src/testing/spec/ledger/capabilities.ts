// Ledger: the store names itself and declares its capabilities as data.
import { expect, it } from 'vitest';
import type { Ledger } from '../../../store/ledger-store.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of what a `Ledger` declares about itself. */
export function ledgerCapabilityTests({ open }: ContractGroup<'ledger'>): void {
  it('declares its capabilities as data', async (context) => {
    const { store: ledger } = await open(context);
    expect(typeof ledger.name).toBe('string');
    for (const key of ['atomicBatch', 'crossProcessConflicts', 'secureDelete', 'persistent']) {
      expect(typeof ledger.capabilities[key as keyof Ledger['capabilities']]).toBe('boolean');
    }
  });
}
