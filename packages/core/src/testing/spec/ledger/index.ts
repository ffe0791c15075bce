// The `Ledger` contract tests, one file per method group; this index composes them.
import { describe } from 'vitest';
import type { CreateStoreHarness, StoreConformanceCapabilities } from '../../store-harness.js';
import { contractGroup } from '../contract-group.js';
import { ledgerAppendTests } from './append.js';
import { ledgerAppendBatchTests } from './append-batch.js';
import { ledgerCapabilityTests } from './capabilities.js';
import { ledgerChainTests } from './chain.js';
import { ledgerGuardTests } from './guards.js';
import { ledgerEventIdTests } from './ids.js';
import { ledgerQueryTests } from './query.js';
import { ledgerRedactTests } from './redact.js';
import { ledgerRetentionTests } from './retention.js';
import { ledgerScopeTests } from './scopes.js';
import { ledgerSearchTests } from './search.js';

const CONTRACT = 'Ledger';

/**
 * Registers the `Ledger` contract tests (see `describeStoreConformance`). The harness's ledger
 * must use the default options (caps, guards, retention); every test passes `ts_ms` and `nowMs`
 * explicitly, so no clock is needed.
 */
export function describeLedgerSuite(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
): void {
  const group = contractGroup(createHarness, capabilities, 'ledger', CONTRACT);
  describe(CONTRACT, () => {
    ledgerCapabilityTests(group);
    ledgerAppendTests(group);
    ledgerAppendBatchTests(group);
    ledgerGuardTests(group);
    ledgerQueryTests(group);
    ledgerEventIdTests(group);
    ledgerScopeTests(group);
    ledgerRedactTests(group);
    ledgerRetentionTests(group);
    ledgerSearchTests(group);
    describe('chain', () => ledgerChainTests(group));
  });
}
