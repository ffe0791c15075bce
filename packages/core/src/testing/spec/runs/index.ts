// The `RunStore` contract tests, one file per method group; this index composes them.
import { describe } from 'vitest';
import type { CreateStoreHarness, StoreConformanceCapabilities } from '../../store-harness.js';
import { contractGroup } from '../contract-group.js';
import { runAppendTests } from './append.js';
import { runCapabilityTests } from './capabilities.js';
import { runChainTests } from './chain.js';
import { runCompareAndAppendTests } from './compare-and-append.js';
import { runDamagedDataTests } from './damaged-data.js';
import { runDeleteTests } from './delete.js';
import { runHeaderLineTests } from './header-line.js';
import { runIdTests } from './ids.js';
import { runListTests } from './list.js';
import { runReadTailTests } from './read-tail.js';
import { runRedactTests } from './redact.js';
import { runScopeTests } from './scope.js';
import { runSearchTests } from './search.js';
import { runValidationTests } from './validation.js';

const CONTRACT = 'RunStore';

/** Registers the `RunStore` contract tests (see `describeStoreConformance`). */
export function describeRunStoreSuite(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
): void {
  const group = contractGroup(createHarness, capabilities, 'runs', CONTRACT);
  describe(CONTRACT, () => {
    runCapabilityTests(group);
    runAppendTests(group);
    runReadTailTests(group);
    runListTests(group);
    runIdTests(group);
    runDeleteTests(group);
    runValidationTests(group);
    describe('redaction', () => runRedactTests(group));
    describe('compare-and-append', () => runCompareAndAppendTests(group));
    describe('damaged data', () => runDamagedDataTests(group));
    describe('bound to a scope', () => runScopeTests(group));
    describe('header line', () => runHeaderLineTests(group));
    describe('chain', () => runChainTests(group));
    describe('search', () => runSearchTests(group));
  });
}
