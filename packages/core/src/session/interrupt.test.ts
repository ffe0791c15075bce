import { describe, expect, it } from 'vitest';
import {
  call,
  deferred,
  echoModel,
  newSession,
  rejection,
  say,
  scriptedModel,
} from './__fixtures__/harness.js';
import type { ModelCall, ModelRequest } from './model-call.js';

/** A model call that blocks until released (and never looks at the signal, like a careless provider). */
function blockingModel() {
  const started = deferred<ModelRequest>();
  const release = deferred<void>();
  const model: ModelCall = async (request) => {
    started.resolve(request);
    await release.promise;
    return { output: [say('assistant', 'too late')] };
  };
  return { model, started: started.promise, release: () => release.resolve() };
}

describe('interrupt', () => {
  it('aborts the running turn, discards it and appends an interrupt boundary to the committed log', async () => {
    const { session, store } = newSession();
    await session.runTurn('first', echoModel);
    const blocking = blockingModel();
    const turn = session.runTurn('second', blocking.model, { turnId: 'turn-2' });
    const request = await blocking.started;
    expect(session.activeTurnId).toBe('turn-2');

    const result = await session.interrupt('The user pressed stop.');
    expect(request.signal.aborted).toBe(true);
    const error = await rejection(turn);
    expect(error.code).toBe('ABORTED');
    expect(error.details).toMatchObject({ turnId: 'turn-2', interrupted: true });
    expect(result).toMatchObject({ interrupted: true, turnId: 'turn-2' });
    expect(result.boundary).toMatchObject({
      id: 4,
      type: 'boundary',
      meta: { source: 'runtime', turnId: 'turn-2' },
      payload: {
        reason: 'interrupt',
        title: 'turn interrupted',
        content: 'The user pressed stop.',
      },
    });
    // The turn's input and output are gone; only the boundary was added.
    expect(session.log.read({ fromId: 0 }).map((episode) => episode.type)).toEqual([
      'item',
      'item',
      'meta',
      'boundary',
    ]);
    expect(session.revision).toBe(2);
    expect(JSON.stringify((await store.load(session.id))?.episodes)).toContain(
      'The user pressed stop.',
    );
    expect(session.activeTurnId).toBeNull();

    // A model call that ignores the signal is abandoned: its late answer changes nothing.
    blocking.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.log.size).toBe(4);

    const { model, requests } = scriptedModel({ output: [say('assistant', 'ok')] });
    await session.runTurn('third', model);
    expect(requests[0]?.items).toEqual([
      say('user', 'first'),
      say('assistant', 'echo: first'),
      say('user', '<interrupt>\nThe user pressed stop.\n</interrupt>'),
      say('user', 'third'),
    ]);
  });

  it('uses a default boundary text, and returns the same result to a second interrupt', async () => {
    const { session } = newSession();
    const blocking = blockingModel();
    const turn = session.runTurn('x', blocking.model);
    await blocking.started;
    const [first, second] = await Promise.all([session.interrupt(), session.interrupt('ignored')]);
    await rejection(turn);
    expect(second).toEqual(first);
    expect(first.boundary?.payload).toMatchObject({
      reason: 'interrupt',
      content: expect.stringContaining('interrupted before it finished'),
    });
    expect(session.log.read({ type: 'boundary', fromId: 0 })).toHaveLength(1);
  });

  it('interrupts a turn while a tool is running', async () => {
    const toolStarted = deferred<void>();
    const { session } = newSession({
      executeTool: async (_call, { signal }) => {
        toolStarted.resolve();
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        return 'aborted';
      },
    });
    const turn = session.runTurn(
      'run the migration',
      scriptedModel({ output: [call('c1', 'migrate')] }).model,
    );
    await toolStarted.promise;
    const result = await session.interrupt('stopped mid-migration');
    expect((await rejection(turn)).code).toBe('ABORTED');
    expect(result.interrupted).toBe(true);
    expect(session.log.read({ fromId: 0 }).map((episode) => episode.type)).toEqual(['boundary']);
  });

  it("keep: 'partial' commits the turn's work so far, then the boundary; the next input heals the unfinished call", async () => {
    const toolStarted = deferred<void>();
    const { session, store } = newSession({
      executeTool: async (toolCall, { signal }) => {
        if (toolCall.call_id === 'c1') return 'listed 3 files';
        toolStarted.resolve();
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        return 'too late';
      },
    });
    const turn = session.runTurn(
      'clean up the workspace',
      scriptedModel(
        { output: [call('c1', 'list_files')] },
        { output: [call('c2', 'delete_files')] },
      ).model,
      { turnId: 'turn-1' },
    );
    await toolStarted.promise;
    const result = await session.interrupt('The user pressed Ctrl-C.', { keep: 'partial' });
    expect((await rejection(turn)).code).toBe('ABORTED');

    // Input, first call + its output, usage-free second call (no output), then the boundary.
    const kinds = session.log
      .read({ fromId: 0 })
      .map((episode) =>
        episode.type === 'item' ? String(episode.payload.item.type) : episode.type,
      );
    expect(kinds).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'function_call',
      'boundary',
    ]);
    expect(result.kept.map((episode) => episode.id)).toEqual([1, 2, 3, 4]);
    expect(result.boundary).toMatchObject({
      id: 5,
      payload: { reason: 'interrupt', content: 'The user pressed Ctrl-C.' },
    });
    expect(
      session.log.read({ fromId: 0 }).every((episode) => episode.meta.turnId === 'turn-1'),
    ).toBe(true);
    expect(session.revision).toBe(1);
    expect(JSON.stringify((await store.load(session.id))?.episodes)).toContain('delete_files');

    // The next model input pairs the unfinished call with a synthetic output: no provider error.
    const next = scriptedModel({ output: [say('assistant', 'ok')] });
    await session.runTurn('what happened?', next.model);
    const items = next.requests[0]?.items ?? [];
    const outputs = items.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => item.call_id)).toEqual(['c1', 'c2']);
    expect(String(outputs[1]?.output)).toMatch(/interrupted/i);
  });

  it("keep: 'partial' with the default text says what was kept, and rejects an unknown keep", async () => {
    const { session } = newSession();
    const blocking = blockingModel();
    const turn = session.runTurn('x', blocking.model);
    await blocking.started;
    await expect(session.interrupt(undefined, { keep: 'all' as 'partial' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    const result = await session.interrupt(undefined, { keep: 'partial' });
    await rejection(turn);
    expect(result.boundary?.payload).toMatchObject({
      content: expect.stringContaining('were kept'),
    });
    expect(result.kept.map((episode) => episode.type)).toEqual(['item']);
  });

  it('does nothing when no turn is running', async () => {
    const { session, store } = newSession();
    expect(await session.interrupt('nothing to stop')).toEqual({
      interrupted: false,
      turnId: null,
      boundary: null,
      kept: [],
    });
    expect(session.log.size).toBe(0);
    expect(await store.load(session.id)).toBeNull();
  });

  it('reports a failed boundary save through interrupt() and still aborts the turn', async () => {
    const { session, store } = newSession();
    await session.runTurn('first', echoModel);
    const blocking = blockingModel();
    const turn = session.runTurn('second', blocking.model);
    await blocking.started;
    // Another writer commits meanwhile, so the boundary's save conflicts.
    const other = await store.load(session.id);
    await store.save(
      { ...(other as NonNullable<typeof other>), revision: 2 },
      { expectedRevision: 1 },
    );
    const interruptError = await rejection(session.interrupt('stop'));
    expect(interruptError.code).toBe('CONFLICT');
    expect((await rejection(turn)).code).toBe('ABORTED');
    expect(session.log.size).toBe(3);
  });
});

describe('abort', () => {
  it('aborts the running turn without writing a boundary', async () => {
    const { session, store } = newSession();
    await session.runTurn('first', echoModel);
    const before = await store.load(session.id);
    const blocking = blockingModel();
    const turn = session.runTurn('second', blocking.model);
    await blocking.started;
    const aborting = session.abort();
    const error = await rejection(turn);
    expect(await aborting).toBe(true);
    expect(error.code).toBe('ABORTED');
    expect(error.details).toMatchObject({ interrupted: false });
    expect(session.log.size).toBe(3);
    expect(await store.load(session.id)).toEqual(before);
    expect(await session.abort()).toBe(false);
  });

  it("aborts through the turn's own signal, before or during the turn", async () => {
    const { session } = newSession();
    const early = new AbortController();
    early.abort();
    let called = false;
    const first = await rejection(
      session.runTurn(
        'x',
        () => {
          called = true;
          return { output: [] };
        },
        { signal: early.signal },
      ),
    );
    expect(first.code).toBe('ABORTED');
    expect(called).toBe(false);

    const controller = new AbortController();
    const blocking = blockingModel();
    const turn = session.runTurn('y', blocking.model, { signal: controller.signal });
    await blocking.started;
    controller.abort();
    expect((await rejection(turn)).code).toBe('ABORTED');
    expect(session.log.size).toBe(0);
  });

  it('cannot abort a turn once it is committing', async () => {
    const { session, store } = newSession();
    const entered = deferred<void>();
    const saving = deferred<void>();
    const commit = store.commit.bind(store);
    store.commit = async (input) => {
      entered.resolve();
      await saving.promise;
      return commit(input);
    };
    const turn = session.runTurn('x', echoModel);
    await entered.promise;
    expect(await session.interrupt('too late')).toMatchObject({ interrupted: false });
    expect(await session.abort()).toBe(false);
    saving.resolve();
    expect((await turn).revision).toBe(1);
    expect(session.log.read({ type: 'boundary', fromId: 0 })).toEqual([]);
  });
});

describe('interrupt and abort: which turn', () => {
  it('reaches a turn that was requested but has not started yet', async () => {
    const { session } = newSession();
    let called = false;
    const turn = session.runTurn(
      'x',
      () => {
        called = true;
        return { output: [] };
      },
      { turnId: 'queued' },
    );
    expect(session.activeTurnId).toBe('queued');
    const result = await session.interrupt('changed my mind');
    expect((await rejection(turn)).code).toBe('ABORTED');
    expect(called).toBe(false);
    expect(result).toMatchObject({ interrupted: true, turnId: 'queued' });
    expect(session.log.read({ fromId: 0 }).map((episode) => episode.type)).toEqual(['boundary']);
  });

  it('stops the running turn only; the next queued turn runs and sees the boundary', async () => {
    const { session } = newSession();
    const blocking = blockingModel();
    const first = session.runTurn('first', blocking.model, { turnId: 'first' });
    const { model, requests } = scriptedModel({ output: [say('assistant', 'second answer')] });
    const second = session.runTurn('second', model, { turnId: 'second' });
    await blocking.started;
    expect(session.activeTurnId).toBe('first');
    await session.interrupt('stop the first');
    expect((await rejection(first)).code).toBe('ABORTED');
    expect((await second).turnId).toBe('second');
    expect(requests[0]?.items).toEqual([
      say('user', '<interrupt>\nstop the first\n</interrupt>'),
      say('user', 'second'),
    ]);
    expect(session.activeTurnId).toBeNull();
  });
});
