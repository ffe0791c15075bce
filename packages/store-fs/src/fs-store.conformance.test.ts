import { describeStoreConformance } from '@episodic/core/testing';
import { createFsHarness } from './__fixtures__/fs-harness.js';

describeStoreConformance('fs (durability run)', () => createFsHarness(), {
  runDamage: true,
  snapshotDamage: true,
  runText: true,
  deltaDamage: true,
  crossProcess: true,
  snapshotLoads: true,
});
describeStoreConformance(
  'fs (durability always)',
  () => createFsHarness({ durability: 'always' }),
  {
    runDamage: true,
    snapshotDamage: true,
    runText: true,
    deltaDamage: true,
    crossProcess: true,
    snapshotLoads: true,
  },
);
describeStoreConformance('fs (chained)', () => createFsHarness({ chain: true }), {
  runDamage: true,
  snapshotDamage: true,
  runText: true,
  deltaDamage: true,
  crossProcess: true,
  snapshotLoads: true,
});
describeStoreConformance(
  'fs (chained strict, durability always)',
  () => createFsHarness({ chain: 'strict', durability: 'always' }),
  { runText: true, crossProcess: true },
);
