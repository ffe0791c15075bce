// The `ArtifactStore` contract tests, one file per method group; this index composes them.
import { describe } from 'vitest';
import type { CreateStoreHarness, StoreConformanceCapabilities } from '../../store-harness.js';
import { contractGroup } from '../contract-group.js';
import { artifactCapabilityTests } from './capabilities.js';
import { artifactDeleteEpisodeTests } from './delete-episode.js';
import { artifactListTests } from './list.js';
import { artifactMetadataTests } from './metadata.js';
import { artifactRaceTests } from './race.js';
import { artifactRedactTests } from './redact.js';
import { artifactRedactRunTests } from './redact-run.js';
import { artifactUpsertTests } from './upsert.js';
import { artifactValidationTests } from './validation.js';

const CONTRACT = 'ArtifactStore';

/** Registers the `ArtifactStore` contract tests (see `describeStoreConformance`). */
export function describeArtifactStoreSuite(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
): void {
  const group = contractGroup(createHarness, capabilities, 'artifacts', CONTRACT);
  describe(CONTRACT, () => {
    artifactCapabilityTests(group);
    artifactUpsertTests(group);
    artifactMetadataTests(group);
    artifactListTests(group);
    artifactDeleteEpisodeTests(group);
    artifactRedactTests(group);
    describe("redactRun (with the harness's RunStore)", () => artifactRedactRunTests(group));
    artifactValidationTests(group);
    artifactRaceTests(group);
  });
}
