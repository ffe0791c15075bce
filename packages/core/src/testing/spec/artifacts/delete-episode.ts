// ArtifactStore.deleteEpisode: an artifact goes with its last associated episode.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';
import { TASK_1, TASK_2, TASK_3 } from './fixtures.js';

/** Registers the tests of `ArtifactStore.deleteEpisode`. */
export function artifactDeleteEpisodeTests({ open }: ContractGroup<'artifacts'>): void {
  it('deletes an artifact only when its last associated episode is deleted', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { source: 'crm' });
    await store.setEpisodeMetadata(TASK_2, { source: 'erp' });
    await store.upsert({ key: 'only:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
    await store.upsert({
      key: 'shared:1',
      kind: 'pattern',
      content: 2,
      episodes: [TASK_1, TASK_2],
    });
    const receipt = await store.deleteEpisode(TASK_1);
    expect(receipt).toEqual({
      episode: TASK_1,
      deletedArtifacts: ['only:1'],
      updatedArtifacts: ['shared:1'],
      removedMetadata: true,
    });
    expect(await store.get('only:1')).toBeNull();
    const shared = await store.get('shared:1');
    expect(shared?.episodes).toEqual([TASK_2]);
    // TASK_1's contribution to the effective metadata is gone.
    expect(shared?.effectiveMetadata).toStrictEqual({ source: ['erp'] });
    expect(await store.getEpisodeMetadata(TASK_1)).toBeNull();
    expect(await store.deleteEpisode(TASK_2)).toEqual({
      episode: TASK_2,
      deletedArtifacts: ['shared:1'],
      updatedArtifacts: [],
      removedMetadata: true,
    });
    expect((await store.list()).artifacts).toEqual([]);
    expect(await store.deleteEpisode(TASK_3)).toEqual({
      episode: TASK_3,
      deletedArtifacts: [],
      updatedArtifacts: [],
      removedMetadata: false,
    });
  });
}
