import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import type { SessionState } from '../schema/index.js';
import {
  createMemorySessionStore,
  createMemorySessionStoreAdapter,
} from './memory-session-store.js';
import { createSessionStore, type SessionStoreAdapter } from './session-store.js';

const id = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const state = (revision: number): SessionState => ({
  schema_version: 1,
  session_id: id,
  updated_at: '2026-02-03T12:00:00.000Z',
  messages: [{ role: 'user', content: 'hi' }],
  revision,
});

async function rejection(promise: Promise<unknown>): Promise<EpisodicError> {
  try {
    await promise;
  } catch (error) {
    if (EpisodicError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('createSessionStore', () => {
  it('saves and loads a fresh copy, and enforces the expected revision', async () => {
    const store = createMemorySessionStore();
    await store.save(state(1), { expectedRevision: null });
    const loaded = await store.load(id);
    expect(loaded).toEqual(state(1));
    (loaded as SessionState).messages.push({ role: 'user', content: 'mutated' });
    expect((await store.load(id))?.messages).toHaveLength(1);

    const conflict = await rejection(store.save(state(2), { expectedRevision: 0 }));
    expect(conflict.code).toBe('CONFLICT');
    expect(conflict.message).toContain('expected revision 0, found revision 1');
    expect((await store.load(id))?.revision).toBe(1);
    await store.save(state(2), { expectedRevision: 1 });
    expect((await store.list()).map((summary) => summary.revision)).toEqual([2]);
  });

  it('rejects a bad id or state with VALIDATION_ERROR before touching the backend', async () => {
    const store = createMemorySessionStore();
    expect((await rejection(store.load('../etc/passwd'))).code).toBe('VALIDATION_ERROR');
    expect(
      (await rejection(store.save({ ...state(1), messages: 'nope' } as never))).message,
    ).toContain('messages');
    expect(await store.list()).toEqual([]);
  });

  it('turns backend failures into STORAGE_ERROR and refuses adapters of another specification', async () => {
    const broken: SessionStoreAdapter = {
      specificationVersion: 'v2',
      name: 'broken',
      capabilities: { atomicSave: false, crossProcessConflicts: false },
      load: () => {
        throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      },
      commit: () => ({ deltaCount: 0, deltaBytes: 0, baseBytes: 0 }),
      replace: () => undefined,
      list: () => [],
      delete: () => false,
    };
    const error = await rejection(createSessionStore(broken).load(id));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.details).toMatchObject({ store: 'broken', backendCode: 'EIO' });
    // A store package written for the first contract (whole snapshots) is refused, saying why.
    expect(() => createSessionStore({ ...broken, specificationVersion: 'v1' as 'v2' })).toThrow(
      /specification v1.*needs 'v2'/,
    );
  });

  it('reads a session again when its lazily read base was replaced meanwhile, up to five times', async () => {
    const memory = createMemorySessionStoreAdapter();
    let replacedReads = 0;
    let loads = 0;
    // A store whose base iterator finds the base replaced during the first `replacedReads' loads.
    const lazy: SessionStoreAdapter = {
      ...memory,
      async load(sessionId) {
        const stored = await memory.load(sessionId);
        if (stored === null) return null;
        loads += 1;
        if (loads > replacedReads) return stored;
        const lines = [...stored.base];
        const base = {
          *[Symbol.iterator]() {
            yield lines[0] as string;
            throw new EpisodicError({ code: 'CONFLICT', message: 'the base was replaced' });
          },
        };
        return { base, deltas: stored.deltas };
      },
    };
    const store = createSessionStore(lazy);
    const twoLines = { ...state(1), schema_version: 2, episodes: [], context: {} } as SessionState;
    await store.save(twoLines, { expectedRevision: null });

    replacedReads = 4;
    loads = 0;
    expect((await store.load(id))?.revision).toBe(1);
    expect(loads).toBe(5);

    replacedReads = 5;
    loads = 0;
    const error = await rejection(store.load(id));
    expect(error.code).toBe('CONFLICT');
    expect(loads).toBe(5);
  });
});
