// The `SessionStore` contract tests, one file per method group; this index composes them.
import { describe } from 'vitest';
import type { CreateStoreHarness, StoreConformanceCapabilities } from '../../store-harness.js';
import { contractGroup } from '../contract-group.js';
import { sessionCapabilityTests } from './capabilities.js';
import { sessionCommitTests } from './commit.js';
import { sessionDamagedDataTests } from './damaged-data.js';
import { sessionFoldTests } from './fold.js';
import { sessionIdTests } from './ids.js';
import { sessionListDeleteTests } from './list-delete.js';
import { sessionRedactTests } from './redact.js';
import { sessionSaveLoadTests } from './save-load.js';
import { sessionValidationTests } from './validation.js';

const CONTRACT = 'SessionStore';

/** Registers the `SessionStore` contract tests (see `describeStoreConformance`). */
export function describeSessionStoreSuite(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
): void {
  const group = contractGroup(createHarness, capabilities, 'sessions', CONTRACT);
  describe(CONTRACT, () => {
    sessionCapabilityTests(group);
    sessionSaveLoadTests(group);
    sessionIdTests(group);
    sessionListDeleteTests(group);
    sessionValidationTests(group);
    sessionRedactTests(group);
    describe('commits: a base and deltas', () => {
      sessionCommitTests(group);
      sessionFoldTests(group);
    });
    describe('damaged data', () => sessionDamagedDataTests(group));
  });
}
