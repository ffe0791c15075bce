import { describe, expect, it } from 'vitest';
import { createEpisodic } from '../episodic/index.js';
import type { FunctionCallItem, InputItem } from '../schema/index.js';
import {
  call,
  echoModel,
  failure,
  newSession,
  rejection,
  say,
  scriptedModel,
} from './__fixtures__/harness.js';

describe('runTurn', () => {
  it('appends the input and the output to the committed log, records usage and saves a snapshot', async () => {
    const { session, store } = newSession({ context: { user: 'ada' } });
    const { model, requests } = scriptedModel({
      output: [say('assistant', 'Hello, Ada.')],
      usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 },
    });
    const result = await session.runTurn('Hi!', model, { turnId: 'turn-1', runId: 'run-1' });

    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      sessionId: session.id,
      turnId: 'turn-1',
      round: 0,
      invokeSeq: 1,
      items: [say('user', 'Hi!')],
      context: { user: 'ada' },
    });
    expect(requests[0]?.manifest.itemCount).toBe(1);
    expect(result).toMatchObject({
      turnId: 'turn-1',
      stopReason: 'completed',
      items: [say('assistant', 'Hello, Ada.')],
      usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 },
      revision: 1,
    });
    expect(
      result.episodes.map((episode) => [
        episode.id,
        episode.type,
        episode.meta.source,
        episode.meta.turnId,
      ]),
    ).toEqual([
      [1, 'item', 'user', 'turn-1'],
      [2, 'item', 'model', 'turn-1'],
      [3, 'meta', 'runtime', 'turn-1'],
    ]);
    expect(result.episodes[2]?.payload).toEqual({
      event: 'turn.usage',
      data: { inputTokens: 12, outputTokens: 4, totalTokens: 16 },
    });
    expect(session.log.read({ fromId: 0 })).toEqual(result.episodes);
    expect(session.revision).toBe(1);
    expect(session.invokeSeq).toBe(1);

    const saved = await store.load(session.id);
    expect(saved).toEqual({
      run_id: 'run-1',
      invoke_seq: 1,
      schema_version: 2,
      session_id: session.id,
      updated_at: '2026-02-03T12:00:00.000Z',
      context: { user: 'ada' },
      revision: 1,
      // Which run committed which episodes: this turn's run, all three.
      episode_runs: [{ run_id: 'run-1', first_id: 1, last_id: 3 }],
      episodes: session.log.read({ fromId: 0 }),
      messages: [
        { role: 'user', content: 'Hi!', message_ts: '2026-02-03T12:00:00.000Z' },
        { role: 'assistant', content: 'Hello, Ada.', message_ts: '2026-02-03T12:00:00.000Z' },
      ],
    });
    expect(createEpisodic(saved?.episodes).read({ fromId: 0 })).toEqual(result.episodes);
  });

  it('accepts one item or several items as input', async () => {
    const { session } = newSession();
    await session.runTurn(say('user', 'one item'), echoModel);
    await session.runTurn([say('user', 'first'), say('user', 'second')], echoModel);
    const users = session.log
      .read({ type: 'item', fromId: 0 })
      .filter((episode) => episode.meta.source === 'user')
      .map((episode) => (episode.payload as { item: { content: string } }).item.content);
    expect(users).toEqual(['one item', 'first', 'second']);
  });

  it('gives the next turn the history of the previous ones', async () => {
    const { session } = newSession();
    await session.runTurn('first', echoModel);
    const { model, requests } = scriptedModel({ output: [say('assistant', 'ok')] });
    await session.runTurn('second', model);
    expect(requests[0]?.items).toEqual([
      say('user', 'first'),
      say('assistant', 'echo: first'),
      say('user', 'second'),
    ]);
    expect(requests[0]?.invokeSeq).toBe(2);
  });

  it('runs tools round after round and feeds their outputs back to the model', async () => {
    const executed: FunctionCallItem[] = [];
    const { session } = newSession({
      executeTool: async (toolCall, context) => {
        executed.push(toolCall);
        expect(context.signal.aborted).toBe(false);
        return toolCall.name === 'list'
          ? 'a.txt\nb.txt'
          : [{ type: 'input_text', text: 'contents' }];
      },
    });
    const { model, requests } = scriptedModel(
      {
        output: [say('assistant', 'Let me look.'), call('c1', 'list')],
        usage: { inputTokens: 10 },
      },
      { output: [call('c2', 'read')], usage: { inputTokens: 20 } },
      { output: [say('assistant', 'Done.')], usage: { inputTokens: 30 } },
    );
    const result = await session.runTurn('what is in a.txt?', model);
    expect(executed.map((item) => item.call_id)).toEqual(['c1', 'c2']);
    expect(requests.map((request) => [request.round, request.invokeSeq])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(requests[2]?.items.map((item) => item.type)).toEqual([
      'message',
      'message',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
    ]);
    expect(result.stopReason).toBe('completed');
    expect(result.usage).toEqual({ inputTokens: 30 });
    expect(result.manifests).toHaveLength(3);
    expect(result.items.map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
      'message',
    ]);
    const sources = session.log
      .read({ fromId: 0 })
      .map((episode) => `${episode.type}:${episode.meta.source}`);
    expect(sources).toEqual([
      'item:user',
      'item:model',
      'item:model',
      'meta:runtime',
      'item:tool',
      'item:model',
      'meta:runtime',
      'item:tool',
      'item:model',
      'meta:runtime',
    ]);
  });

  it("gives a tool message the output_ref the tool executor returns (the run file's)", async () => {
    const outputRef = { id: 'c1', byte_size: 11, line_count: 2 };
    const { session, store } = newSession({
      executeTool: (toolCall) =>
        toolCall.name === 'list' ? { output: 'a.txt\nb.txt', outputRef } : { output: 'plain' },
    });
    const { model } = scriptedModel(
      { output: [call('c1', 'list'), call('c2', 'read')] },
      { output: [say('assistant', 'Done.')] },
    );
    await session.runTurn('look', model);
    const tools = (await store.load(session.id))?.messages.filter(
      (message) => message.role === 'tool',
    );
    expect(tools).toEqual([
      expect.objectContaining({
        tool_call_id: 'c1',
        content: 'a.txt\nb.txt',
        output_ref: outputRef,
      }),
      expect.not.objectContaining({ output_ref: expect.anything() }),
    ]);
    const bad = await rejection(
      session.runTurn('again', scriptedModel({ output: [call('c3', 'list')] }).model, {
        executeTool: () => ({ output: 'x', outputRef: { byte_size: 1 } }) as never,
      }),
    );
    expect(bad.code).toBe('VALIDATION_ERROR');
    expect(bad.message).toContain('outputRef');
  });

  it('does not run calls the model answered itself', async () => {
    let executed = 0;
    const { session } = newSession({ executeTool: () => String(++executed) });
    const { model } = scriptedModel({
      output: [
        call('c1'),
        { type: 'function_call_output', call_id: 'c1', output: 'provider ran it' },
        say('assistant', 'ok'),
      ],
    });
    const result = await session.runTurn('go', model);
    expect(executed).toBe(0);
    expect(result.stopReason).toBe('completed');
  });

  it('stops with tool-calls-pending without an executor, and the next turn heals the dangling call', async () => {
    const { session } = newSession();
    const first = await session.runTurn(
      'delete the temp files',
      scriptedModel({ output: [call('c1', 'rm')] }).model,
    );
    expect(first.stopReason).toBe('tool-calls-pending');
    const { model, requests } = scriptedModel({ output: [say('assistant', 'ok')] });
    await session.runTurn('did it work?', model);
    expect(requests[0]?.items).toEqual([
      say('user', 'delete the temp files'),
      call('c1', 'rm'),
      expect.objectContaining({
        type: 'function_call_output',
        call_id: 'c1',
        output: expect.stringContaining('interrupted'),
      }),
      say('user', 'did it work?'),
    ]);
    expect(requests[0]?.manifest.items[2]).toMatchObject({
      synthetic: true,
      note: { kind: 'synthesized-output' },
    });
  });

  it('stops at maxModelCalls without running the last calls', async () => {
    let executed = 0;
    const { session } = newSession({ executeTool: () => String(++executed), maxModelCalls: 2 });
    const loop = () => ({ output: [call(`c${executed}`)] });
    const result = await session.runTurn('loop forever', loop as never, { maxModelCalls: 3 });
    expect(result.stopReason).toBe('max-model-calls');
    expect(executed).toBe(2);
    expect(result.manifests).toHaveLength(3);
  });

  it('leaves the committed log and the store untouched when the model call fails', async () => {
    const { session, store } = newSession();
    await session.runTurn('first', echoModel);
    const before = { jsonl: session.log.toJSONL(), saved: await store.load(session.id) };
    const providerError = new Error('provider returned 500');
    const caught = await session
      .runTurn('second', () => {
        throw providerError;
      })
      .catch((error: unknown) => error);
    expect(caught).toBe(providerError);
    const rejected = await session
      .runTurn('third', async () => Promise.reject(providerError))
      .catch((error: unknown) => error);
    expect(rejected).toBe(providerError);
    expect(session.log.toJSONL()).toBe(before.jsonl);
    expect(session.revision).toBe(1);
    expect(await store.load(session.id)).toEqual(before.saved);
    expect(session.activeTurnId).toBeNull();
  });

  it('fails with VALIDATION_ERROR on a malformed model response and commits nothing', async () => {
    const { session } = newSession();
    for (const response of [
      null,
      { output: 'hi' },
      { output: [{ type: 'message', role: 'robot', content: 'x' }] },
      { output: [], usage: { inputTokens: -1 } },
    ]) {
      const error = await rejection(session.runTurn('x', () => response as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain('model response');
    }
    expect(session.log.size).toBe(0);
    expect(session.revision).toBe(0);
  });

  it('fails the turn when a tool throws or returns something that is not an output', async () => {
    const { session } = newSession({
      executeTool: () => {
        throw new Error('disk on fire');
      },
    });
    const error = await failure(
      session.runTurn('x', scriptedModel({ output: [call('c1')] }).model),
    );
    expect(error.message).toBe('disk on fire');
    const bad = await rejection(
      session.runTurn('x', scriptedModel({ output: [call('c1', 'weird')] }).model, {
        executeTool: () => 42 as never,
      }),
    );
    expect(bad.code).toBe('VALIDATION_ERROR');
    expect(bad.message).toContain('tool weird');
    expect(session.log.size).toBe(0);
  });
});

