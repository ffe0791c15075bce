import { describe, expect, it } from 'vitest';
import type { InputItem, NewEpisode } from '../schema/index.js';
import { createMemorySessionStore, type SessionStore } from '../store/index.js';
import { call, deferred, echoModel, newSession, rejection, say } from './__fixtures__/harness.js';
import { commitEpisodes } from './commit-episodes.js';
import { loadSession } from './load-session.js';

const item = (
  value: InputItem,
  source: 'user' | 'model' | 'tool',
  turnId = 'turn-a',
): NewEpisode => ({ type: 'item', meta: { source, turnId }, payload: { item: value } });

describe('commitEpisodes', () => {
  it('commits episodes with their own sources and turn, saves a revision and advances invoke_seq', async () => {
    const { session, store } = newSession();
    const result = await commitEpisodes(
      session,
      [
        item(say('user', 'list files'), 'user'),
        item(call('call_1', 'list_files'), 'model'),
        {
          type: 'meta',
          meta: { source: 'runtime', turnId: 'turn-a' },
          payload: { event: 'turn.usage', data: { inputTokens: 12, outputTokens: 3 } },
        },
      ],
      { runId: '00000000-0000-4000-8000-00000000aaaa', modelCalls: 1 },
    );
    expect(result.revision).toBe(1);
    expect(result.invokeSeq).toBe(1);
    expect(result.reloaded).toBe(false);
    expect(result.episodes.map((episode) => [episode.id, episode.meta.source])).toEqual([
      [1, 'user'],
      [2, 'model'],
      [3, 'runtime'],
    ]);
    // A second commit of the same turn continues it.
    await commitEpisodes(
      session,
      [
        {
          type: 'item',
          meta: { source: 'tool', turnId: 'turn-a' },
          payload: { item: { type: 'function_call_output', call_id: 'call_1', output: 'a\nb' } },
        },
      ],
      { modelCalls: 0 },
    );
    expect(session.revision).toBe(2);
    const stored = await store.load(session.id);
    expect(stored).toMatchObject({
      revision: 2,
      invoke_seq: 1,
      run_id: '00000000-0000-4000-8000-00000000aaaa',
    });
    const reloaded = await loadSession(store, session.id);
    expect(reloaded.log.read({ fromId: 0 }).map((episode) => episode.meta.turnId)).toEqual([
      'turn-a',
      'turn-a',
      'turn-a',
      'turn-a',
    ]);
    expect(reloaded.invokeSeq).toBe(1);
  });

  it('waits for a running turn and commits after it, in call order', async () => {
    const { session } = newSession();
    const release = deferred<void>();
    const turn = session.runTurn('first', async (request) => {
      await release.promise;
      return echoModel(request);
    });
    const committing = commitEpisodes(session, [item(say('user', 'second'), 'user', 'turn-b')]);
    release.resolve();
    await turn;
    const { episodes } = await committing;
    expect(episodes[0]?.id).toBe(4);
    expect(session.log.read({ fromId: 0 }).at(-1)?.meta.turnId).toBe('turn-b');
  });

  it('changes nothing for invalid input', async () => {
    const { session } = newSession();
    await session.runTurn('first', echoModel);
    const before = session.log.toJSONL();
    const invalid = await rejection(
      commitEpisodes(session, [
        item(say('user', 'fine'), 'user'),
        { type: 'item', payload: { item: { type: 'message', role: 'robot', content: 'x' } } },
      ] as NewEpisode[]),
    );
    expect(invalid.code).toBe('VALIDATION_ERROR');
    expect((await rejection(commitEpisodes(session, []))).message).toContain('episodes');
    expect(
      (
        await rejection(
          commitEpisodes(session, [item(say('user', 'x'), 'user')], { modelCalls: -1 }),
        )
      ).message,
    ).toContain('modelCalls');
    expect(
      (
        await rejection(
          commitEpisodes(session, [item(say('user', 'x'), 'user')], {
            onConflict: 'merge' as never,
          }),
        )
      ).message,
    ).toContain('onConflict');
    expect(
      (await rejection(commitEpisodes({} as never, [item(say('user', 'x'), 'user')]))).message,
    ).toContain('createSession');
    expect(session.log.toJSONL()).toBe(before);
    expect(session.revision).toBe(1);
    expect(session.invokeSeq).toBe(1);
  });

  it('fails with CONFLICT when another writer committed first, and leaves invoke_seq as it was', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({}, store);
    await session.runTurn('first', echoModel);
    const other = await loadSession(store, session.id);
    await other.runTurn('from elsewhere', echoModel);
    const error = await rejection(
      commitEpisodes(session, [item(say('user', 'late'), 'user')], { modelCalls: 2 }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(session.invokeSeq).toBe(1);
    expect(session.revision).toBe(1);
  });

  it('onConflict "reload": catches the session up with the other writer in place, then fails with CONFLICT', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({ context: { cwd: '/a' } }, store);
    await session.runTurn('first', echoModel);
    const other = await loadSession(store, session.id);
    await other.runTurn('from elsewhere', echoModel);
    await other.updateContext({ cwd: '/b' });
    const error = await rejection(
      commitEpisodes(session, [item(say('user', 'late'), 'user')], {
        modelCalls: 1,
        onConflict: 'reload',
      }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain('was reloaded (now at revision 3');
    expect(error.details).toMatchObject({ reloaded: true, revision: 3 });
    // The session now holds what the store holds; nothing of the failed commit.
    expect(session.revision).toBe(3);
    expect(session.log.toJSONL()).toBe(other.log.toJSONL());
    expect(session.context).toEqual({ cwd: '/b' });
    expect(session.invokeSeq).toBe(2);
    // And commits from it again.
    const next = await commitEpisodes(session, [item(say('user', 'again'), 'user', 'turn-c')]);
    expect(next.revision).toBe(4);
    expect((await loadSession(store, session.id)).log.toJSONL()).toBe(session.log.toJSONL());
  });

  it('onConflict "retry": commits after the other writer\'s episodes, counting both writers\' model calls', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({}, store);
    await session.runTurn('first', echoModel);
    const other = await loadSession(store, session.id);
    await other.runTurn('from elsewhere', echoModel);
    const result = await commitEpisodes(
      session,
      [
        item(say('user', 'late'), 'user', 'turn-late'),
        item(say('assistant', 'ok'), 'model', 'turn-late'),
      ],
      { runId: '00000000-0000-4000-8000-00000000bbbb', modelCalls: 1, onConflict: 'retry' },
    );
    expect(result).toMatchObject({ revision: 3, invokeSeq: 3, reloaded: true });
    expect(result.episodes.map((episode) => episode.id)).toEqual([7, 8]);
    const stored = await loadSession(store, session.id);
    expect(stored.log.toJSONL()).toBe(session.log.toJSONL());
    expect(
      stored.log.read({ fromId: 0 }).map((episode) => episode.meta.turnId === 'turn-late'),
    ).toEqual([false, false, false, false, false, false, true, true]);
    expect(stored.invokeSeq).toBe(3);
    expect((await store.load(session.id))?.run_id).toBe('00000000-0000-4000-8000-00000000bbbb');
  });

  it('onConflict "retry" follows a clear and a fold by the other writer', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({}, store);
    await session.runTurn('first', echoModel);
    const other = await loadSession(store, session.id);
    await other.clear();
    await other.runTurn('after the clear', echoModel);
    await store.fold(session.id);
    await commitEpisodes(session, [item(say('user', 'late'), 'user')], { onConflict: 'retry' });
    const stored = await loadSession(store, session.id);
    expect(stored.log.read({ fromId: 0 }).map((episode) => episode.meta.source)).toEqual([
      'user',
      'model',
      'runtime',
      'user',
    ]);
    expect(stored.log.toJSONL()).toBe(session.log.toJSONL());
  });

  it('onConflict "retry" gives up with CONFLICT when every attempt loses the race', async () => {
    const memory = createMemorySessionStore();
    const { session } = newSession({}, memory);
    await session.runTurn('first', echoModel);
    const other = await loadSession(memory, session.id);
    // A real second writer that commits right before each of this session's commits.
    const racing: SessionStore = {
      ...memory,
      commit: async (commit) => {
        await other.runTurn('keeps winning', echoModel);
        return memory.commit(commit);
      },
    };
    const racer = await loadSession(racing, session.id);
    const error = await rejection(
      commitEpisodes(racer, [item(say('user', 'never'), 'user')], { onConflict: 'retry' }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.details).toMatchObject({ attempts: 50, reloaded: true });
    expect(racer.revision).toBe(other.revision);
    expect(racer.log.toJSONL()).toBe(other.log.toJSONL());
  });

  it('onConflict "retry" on a session another writer deleted is NOT_FOUND', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({}, store);
    await session.runTurn('first', echoModel);
    await store.delete(session.id);
    const error = await rejection(
      commitEpisodes(session, [item(say('user', 'late'), 'user')], { onConflict: 'retry' }),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('another writer deleted it');
  });
});
