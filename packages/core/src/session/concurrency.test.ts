import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../store/index.js';
import {
  deferred,
  echoModel,
  failure,
  fixedClock,
  idSequence,
  newSession,
  rejection,
  say,
  scriptedModel,
} from './__fixtures__/harness.js';
import { compact } from './compact.js';
import { loadSession } from './load-session.js';
import type { ModelCall, ModelRequest } from './model-call.js';

describe('serialized mutations', () => {
  it('runs concurrent turns one after another, each seeing every earlier turn', async () => {
    const { session, store } = newSession();
    const seen: string[][] = [];
    let running = 0;
    let overlapped = false;
    const model: ModelCall = async (request) => {
      running += 1;
      if (running > 1) overlapped = true;
      seen.push(request.items.map((item) => String((item as { content?: unknown }).content)));
      // Yield a few times so a second turn would interleave if it could.
      for (let index = 0; index < 5; index++) await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      return { output: [say('assistant', `answer ${seen.length}`)] };
    };
    const turns = ['a', 'b', 'c', 'd', 'e'].map((text) => session.runTurn(text, model));
    const contextSave = session.updateContext({ mood: 'busy' });
    const results = await Promise.all(turns);
    expect(overlapped).toBe(false);
    expect(results.map((result) => result.revision)).toEqual([1, 2, 3, 4, 5]);
    expect(await contextSave).toBe(6);
    expect(seen[4]).toEqual([
      'a',
      'answer 1',
      'b',
      'answer 2',
      'c',
      'answer 3',
      'd',
      'answer 4',
      'e',
    ]);
    expect(session.log.size).toBe(10);
    expect((await store.load(session.id))?.revision).toBe(6);
  });

  it('keeps serving turns after one fails', async () => {
    const { session } = newSession();
    const failing = session.runTurn('x', () => {
      throw new Error('boom');
    });
    const next = session.runTurn('y', echoModel);
    await expect(failing).rejects.toThrow('boom');
    expect((await next).revision).toBe(1);
  });

  it("keeps a context update made during a running turn through that turn's commit", async () => {
    const { session, store } = newSession({ context: { step: 1 } });
    const started = deferred<ModelRequest>();
    const release = deferred<void>();
    const turn = session.runTurn('x', async (request) => {
      started.resolve(request);
      await release.promise;
      return { output: [say('assistant', 'y')] };
    });
    const request = await started.promise;
    const update = session.updateContext({ step: 2, note: 'changed mid-turn' });
    expect(session.context).toEqual({ step: 2, note: 'changed mid-turn' });
    expect(request.context).toEqual({ step: 1 });
    release.resolve();
    const result = await turn;
    expect(result.revision).toBe(1);
    expect((await store.load(session.id))?.context).toEqual({ step: 2, note: 'changed mid-turn' });
    expect(await update).toBe(2);
    const functional = await session.updateContext((current) => ({
      step: Number(current.step) + 1,
    }));
    expect(functional).toBe(3);
    expect(session.context).toEqual({ step: 3 });
    expect(Object.isFrozen(session.context)).toBe(true);
  });

  it('orders clear, compaction and turns as called', async () => {
    const { session } = newSession();
    const first = session.runTurn('before clear', echoModel);
    const cleared = session.clear();
    const second = session.runTurn('after clear', echoModel);
    const compacted = compact(session, {
      summarize: ({ episodes }) => `${episodes.length} episodes`,
    });
    await Promise.all([first, cleared, second, compacted]);
    const entries = session.log.read({ fromId: 0 });
    expect(entries.map((episode) => episode.type)).toEqual(['item', 'item', 'meta', 'boundary']);
    expect(entries[0]?.payload).toEqual({ item: say('user', 'after clear') });
    expect(entries[3]?.payload).toMatchObject({ reason: 'checkpoint', content: '3 episodes' });
  });
});

