// ArtifactStore input validation: bad input is VALIDATION_ERROR and changes nothing.
import { expect, it } from 'vitest';
import type { Metadata } from '../../../schema/metadata.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { snapshot, TASK_1, TASK_2 } from './fixtures.js';

/** Registers the tests of how `ArtifactStore` methods reject bad input. */
export function artifactValidationTests({ open }: ContractGroup<'artifacts'>): void {
  it('rejects bad input with VALIDATION_ERROR and changes nothing', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { a: 1 });
    await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
    const before = await snapshot(store, [TASK_1, TASK_2]);
    const eleven = Object.fromEntries(
      Array.from({ length: 11 }, (_, index) => [`k${index}`, index]),
    ) as Metadata;
    const bad: Array<[string, () => Promise<unknown>]> = [
      [
        'bad key',
        () => store.upsert({ key: ' spaced', kind: 'pattern', content: 1, episodes: [TASK_1] }),
      ],
      [
        'bad kind',
        () => store.upsert({ key: 'p:1', kind: 'Pattern', content: 1, episodes: [TASK_1] }),
      ],
      [
        'no episodes',
        () => store.upsert({ key: 'p:2', kind: 'pattern', content: 1, episodes: [] }),
      ],
      [
        'bad reference',
        () =>
          store.upsert({
            key: 'p:1',
            kind: 'pattern',
            content: 2,
            episodes: [TASK_2, '../etc/passwd'],
          }),
      ],
      [
        'content not JSON',
        () =>
          store.upsert({
            key: 'p:1',
            kind: 'pattern',
            content: { n: Number.NaN },
            episodes: [TASK_2],
          }),
      ],
      [
        'content too large',
        () =>
          store.upsert({
            key: 'p:1',
            kind: 'pattern',
            content: 'x'.repeat(70_000),
            episodes: [TASK_2],
          }),
      ],
      ['eleven metadata keys', () => store.setEpisodeMetadata(TASK_2, eleven)],
      ['nested metadata', () => store.setEpisodeMetadata(TASK_1, { a: { b: 1 } } as never)],
      ['bad metadata reference', () => store.setEpisodeMetadata('task:nope', { a: 1 })],
      ['bad delete reference', () => store.deleteEpisode('session:x#1')],
      ['bad filter', () => store.list({ filter: { type: 'xor' } as never })],
      ['bad policy', () => store.list({ policy: { required: {} } })],
      ['bad limit', () => store.list({ limit: 0 })],
      ['unknown query key', () => store.list({ kinds: 'pattern' } as never)],
      ['bad get key', () => store.get('')],
    ];
    for (const [what, call] of bad) {
      const error = await expectEpisodicError(call(), 'VALIDATION_ERROR');
      expect(error.message, what).toMatch(/nothing was changed|Invalid/);
    }
    expect(await snapshot(store, [TASK_1, TASK_2])).toEqual(before);
  });
}
