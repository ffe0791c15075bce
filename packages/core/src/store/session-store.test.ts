import { describe, expect, it } from 'vitest';
import { rejection } from '../__fixtures__/episodic-errors.js';
import { EpisodicError } from '../errors/index.js';
import type { SessionState } from '../schema/index.js';
import { messageEpisode, SESSION_TS, sessionBase } from '../testing/session-fixtures.js';
import {
  createMemorySessionStore,
  createMemorySessionStoreAdapter,
} from './memory-session-store.js';
import {
  createSessionStore,
  type SessionStore,
  type SessionStoreAdapter,
} from './session-store.js';

const id = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const state = (revision: number): SessionState => ({
  schema_version: 1,
  session_id: id,
  updated_at: '2026-02-03T12:00:00.000Z',
  messages: [{ role: 'user', content: 'hi' }],
  revision,
});

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

  it('reads a session again when its lazily read base was replaced meanwhile, up to twenty times', async () => {
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

    replacedReads = 19;
    loads = 0;
    expect((await store.load(id))?.revision).toBe(1);
    expect(loads).toBe(20);

    replacedReads = 20;
    loads = 0;
    const error = await rejection(store.load(id));
    expect(error.code).toBe('CONFLICT');
    expect(loads).toBe(20);
  });
});

/** Commits one episode `text` to `store` as revision `revision` (a new session at 1). */
async function commitText(store: SessionStore, revision: number, text: string): Promise<void> {
  const episode = messageEpisode(revision, text);
  await store.commit({
    sessionId: id,
    expectedRevision: revision === 1 ? null : revision - 1,
    delta: { revision, updated_at: SESSION_TS, episodes: [episode] },
    ...(revision === 1 ? { state: sessionBase(id, 1, [episode]) } : {}),
  });
}

/** The texts of the episodes in the session's stored base (what seed 001 readers open). */
async function baseTexts(adapter: SessionStoreAdapter): Promise<string[]> {
  const stored = await createSessionStore(adapter).read(id);
  expect(stored?.deltas).toEqual([]);
  const log = stored?.base.log;
  const episodes = log !== null && log !== undefined && 'episodes' in log ? log.episodes : [];
  return episodes.map(
    (episode) => (episode as { payload: { item: { content: string } } }).payload.item.content,
  );
}

