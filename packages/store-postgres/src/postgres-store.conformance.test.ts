import { describeStoreConformance } from '@episodic/core/testing';
import { createPostgresHarness } from './__fixtures__/postgres-harness.js';

describeStoreConformance('postgres', () => createPostgresHarness(), {
  runDamage: true,
  snapshotDamage: true,
  crossProcess: true,
  snapshotLoads: true,
});
