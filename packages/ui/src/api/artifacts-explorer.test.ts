import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { artifactsPage } from './artifacts-explorer.js';

let home: UiHome;

beforeAll(async () => {
  home = await createUiHome();
  // A second task's metadata, so a filter can tell the episodes of one artifact apart.
  await home.stores.artifacts.upsert({
    key: 'shared-pattern',
    kind: 'pattern',
    content: { type: 'context', context_features: ['x'] },
    episodes: [`task:${home.ids.taskId}`, 'task:00000000-0000-4000-8000-000000000077'],
  });
  await home.stores.artifacts.setEpisodeMetadata('task:00000000-0000-4000-8000-000000000077', {
    team: 'web',
    priority: 9,
  });
});
afterAll(() => home.close());

const filter = (value: unknown) => JSON.stringify(value);

describe('GET /api/artifacts', () => {
  it('lists artifacts with their effective metadata and associated episodes', async () => {
    const page = await artifactsPage(home.stores.artifacts, { key: 'shared-pattern' });
    expect(page.artifacts).toHaveLength(1);
    expect(page.artifacts[0]?.effective_metadata).toEqual({
      team: ['infra', 'web'],
      priority: [3, 9],
    });
    expect(page.artifacts[0]?.episodes.map((episode) => episode.matched)).toEqual([null, null]);
  });

  it('applies a seed 003 filter and shows which associated episodes matched', async () => {
    const page = await artifactsPage(home.stores.artifacts, {
      kind: 'pattern',
      filter: filter({
        type: 'and',
        filters: [{ property_name: 'priority', comparison_operator: '>=', property_value: 5 }],
      }),
    });
    expect(page.artifacts.map((artifact) => artifact.key)).toEqual(['shared-pattern']);
    expect(page.artifacts[0]?.episodes[0]).toMatchObject({
      ref: 'task:00000000-0000-4000-8000-000000000077',
      matched: true,
    });
    expect(page.artifacts[0]?.episodes[1]).toMatchObject({
      ref: `task:${home.ids.taskId}`,
      matched: false,
    });
    // One episode must satisfy the whole group: team=web AND priority=3 matches no single episode.
    const none = await artifactsPage(home.stores.artifacts, {
      filter: filter({
        type: 'and',
        filters: [
          { property_name: 'team', comparison_operator: '=', property_value: 'web' },
          { property_name: 'priority', comparison_operator: '=', property_value: 3 },
        ],
      }),
    });
    expect(none.artifacts).toEqual([]);
  });

  it('refuses a filter that is not JSON or not seed 003, naming the problem', async () => {
    await expect(artifactsPage(home.stores.artifacts, { filter: '{nope' })).rejects.toThrow(
      /filter/,
    );
    await expect(
      artifactsPage(home.stores.artifacts, { filter: filter({ type: 'xor', filters: [] }) }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