describe('createSessionStore: the copy a store folds a small session from', () => {
  it('folds a small session on every commit without reading it back', async () => {
    const memory = createMemorySessionStoreAdapter();
    let loads = 0;
    const adapter: SessionStoreAdapter = {
      ...memory,
      load(sessionId) {
        loads++;
        return memory.load(sessionId);
      },
    };
    const store = createSessionStore(adapter);
    for (let revision = 1; revision <= 5; revision++) {
      await commitText(store, revision, `turn ${revision}`);
    }
    expect(loads).toBe(0);
    expect(await baseTexts(memory)).toEqual(['turn 1', 'turn 2', 'turn 3', 'turn 4', 'turn 5']);
    expect(await store.load(id)).toEqual(await createSessionStore(memory).load(id));
  });

  it('restores only the new episodes of a fold from the copy, by the same rules as a full read', async () => {
    const memory = createMemorySessionStoreAdapter();
    const store = createSessionStore(memory);
    for (let revision = 1; revision <= 3; revision++) {
      await commitText(store, revision, `turn ${revision}`);
    }
    // An id at or below the last one is repaired to the next; an entry that is no episode is
    // left out and recorded, as a read of the stored session would do.
    const repeated = { ...messageEpisode(2, 'id 2 again'), id: 2 };
    await store.commit({
      sessionId: id,
      expectedRevision: 3,
      delta: { revision: 4, updated_at: SESSION_TS, episodes: [repeated] },
    });
    await commitText(store, 5, 'turn 5');
    let stored = await store.load(id);
    expect(stored?.episodes?.map((episode) => (episode as { id: number }).id)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    expect(await baseTexts(memory)).toEqual(['turn 1', 'turn 2', 'turn 3', 'id 2 again', 'turn 5']);
    await store.commit({
      sessionId: id,
      expectedRevision: 5,
      delta: { revision: 6, updated_at: SESSION_TS, episodes: [{ id: 6, type: 'no such type' }] },
    });
    stored = await store.load(id);
    const fresh = await createSessionStore(memory).load(id);
    expect(stored).toEqual(fresh);
    expect(stored?.episodes?.slice(0, 5).map((episode) => (episode as { id: number }).id)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    expect(JSON.stringify(stored?.episodes?.at(-1))).toContain('no such type');
  });

  it('folds what another store over the same backend committed in between', async () => {
    const adapter = createMemorySessionStoreAdapter();
    const first = createSessionStore(adapter);
    const second = createSessionStore(adapter);
    await commitText(first, 1, 'first 1');
    await commitText(first, 2, 'first 2');
    await commitText(second, 3, 'second 3');
    await commitText(second, 4, 'second 4');
    await commitText(first, 5, 'first 5');
    expect(await baseTexts(adapter)).toEqual([
      'first 1',
      'first 2',
      'second 3',
      'second 4',
      'first 5',
    ]);
    await commitText(second, 6, 'second 6');
    expect(await baseTexts(adapter)).toHaveLength(6);
  });

  it('does not advance on a commit that failed, nor on one whose fold lost a race', async () => {
    const memory = createMemorySessionStoreAdapter();
    let other: (() => Promise<void>) | null = null;
    // An adapter that lets another store commit right after this store's commit landed.
    const adapter: SessionStoreAdapter = {
      ...memory,
      async commit(sessionId, commit) {
        const sizes = await memory.commit(sessionId, commit);
        const then = other;
        other = null;
        await then?.();
        return sizes;
      },
    };
    const first = createSessionStore(adapter);
    const second = createSessionStore(memory);
    await commitText(first, 1, 'first 1');
    await commitText(first, 2, 'first 2');
    await commitText(second, 3, 'second 3');
    const conflict = await rejection(commitText(first, 3, 'lost 3'));
    expect(conflict.code).toBe('CONFLICT');
    other = () => commitText(second, 5, 'second 5');
    await commitText(first, 4, 'first 4');
    await commitText(first, 6, 'first 6');
    expect(await baseTexts(memory)).toEqual([
      'first 1',
      'first 2',
      'second 3',
      'first 4',
      'second 5',
      'first 6',
    ]);
  });

  it('is dropped by save, redact and delete, even when the revision comes back the same', async () => {
    const adapter = createMemorySessionStoreAdapter();
    const store = createSessionStore(adapter);
    const other = createSessionStore(adapter);
    await commitText(store, 1, 'old 1');
    await commitText(store, 2, 'old 2');
    // A save at the same revision, with other episodes.
    await store.save(sessionBase(id, 2, [messageEpisode(1, 'saved 1')]), { expectedRevision: 2 });
    await commitText(store, 3, 'after save 3');
    expect(await baseTexts(adapter)).toEqual(['saved 1', 'after save 3']);

    expect((await store.redact(id, { mode: 'content' })).revision).toBe(4);
    await commitText(store, 5, 'after redact 5');
    const redacted = await baseTexts(adapter);
    expect(redacted).not.toContain('after save 3');
    expect(redacted.at(-1)).toBe('after redact 5');

    await commitText(store, 6, 'old 6');
    expect(await store.delete(id)).toBe(true);
    // Another store writes a new session with the same id up to the same revision.
    await commitText(other, 1, 'new 1');
    for (let revision = 2; revision <= 6; revision++) {
      await commitText(other, revision, `new ${revision}`);
    }
    await commitText(store, 7, 'store 7');
    expect(await baseTexts(adapter)).toEqual([
      'new 1',
      'new 2',
      'new 3',
      'new 4',
      'new 5',
      'new 6',
      'store 7',
    ]);
  });
});
