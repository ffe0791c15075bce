// ArtifactStore.list: key order, kind and episode filters, metadata filters, access policies,
// paging.
import { expect, it } from 'vitest';
import type { ContractGroup } from '../contract-group.js';
import { TASK_1, TASK_2, TASK_3 } from './fixtures.js';

/** Registers the tests of `ArtifactStore.list` (and of the access policy `get` shares). */
export function artifactListTests({ open }: ContractGroup<'artifacts'>): void {
  it('lists in key order, by kind and by episode, with paging', async (context) => {
    const { store } = await open(context);
    for (const key of ['c', 'a', 'e', 'b', 'd']) {
      await store.upsert({
        key: `x:${key}`,
        kind: key === 'e' ? 'reflection' : 'pattern',
        content: key,
        episodes: key === 'a' || key === 'd' ? [TASK_2] : [TASK_1],
      });
    }
    const first = await store.list({ limit: 2 });
    expect(first.artifacts.map((artifact) => artifact.key)).toEqual(['x:a', 'x:b']);
    expect(first.nextKey).toBe('x:b');
    const second = await store.list({ limit: 2, afterKey: first.nextKey as string });
    expect(second.artifacts.map((artifact) => artifact.key)).toEqual(['x:c', 'x:d']);
    const last = await store.list({ limit: 2, afterKey: second.nextKey as string });
    expect(last.artifacts.map((artifact) => artifact.key)).toEqual(['x:e']);
    expect(last.nextKey).toBeNull();
    expect(
      (await store.list({ kind: 'reflection' })).artifacts.map((artifact) => artifact.key),
    ).toEqual(['x:e']);
    expect(
      (await store.list({ episode: TASK_2 })).artifacts.map((artifact) => artifact.key),
    ).toEqual(['x:a', 'x:d']);
    expect(
      (
        await store.list({ episode: TASK_1, kind: 'pattern', limit: 1, afterKey: 'x:b' })
      ).artifacts.map((artifact) => artifact.key),
    ).toEqual(['x:c']);
  });

  it('pages through more artifacts than one backend batch, with a filter', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { even: true });
    await store.setEpisodeMetadata(TASK_2, { even: false });
    for (let index = 0; index < 450; index++) {
      await store.upsert({
        key: `n:${String(index).padStart(4, '0')}`,
        kind: 'pattern',
        content: index,
        episodes: [index % 2 === 0 ? TASK_1 : TASK_2],
      });
    }
    const filter = {
      type: 'and' as const,
      filters: [{ property_name: 'even', comparison_operator: '=' as const, property_value: true }],
    };
    const seen: number[] = [];
    let afterKey: string | undefined;
    for (;;) {
      const page = await store.list({ filter, limit: 150, afterKey });
      seen.push(...page.artifacts.map((artifact) => artifact.content as number));
      if (page.nextKey === null) break;
      afterKey = page.nextKey;
    }
    expect(seen).toEqual(Array.from({ length: 225 }, (_, index) => index * 2));
  });

  it('matches a filter only when ONE associated episode satisfies the whole group', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { source: 'crm', priority: 1 });
    await store.setEpisodeMetadata(TASK_2, { source: 'support_ticket', priority: 9 });
    await store.upsert({
      key: 'a:split',
      kind: 'pattern',
      content: 1,
      episodes: [TASK_1, TASK_2],
    });
    await store.upsert({ key: 'b:other', kind: 'pattern', content: 2, episodes: [TASK_2] });
    const crmAndUrgent = {
      type: 'and' as const,
      filters: [
        { property_name: 'source', comparison_operator: '=' as const, property_value: 'crm' },
        { property_name: 'priority', comparison_operator: '>=' as const, property_value: 5 },
      ],
    };
    const keys = async (filter: typeof crmAndUrgent | object) =>
      (await store.list({ filter: filter as typeof crmAndUrgent })).artifacts.map(
        (artifact) => artifact.key,
      );
    // source=crm holds in TASK_1 and priority>=5 in TASK_2: never in one episode.
    expect(await keys(crmAndUrgent)).toEqual([]);
    expect(await keys({ ...crmAndUrgent, type: 'or' })).toEqual(['a:split', 'b:other']);
    await store.setEpisodeMetadata(TASK_3, { source: 'crm', priority: 7 });
    await store.upsert({ key: 'a:split', kind: 'pattern', content: 1, episodes: [TASK_3] });
    expect(await keys(crmAndUrgent)).toEqual(['a:split']);
    expect(
      await keys({
        type: 'and',
        filters: [{ property_name: 'reviewed', comparison_operator: 'IS NULL' }],
      }),
    ).toEqual(['a:split', 'b:other']);
  });

  it('hides artifacts whose effective metadata does not satisfy the access policy', async (context) => {
    const { store } = await open(context);
    await store.setEpisodeMetadata(TASK_1, { tenant: 'acme' });
    await store.setEpisodeMetadata(TASK_2, { tenant: 'globex' });
    await store.upsert({ key: 'a:acme', kind: 'pattern', content: 1, episodes: [TASK_1] });
    await store.upsert({
      key: 'b:both',
      kind: 'pattern',
      content: 2,
      episodes: [TASK_1, TASK_2],
    });
    await store.upsert({ key: 'c:untagged', kind: 'pattern', content: 3, episodes: [TASK_3] });
    const acme = { required: { tenant: 'acme' } };
    expect((await store.list({ policy: acme })).artifacts.map((artifact) => artifact.key)).toEqual([
      'a:acme',
    ]);
    expect(await store.get('b:both', { policy: acme })).toBeNull();
    expect(await store.get('c:untagged', { policy: acme })).toBeNull();
    expect((await store.get('a:acme', { policy: acme }))?.key).toBe('a:acme');
    expect(
      (await store.list({ policy: { required: { tenant: ['acme', 'globex'] } } })).artifacts.map(
        (artifact) => artifact.key,
      ),
    ).toEqual(['a:acme', 'b:both']);
  });
}