describe('runTurn: plugins', () => {
  it("sends a plugin's items to the model but never saves them", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const { session, store } = newSession({
      context: { user: 'ada' },
      plugins: [
        {
          name: 'journal',
          extendInput: ({ turnId, context, episodic }) => {
            seen.push({ turnId, context, size: episodic.size });
            return [say('user', 'Journal: Ada prefers concise answers.')];
          },
        },
      ],
    });
    const { model, requests } = scriptedModel({ output: [say('assistant', 'Sure.')] });
    const result = await session.runTurn('Explain forks.', model, { turnId: 't1' });
    expect(seen).toEqual([{ turnId: 't1', context: { user: 'ada' }, size: 1 }]);
    expect(requests[0]?.items).toEqual([
      say('user', 'Explain forks.'),
      say('user', 'Journal: Ada prefers concise answers.'),
    ]);
    expect(requests[0]?.manifest.items[1]).toMatchObject({ plugin: 'journal' });
    const saved = await store.load(session.id);
    expect(JSON.stringify(saved?.episodes)).not.toContain('Journal');
    expect(JSON.stringify(saved?.messages)).not.toContain('Journal');
    expect(session.log.toJSONL()).not.toContain('Journal');
    expect(result.episodes).toHaveLength(2);
  });

  it('persists episodes a plugin appends explicitly, with the turn', async () => {
    const { session } = newSession({
      plugins: [
        {
          name: 'audit',
          extendInput: ({ episodic, turnId }) => {
            episodic.append({
              type: 'meta',
              meta: { turnId },
              payload: { event: 'audit.seen', pluginId: 'audit' },
            });
            return [];
          },
        },
      ],
    });
    const result = await session.runTurn(
      'x',
      scriptedModel({ output: [say('assistant', 'y')] }).model,
    );
    expect(result.episodes.map((episode) => episode.type)).toEqual(['item', 'meta', 'item']);
    expect(session.log.read({ type: 'meta', fromId: 0 })[0]?.payload).toMatchObject({
      event: 'audit.seen',
    });
  });

  it('fails the turn with PLUGIN_ERROR naming the plugin and commits nothing', async () => {
    const { session } = newSession({
      plugins: [
        {
          name: 'memory-search',
          extendInput: () => {
            throw new Error('index missing');
          },
        },
      ],
    });
    let called = false;
    const error = await rejection(
      session.runTurn('x', () => {
        called = true;
        return { output: [] };
      }),
    );
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toContain('"memory-search"');
    expect(called).toBe(false);
    expect(session.log.size).toBe(0);
  });
});

