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
