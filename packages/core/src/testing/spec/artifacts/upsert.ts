// ArtifactStore.upsert and ArtifactStore.get: associations, normalized references, kind conflicts,
// fresh copies.
import { expect, it } from 'vitest';
import type { Metadata } from '../../../schema/metadata.js';
import type { Artifact } from '../../../store/artifact-store.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { LEDGER_EVENT, SESSION_EPISODE, snapshot, TASK_1, TASK_2, TASK_3 } from './fixtures.js';

/** Registers the tests of `ArtifactStore.upsert` and `ArtifactStore.get`. */
export function artifactUpsertTests({ open }: ContractGroup<'artifacts'>): void {
  it('upserts an artifact with its episodes and reads it back; a missing key reads as null', async (context) => {
    const { store } = await open(context);
    expect(await store.get('pattern:none')).toBeNull();
    const created = await store.upsert({
      key: 'tool_sequence:abc',
      kind: 'pattern',
      content: { type: 'tool_sequence', tools: ['planner', 'coder'] },
      episodes: [TASK_1, SESSION_EPISODE, LEDGER_EVENT],
    });
    expect(created).toMatchObject({
      key: 'tool_sequence:abc',
      kind: 'pattern',
      content: { type: 'tool_sequence', tools: ['planner', 'coder'] },
      episodes: [TASK_1, SESSION_EPISODE, LEDGER_EVENT],
      effectiveMetadata: {},
    });
    expect(created.createdAt).toBe(created.updatedAt);
    expect(await store.get('tool_sequence:abc')).toEqual(created);
  });

  it('adds associations on a repeated upsert, never duplicating one, and keeps their order', async (context) => {
    const { store } = await open(context);
    const first = await store.upsert({
      key: 'p:1',
      kind: 'pattern',
      content: { version: 1 },
      episodes: [TASK_1, TASK_2],
    });
    const second = await store.upsert({
      key: 'p:1',
      kind: 'pattern',
      content: { version: 2 },
      episodes: [TASK_2, TASK_3, TASK_1, TASK_3],
    });
    expect(second.episodes).toEqual([TASK_1, TASK_2, TASK_3]);
    expect(second.content).toEqual({ version: 2 });
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.updatedAt >= first.updatedAt).toBe(true);
    expect((await store.list()).artifacts.map((artifact) => artifact.key)).toEqual(['p:1']);
  });

  it('normalizes episode references: an upper-case UUID is the same episode', async (context) => {
    const { store } = await open(context);
    await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
    const again = await store.upsert({
      key: 'p:1',
      kind: 'pattern',
      content: 1,
      episodes: [TASK_1.toUpperCase().replace('TASK:', 'task:')],
    });
    expect(again.episodes).toEqual([TASK_1]);
    await store.setEpisodeMetadata(TASK_1.toUpperCase().replace('TASK:', 'task:'), { a: 1 });
    expect(await store.getEpisodeMetadata(TASK_1)).toEqual({ a: 1 });
  });

  it('rejects an upsert of an existing key with another kind with CONFLICT, changing nothing', async (context) => {
    const { store } = await open(context);
    await store.upsert({ key: 'k:1', kind: 'pattern', content: 'a', episodes: [TASK_1] });
    const before = await snapshot(store, [TASK_1, TASK_2]);
    const error = await expectEpisodicError(
      store.upsert({ key: 'k:1', kind: 'reflection', content: 'b', episodes: [TASK_2] }),
      'CONFLICT',
    );
    expect(error.message).toContain('k:1');
    expect(await snapshot(store, [TASK_1, TASK_2])).toEqual(before);
  });

  it('returns fresh copies: changing what was read never changes the store', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { tags: ['a'] });
    await store.upsert({
      key: 'p:1',
      kind: 'pattern',
      content: { tools: ['a'] },
      episodes: [TASK_1],
    });
    const artifact = (await store.get('p:1')) as Artifact;
    try {
      (artifact.content as { tools: string[] }).tools.push('mutated');
      artifact.episodes.push(TASK_2);
      artifact.effectiveMetadata.tags?.push('mutated');
    } catch {
      // Frozen results are fine too.
    }
    const metadata = (await store.getEpisodeMetadata(TASK_1)) as Metadata;
    try {
      (metadata.tags as string[]).push('mutated');
    } catch {
      // Frozen results are fine too.
    }
    expect(await store.get('p:1')).toMatchObject({
      content: { tools: ['a'] },
      episodes: [TASK_1],
      effectiveMetadata: { tags: ['a'] },
    });
    expect(await store.getEpisodeMetadata(TASK_1)).toEqual({ tags: ['a'] });
  });
}