describe('runTurn: the budget across turns', () => {
  it("restarts at the current turn when the last usage exceeds the session's budget", async () => {
    const { session } = newSession({ assembly: { maxTokens: 100, reserveOutputTokens: 20 } });
    await session.runTurn(
      'long ago',
      scriptedModel({ output: [say('assistant', 'a')], usage: { inputTokens: 500 } }).model,
    );
    const { model, requests } = scriptedModel({ output: [say('assistant', 'b')] });
    await session.runTurn('now', model, { turnId: 't2' });
    expect(requests[0]?.items).toEqual([say('user', 'now')]);
    expect(requests[0]?.manifest).toMatchObject({ start: 'budget-turn', truncated: true });
    expect(requests[0]?.manifest.budget).toMatchObject({ limit: 80, lastInputTokens: 500 });
  });

  it('applies the budget between rounds of one turn and keeps its tool pairs whole', async () => {
    const { session } = newSession({ assembly: { maxTokens: 50 }, executeTool: () => 'result' });
    await session.runTurn('long ago', echoModel);
    const sent: InputItem[][] = [];
    await session.runTurn(
      'go',
      scriptedModel(
        (request) => {
          sent.push(request.items);
          return { output: [call('c1')], usage: { inputTokens: 999 } };
        },
        (request) => {
          sent.push(request.items);
          return { output: [say('assistant', 'done')] };
        },
      ).model,
      { turnId: 'now' },
    );
    expect(sent[0]?.[0]).toEqual(say('user', 'long ago'));
    expect(sent[1]).toEqual([
      say('user', 'go'),
      call('c1'),
      { type: 'function_call_output', call_id: 'c1', output: 'result' },
    ]);
  });
});
