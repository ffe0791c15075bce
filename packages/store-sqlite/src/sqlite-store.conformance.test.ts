import { describeStoreConformance } from '@episodic/core/testing';
import { createSqliteHarness } from './__fixtures__/sqlite-harness.js';

describeStoreConformance('sqlite', () => createSqliteHarness(), {
  runDamage: true,
  snapshotDamage: true,
  crossProcess: true,
  snapshotLoads: true,
});
