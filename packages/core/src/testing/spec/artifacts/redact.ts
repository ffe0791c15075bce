// ArtifactStore.redactEpisodeMetadata: values and keys, in place, idempotent.
import { expect, it } from 'vitest';
import type { Metadata } from '../../../schema/metadata.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { AWS, GITHUB, SECRET_METADATA, snapshot, TASK_1, TASK_2 } from './fixtures.js';

/** Registers the tests of `ArtifactStore.redactEpisodeMetadata`. */
export function artifactRedactTests({ open }: ContractGroup<'artifacts'>): void {
  it("redacts an episode's metadata in place, values and keys, idempotently", async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, SECRET_METADATA);
    await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
    const receipt = await store.redactEpisodeMetadata(
      TASK_1.toUpperCase().replace('TASK:', 'task:'),
    );
    expect(receipt).toEqual({ episode: TASK_1, changed: true, replacements: 3 });
    const redacted = (await store.getEpisodeMetadata(TASK_1)) as Metadata;
    const text = JSON.stringify(redacted);
    for (const secret of [AWS, GITHUB]) expect(text).not.toContain(secret);
    expect(redacted).toMatchObject({ tenant: 'acme', priority: 3 });
    expect(Object.keys(redacted)).toHaveLength(Object.keys(SECRET_METADATA).length);
    // Artifacts derive their effective metadata from the redacted copy.
    expect(JSON.stringify((await store.get('p:1'))?.effectiveMetadata)).not.toContain(AWS);
    expect(await store.redactEpisodeMetadata(TASK_1)).toEqual({
      episode: TASK_1,
      changed: false,
      replacements: 0,
    });
    const content = await store.redactEpisodeMetadata(TASK_1, { mode: 'content' });
    expect(content.changed).toBe(true);
    const blank = (await store.getEpisodeMetadata(TASK_1)) as Metadata;
    // Every string and every caller key is blanked; numbers stay.
    expect(JSON.stringify(blank)).not.toMatch(/acme|billing|tenant/);
    expect(Object.values(blank)).toContain(3);
    // No metadata: nothing to redact.
    expect(await store.redactEpisodeMetadata(TASK_2)).toEqual({
      episode: TASK_2,
      changed: false,
      replacements: 0,
    });
    expect(await store.getEpisodeMetadata(TASK_2)).toBeNull();
  });

  it('rejects a bad episode reference or bad redaction options, changing nothing', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, SECRET_METADATA);
    const before = await snapshot(store, [TASK_1]);
    for (const call of [
      () => store.redactEpisodeMetadata('task:nope'),
      () => store.redactEpisodeMetadata(TASK_1, { mode: 'everything' as never }),
      () => store.redactEpisodeMetadata(TASK_1, { kinds: [] }),
    ]) {
      const error = await expectEpisodicError(call(), 'VALIDATION_ERROR');
      expect(error.message).toMatch(/nothing was changed/);
    }
    expect(await snapshot(store, [TASK_1])).toEqual(before);
  });
}
