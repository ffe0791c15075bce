// ArtifactStore episode metadata: setEpisodeMetadata and the effective metadata it projects onto
// artifacts.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';
import { TASK_1, TASK_2 } from './fixtures.js';

/** Registers the tests of episode metadata and effective metadata. */
export function artifactMetadataTests({ open }: ContractGroup<'artifacts'>): void {
  it("projects effective metadata: per key, distinct values in first-seen order (seed 003's example)", async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { source: 'crm', priority: 5 });
    await store.setEpisodeMetadata(TASK_2, { source: 'support_ticket', reviewed: true });
    await store.upsert({
      key: 'edge:1',
      kind: 'pattern',
      content: {},
      episodes: [TASK_1, TASK_2],
    });
    expect((await store.get('edge:1'))?.effectiveMetadata).toStrictEqual({
      source: ['crm', 'support_ticket'],
      priority: [5],
      reviewed: [true],
    });
    // Metadata set after the association is projected too; clearing it removes the contribution.
    await store.setEpisodeMetadata(TASK_2, { source: 'crm', tags: ['a', 'b'] });
    expect((await store.get('edge:1'))?.effectiveMetadata).toStrictEqual({
      source: ['crm'],
      priority: [5],
      tags: ['a', 'b'],
    });
    await store.setEpisodeMetadata(TASK_1, null);
    expect(await store.getEpisodeMetadata(TASK_1)).toBeNull();
    expect((await store.get('edge:1'))?.effectiveMetadata).toStrictEqual({
      source: ['crm'],
      tags: ['a', 'b'],
    });
  });
}
