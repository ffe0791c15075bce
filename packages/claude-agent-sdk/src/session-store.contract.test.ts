// The SessionStore contract as the Claude Agent SDK documents it (sdk.d.ts: SessionStore,
// SessionKey, SessionStoreEntry, foldSessionSummary), written here from those docs and run on every
// Episodic backend. (The SDK's own conformance suite is run by sdk-conformance.test.ts when its
// file is at hand.)
import { foldSessionSummary, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EpisodicSessionStore } from './episodic-session-store.js';

const KEY = { projectKey: 'project', sessionId: 'session-1' };
const line = (type: string, fields: Record<string, unknown> = {}): SessionStoreEntry => ({
  type,
  ...fields,
});

describe.each(BACKENDS)('EpisodicSessionStore contract on $name', (backend) => {
  async function withStore(test: (store: EpisodicSessionStore) => Promise<void>): Promise<void> {
    const opened = await backend.open();
    try {
      await test(new EpisodicSessionStore({ runs: opened.runs }));
    } finally {
      await opened.close();
    }
  }

  it('loads what was appended, deep-equal, in append order, unknown fields kept', () =>
    withStore(async (store) => {
      const first = [
        line('user', {
          uuid: 'u1',
          message: { role: 'user', content: 'hi' },
          extra: { nested: [1, 'two', null, { deep: true }] },
        }),
        line('assistant', {
          uuid: 'a1',
          message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
        }),
      ];
      await store.append(KEY, first);
      await store.append(KEY, [line('custom-title', { customTitle: 'T' })]);
      expect(await store.load(KEY)).toEqual([...first, line('custom-title', { customTitle: 'T' })]);
    }));

  it('returns null for a key never written, and append([]) writes nothing', () =>
    withStore(async (store) => {
      expect(await store.load(KEY)).toBeNull();
      await store.append(KEY, []);
      expect(await store.load(KEY)).toBeNull();
      expect(await store.listSessions(KEY.projectKey)).toEqual([]);
    }));

  it('stores an entry whose uuid is already stored only once; entries without uuid always', () =>
    withStore(async (store) => {
      await store.append(KEY, [line('user', { uuid: 'u1', n: 1 }), line('tag', { tag: 'x' })]);
      await store.append(KEY, [
        line('user', { uuid: 'u1', n: 1 }),
        line('assistant', { uuid: 'a1' }),
        line('assistant', { uuid: 'a1' }),
        line('tag', { tag: 'x' }),
      ]);
      // A second store (another process) sees the same uuids.
      const other = new EpisodicSessionStore({ runs: (store as unknown as { runs: never }).runs });
      await other.append(KEY, [line('user', { uuid: 'u1', n: 1 }), line('user', { uuid: 'u2' })]);
      expect(await store.load(KEY)).toEqual([
        line('user', { uuid: 'u1', n: 1 }),
        line('tag', { tag: 'x' }),
        line('assistant', { uuid: 'a1' }),
        line('tag', { tag: 'x' }),
        line('user', { uuid: 'u2' }),
      ]);
    }));

  it('keeps subpaths and projects apart; lists sessions and subkeys', () =>
    withStore(async (store) => {
      const sub = { ...KEY, subpath: 'subagents/agent-1' };
      await store.append(KEY, [line('main')]);
      await store.append(sub, [line('sub')]);
      await store.append({ ...KEY, subpath: 'subagents/agent-2' }, [line('sub2')]);
      await store.append({ projectKey: 'other', sessionId: KEY.sessionId }, [line('other')]);
      await store.append(
        { projectKey: KEY.projectKey, sessionId: 'only-sub', subpath: 'subagents/agent-3' },
        [line('s')],
      );
      expect(await store.load(KEY)).toEqual([line('main')]);
      expect(await store.load(sub)).toEqual([line('sub')]);
      expect(await store.load({ projectKey: 'other', sessionId: KEY.sessionId })).toEqual([
        line('other'),
      ]);
      const listed = await store.listSessions(KEY.projectKey);
      expect(listed.map((session) => session.sessionId)).toEqual([KEY.sessionId]);
      expect(Number.isInteger(listed[0]?.mtime) && (listed[0]?.mtime ?? 0) > 1e12).toBe(true);
      expect((await store.listSubkeys(KEY)).sort()).toEqual([
        'subagents/agent-1',
        'subagents/agent-2',
      ]);
      expect(await store.listSubkeys({ projectKey: 'never', sessionId: 'x' })).toEqual([]);
      expect(await store.listSessions('never')).toEqual([]);
    }));

  it('maintains summaries with foldSessionSummary, mtime as in listSessions', () =>
    withStore(async (store) => {
      const batches = [
        [
          line('user', {
            uuid: 'u1',
            timestamp: '2026-01-01T00:00:00.000Z',
            cwd: '/w',
            message: { role: 'user', content: 'first prompt' },
          }),
        ],
        [
          line('custom-title', { customTitle: 'Title' }),
          line('user', { uuid: 'u2', message: { role: 'user', content: 'second' } }),
        ],
      ];
      for (const batch of batches) await store.append(KEY, batch);
      await store.append({ ...KEY, subpath: 'subagents/agent-1' }, [line('user', { uuid: 's1' })]);
      const [summary] = await store.listSessionSummaries(KEY.projectKey);
      let expected = foldSessionSummary(undefined, KEY, batches[0] ?? [], { mtime: 1 });
      expected = foldSessionSummary(expected, KEY, batches[1] ?? [], { mtime: 2 });
      expect(summary?.data).toEqual(expected.data);
      expect(summary?.sessionId).toBe(KEY.sessionId);
      const [listed] = await store.listSessions(KEY.projectKey);
      expect(listed?.mtime).toBe(summary?.mtime);
    }));

  it('deletes a main key with its subkeys, a subkey alone, and a missing key quietly', () =>
    withStore(async (store) => {
      const subA = { ...KEY, subpath: 'subagents/a' };
      const subB = { ...KEY, subpath: 'subagents/b' };
      await store.append(KEY, [line('main')]);
      await store.append(subA, [line('a')]);
      await store.append(subB, [line('b')]);
      await store.append({ ...KEY, sessionId: 'kept' }, [line('kept')]);
      await store.delete(subA);
      expect(await store.load(subA)).toBeNull();
      expect(await store.listSubkeys(KEY)).toEqual(['subagents/b']);
      await store.delete(KEY);
      expect(await store.load(KEY)).toBeNull();
      expect(await store.load(subB)).toBeNull();
      expect(await store.listSubkeys(KEY)).toEqual([]);
      expect((await store.listSessions(KEY.projectKey)).map((s) => s.sessionId)).toEqual(['kept']);
      await store.delete({ projectKey: 'never', sessionId: 'never' });
      // Written again after the delete: starts afresh, uuids seen before may be stored again.
      await store.append(KEY, [line('again', { uuid: 'u1' })]);
      expect(await store.load(KEY)).toEqual([line('again', { uuid: 'u1' })]);
    }));

  it('appends again after another store deleted the session, and dedups against what is stored', () =>
    withStore(async (store) => {
      const runs = (store as unknown as { runs: never }).runs;
      const other = new EpisodicSessionStore({ runs });
      await store.append(KEY, [line('user', { uuid: 'u1' })]);
      await other.append(KEY, [line('user', { uuid: 'u2' })]);
      await store.append(KEY, [line('user', { uuid: 'u2' }), line('user', { uuid: 'u3' })]);
      expect((await other.load(KEY))?.map((entry) => entry.uuid)).toEqual(['u1', 'u2', 'u3']);
      await other.delete(KEY);
      await store.append(KEY, [line('user', { uuid: 'u1' }), line('user', { uuid: 'u4' })]);
      expect((await other.load(KEY))?.map((entry) => entry.uuid)).toEqual(['u1', 'u4']);
      expect((await other.listSessions(KEY.projectKey)).map((s) => s.sessionId)).toEqual([
        KEY.sessionId,
      ]);
    }));

  it('rejects a bad key or bad entries, naming the field, and stores nothing', () =>
    withStore(async (store) => {
      await expect(store.append({ projectKey: '', sessionId: 's' }, [line('a')])).rejects.toThrow(
        /key\.projectKey must be a non-empty string \(got ""\)/,
      );
      await expect(store.append({ ...KEY, subpath: '' }, [line('a')])).rejects.toThrow(
        /key\.subpath/,
      );
      await expect(
        store.append(KEY, [{ uuid: 'x' } as unknown as SessionStoreEntry]),
      ).rejects.toThrow(/entries\.0\.type must be a string/);
      await expect(store.load({ projectKey: 'p' } as never)).rejects.toThrow(/key\.sessionId/);
      expect(await store.load(KEY)).toBeNull();
      expect(() => new EpisodicSessionStore({ runs: {} as never })).toThrow(
        /runs must be an Episodic RunStore/,
      );
    }));
});
