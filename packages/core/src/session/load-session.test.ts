import { describe, expect, it } from 'vitest';
import type { SessionState } from '../schema/index.js';
import { createMemorySessionStore } from '../store/index.js';
import {
  echoModel,
  fixedClock,
  newSession,
  rejection,
  say,
  scriptedModel,
} from './__fixtures__/harness.js';
import { loadSession } from './load-session.js';

const storedId = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';

describe('loadSession', () => {
  it('resumes the committed log, context, revision and invocation count from a snapshot', async () => {
    const { session, store } = newSession({ context: { cwd: '/repo' } });
    await session.runTurn('first', echoModel, { runId: 'run-a' });
    await session.runTurn('second', echoModel);
    const resumed = await loadSession(store, session.id, { now: fixedClock });
    expect(resumed.id).toBe(session.id);
    expect(resumed.revision).toBe(2);
    expect(resumed.invokeSeq).toBe(2);
    expect(resumed.context).toEqual({ cwd: '/repo' });
    expect(resumed.log.toJSONL()).toBe(session.log.toJSONL());
    const { model, requests } = scriptedModel({ output: [say('assistant', 'third answer')] });
    const result = await resumed.runTurn('third', model);
    expect(requests[0]?.invokeSeq).toBe(3);
    expect(requests[0]?.items).toHaveLength(5);
    expect(result.revision).toBe(3);
    const saved = await store.load(session.id);
    expect(saved).toMatchObject({ run_id: 'run-a', invoke_seq: 3, revision: 3 });
  });

  it('keeps fields it does not write (seed 001 meta and unknown fields)', async () => {
    const store = createMemorySessionStore();
    await store.save({
      schema_version: 1,
      session_id: storedId,
      updated_at: '2026-01-01T00:00:00.000Z',
      messages: [],
      meta: { title: 'kept' },
      x_vendor: { flag: true },
      revision: 4,
    } as SessionState);
    const session = await loadSession(store, storedId, { now: fixedClock });
    expect(session.revision).toBe(4);
    await session.runTurn('x', echoModel);
    expect(await store.load(storedId)).toMatchObject({
      meta: { title: 'kept' },
      x_vendor: { flag: true },
      revision: 5,
      updated_at: '2026-02-03T12:00:00.000Z',
    });
  });

  it('rebuilds the log from the messages of a seed 001 snapshot without episodic JSONL', async () => {
    const store = createMemorySessionStore();
    await store.save({
      schema_version: 1,
      session_id: storedId,
      updated_at: '2026-01-01T00:00:00.000Z',
      invoke_seq: 7,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'list files' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
    });
    const session = await loadSession(store, storedId);
    expect(session.revision).toBe(0);
    expect(session.invokeSeq).toBe(7);
    expect(
      session.log
        .read({ fromId: 0 })
        .map(
          (episode) =>
            `${episode.meta.source}:${(episode.payload as { item: { type: string } }).item.type}`,
        ),
    ).toEqual([
      'runtime:message',
      'user:message',
      'model:function_call',
      'tool:function_call_output',
    ]);
    const result = await session.runTurn('thanks', echoModel);
    expect(result.revision).toBe(1);
  });

  it('survives a damaged episodic JSONL, reporting the bad lines in one error.parse episode', async () => {
    const store = createMemorySessionStore();
    await store.save({
      schema_version: 1,
      session_id: storedId,
      updated_at: '2026-01-01T00:00:00.000Z',
      messages: [],
      episodic: `{"id":1,"type":"item","meta":{"source":"user"},"payload":{"item":{"type":"message","role":"user","content":"hi"}}}\n{"id":2,"type":"it`,
      revision: 1,
    });
    const session = await loadSession(store, storedId);
    const episodes = session.log.read({ fromId: 0 });
    expect(episodes).toHaveLength(2);
    expect(episodes[1]?.payload).toMatchObject({ event: 'error.parse', data: { count: 1 } });
  });

  it('fails with NOT_FOUND for an unknown session and VALIDATION_ERROR for bad arguments', async () => {
    const store = createMemorySessionStore();
    const missing = await rejection(loadSession(store, storedId));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain(storedId);
    for (const [target, id, options, field] of [
      [{}, storedId, undefined, 'store'],
      [store, 'not-a-uuid', undefined, 'session id'],
      [store, storedId, { id: storedId }, 'id'],
      [store, storedId, { maxModelCalls: 0 }, 'maxModelCalls'],
      [store, storedId, { assembly: { startAt: 'middle' } }, 'assembly.startAt'],
    ] as const) {
      const error = await rejection(loadSession(target as never, id, options as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    }
  });
});

describe('clear and remove', () => {
  it('clear empties the committed log, keeps the context and saves', async () => {
    const { session, store } = newSession({ context: { keep: true } });
    await session.runTurn('x', echoModel);
    expect(await session.clear()).toBe(2);
    expect(session.log.size).toBe(0);
    expect(session.context).toEqual({ keep: true });
    expect(await store.load(session.id)).toMatchObject({
      episodes: [],
      messages: [],
      revision: 2,
      context: { keep: true },
    });
    const { model, requests } = scriptedModel({ output: [] });
    await session.runTurn('fresh', model);
    expect(requests[0]?.items).toEqual([say('user', 'fresh')]);
  });

  it('remove aborts a running turn, deletes the snapshot and closes the session', async () => {
    const { session, store } = newSession();
    await session.runTurn('x', echoModel);
    let release = () => {};
    const turn = session.runTurn(
      'y',
      () =>
        new Promise((resolve) => {
          release = () => resolve({ output: [] });
        }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const removed = session.remove();
    expect((await rejection(turn)).code).toBe('ABORTED');
    expect(await removed).toBe(true);
    release();
    expect(await store.load(session.id)).toBeNull();
    expect(await session.remove()).toBe(false);
    for (const action of [
      () => session.runTurn('z', echoModel),
      () => session.interrupt(),
      () => session.abort(),
      () => session.updateContext({ a: 1 }),
      () => session.clear(),
      async () => session.fork(),
    ]) {
      const error = await rejection(action());
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toContain('was removed');
    }
  });

  it('remove reports false for a session that was never saved', async () => {
    const { session } = newSession();
    expect(await session.remove()).toBe(false);
  });
});