describe('optimistic concurrency', () => {
  it('fails the later turn with CONFLICT when two session objects share one store, losing nothing', async () => {
    const store = createMemorySessionStore();
    const { session: first } = newSession({}, store);
    await first.runTurn('hello', echoModel);
    const second = await loadSession(store, first.id, {
      now: fixedClock,
      generateId: idSequence(7),
    });

    await first.runTurn('from the first object', echoModel);
    const conflict = await rejection(second.runTurn('from the second object', echoModel));
    expect(conflict.code).toBe('CONFLICT');
    expect(conflict.message).toContain('expected revision 1, found revision 2');

    // The first writer's turn stays; the second's episodes were not merged anywhere.
    const saved = await store.load(first.id);
    expect(saved?.revision).toBe(2);
    expect(JSON.stringify(saved?.episodes)).toContain('from the first object');
    expect(JSON.stringify(saved?.episodes)).not.toContain('from the second object');
    expect(second.revision).toBe(1);
    expect(second.log.toJSONL()).not.toContain('from the second object');

    // Reloading picks up the other writer's turn, and the retry commits.
    const reloaded = await loadSession(store, first.id, { now: fixedClock });
    const retried = await reloaded.runTurn('from the second object', echoModel);
    expect(retried.revision).toBe(3);
    expect(JSON.stringify((await store.load(first.id))?.episodes)).toContain(
      'from the first object',
    );
  });

  it('lets exactly one of two racing commits win', async () => {
    const store = createMemorySessionStore();
    const { session: original } = newSession({}, store);
    await original.runTurn('seed', echoModel);
    const left = await loadSession(store, original.id);
    const right = await loadSession(store, original.id);
    const outcomes = await Promise.allSettled([
      left.runTurn('left', echoModel),
      right.runTurn('right', echoModel),
    ]);
    const codes = outcomes.map((outcome) =>
      outcome.status === 'fulfilled' ? 'ok' : (outcome.reason as { code: string }).code,
    );
    expect(codes.sort()).toEqual(['CONFLICT', 'ok']);
    expect((await store.load(original.id))?.revision).toBe(2);
  });

  it('fails the first commit of a new session whose id is already stored', async () => {
    const store = createMemorySessionStore();
    const { session } = newSession({}, store);
    await session.runTurn('x', echoModel);
    const duplicate = newSession({ id: session.id }, store).session;
    const error = await rejection(duplicate.runTurn('y', echoModel));
    expect(error.code).toBe('CONFLICT');
    expect(JSON.stringify(await store.load(session.id))).not.toContain('"y"');
  });

  it('leaves the session unchanged when the store fails to save', async () => {
    const { session, store } = newSession();
    await session.runTurn('x', echoModel);
    const commit = store.commit.bind(store);
    store.commit = async () => {
      throw new Error('disk full');
    };
    const error = await failure(session.runTurn('y', echoModel));
    expect(error.message).toBe('disk full');
    expect(session.revision).toBe(1);
    expect(session.log.size).toBe(3);
    store.commit = commit;
    expect((await session.runTurn('z', echoModel)).revision).toBe(2);
  });
});

describe('fork', () => {
  it("copies committed history only: a fork never sees the source's in-flight turn", async () => {
    const { session, store } = newSession({ context: { owner: 'ada' } });
    await session.runTurn('committed question', echoModel);
    const started = deferred<void>();
    const release = deferred<void>();
    const turn = session.runTurn('in flight', async () => {
      started.resolve();
      await release.promise;
      return { output: [say('assistant', 'in-flight answer')] };
    });
    await started.promise;
    const child = session.fork();
    release.resolve();
    await turn;

    expect(child.id).not.toBe(session.id);
    expect(child.revision).toBe(0);
    expect(child.context).toEqual({ owner: 'ada' });
    expect(child.log.toJSONL()).not.toContain('in flight');
    expect(child.log.size).toBe(3);
    expect(session.log.size).toBe(5);

    // The fork is its own session: saved at its first commit, appending independently.
    expect(await store.load(child.id)).toBeNull();
    const { model, requests } = scriptedModel({ output: [say('assistant', 'child answer')] });
    await child.runTurn('child question', model);
    expect(requests[0]?.items.map((item) => (item as { content: string }).content)).toEqual([
      'committed question',
      'echo: committed question',
      'child question',
    ]);
    expect((await store.load(child.id))?.revision).toBe(1);
    expect(session.log.toJSONL()).not.toContain('child question');
  });

  it('takes an id and a context, and rejects its own id', async () => {
    const { session } = newSession({ context: { a: 1 } });
    const id = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
    const child = session.fork({ id, context: { b: 2 } });
    expect(child.id).toBe(id);
    expect(child.context).toEqual({ b: 2 });
    const error = (() => {
      try {
        session.fork({ id: session.id });
      } catch (caught) {
        return caught as Error;
      }
      return null;
    })();
    expect(error?.message).toContain('must differ from the source session id');
  });

  it('shares episodes with the source instead of copying them, at any size', async () => {
    const { session } = newSession();
    await session.runTurn(
      Array.from({ length: 20_000 }, (_, index) => say('user', `message ${index}`)),
      scriptedModel({ output: [] }).model,
    );
    const child = session.fork();
    const source = session.log.read({ fromId: 19_990 });
    const forked = child.log.read({ fromId: 19_990 });
    expect(forked).toHaveLength(10);
    // The very same frozen objects: nothing was copied.
    for (const [index, episode] of forked.entries()) expect(episode).toBe(source[index]);
  });
});
