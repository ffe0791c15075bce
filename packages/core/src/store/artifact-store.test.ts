import { describe, expect, it } from 'vitest';
import { rejection } from '../__fixtures__/episodic-errors.js';
import { type ArtifactStoreAdapter, createArtifactStore } from './artifact-store.js';
import {
  createMemoryArtifactStore,
  createMemoryArtifactStoreAdapter,
} from './memory-artifact-store.js';

const TASK = 'task:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';

/** An adapter whose every method throws like a broken disk. */
function brokenAdapter(calls: string[]): ArtifactStoreAdapter {
  const fail = (operation: string) => () => {
    calls.push(operation);
    throw Object.assign(new Error('SQLITE_IOERR: disk I/O error'), { code: 'SQLITE_IOERR' });
  };
  return {
    specificationVersion: 'v1',
    name: 'broken',
    capabilities: { atomicWrites: true, crossProcess: true },
    upsertArtifact: fail('upsertArtifact'),
    getArtifact: fail('getArtifact'),
    listArtifacts: fail('listArtifacts'),
    setEpisodeMetadata: fail('setEpisodeMetadata'),
    getEpisodeMetadata: fail('getEpisodeMetadata'),
    deleteEpisode: fail('deleteEpisode'),
  };
}

describe('createArtifactStore', () => {
  it('stamps createdAt and updatedAt with the injected clock', async () => {
    let tick = 0;
    const store = createMemoryArtifactStore({
      now: () => new Date(Date.UTC(2026, 0, 21, 10, 0, tick++)),
    });
    await store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK] });
    const updated = await store.upsert({
      key: 'p:1',
      kind: 'pattern',
      content: 2,
      episodes: [TASK],
    });
    expect(updated.createdAt).toBe('2026-01-21T10:00:00.000Z');
    expect(updated.updatedAt).toBe('2026-01-21T10:00:01.000Z');
  });

  it('turns every backend failure into STORAGE_ERROR, never a success', async () => {
    const calls: string[] = [];
    const store = createArtifactStore(brokenAdapter(calls));
    const attempts = [
      store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK] }),
      store.get('p:1'),
      store.list(),
      store.setEpisodeMetadata(TASK, { a: 1 }),
      store.getEpisodeMetadata(TASK),
      store.deleteEpisode(TASK),
    ];
    for (const attempt of attempts) {
      const error = await rejection(attempt);
      expect(error.code).toBe('STORAGE_ERROR');
      expect(error.details).toMatchObject({ store: 'broken', backendCode: 'SQLITE_IOERR' });
    }
    expect(calls).toHaveLength(6);
  });

  it('validates before any backend access', async () => {
    const calls: string[] = [];
    const store = createArtifactStore(brokenAdapter(calls));
    for (const attempt of [
      store.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: ['task:1'] }),
      store.get('bad key'),
      store.list({
        filter: { type: 'and', filters: [{ property_name: 'a', comparison_operator: '>' }] },
      }),
      store.setEpisodeMetadata(TASK, { a: [{}] } as never),
      store.getEpisodeMetadata('ledger:'),
      store.deleteEpisode('task:../../x'),
    ]) {
      expect((await rejection(attempt)).code).toBe('VALIDATION_ERROR');
    }
    expect(calls).toEqual([]);
  });

  it('refuses adapters of another specification', () => {
    expect(() =>
      createArtifactStore({
        ...createMemoryArtifactStoreAdapter(),
        specificationVersion: 'v2' as 'v1',
      }),
    ).toThrow(/specification v2/);
  });

  it('fails a list whose adapter ignores ArtifactScan.limit, naming the broken contract', async () => {
    const inner = createMemoryArtifactStoreAdapter();
    const store = createArtifactStore({
      ...inner,
      name: 'unbounded',
      listArtifacts: (scan) => inner.listArtifacts({ ...scan, limit: 1000 }),
    });
    for (let index = 0; index < 201; index++) {
      await store.upsert({
        key: `k:${String(index).padStart(3, '0')}`,
        kind: 'pattern',
        content: index,
        episodes: [TASK],
      });
    }
    const error = await rejection(store.list({ limit: 5 }));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.message).toContain('ignores ArtifactScan.limit');
    // The same adapter keeping to the limit lists fine.
    expect((await createArtifactStore(inner).list({ limit: 5 })).artifacts).toHaveLength(5);
  });
});
