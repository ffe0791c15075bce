import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSession,
  type Episode,
  EpisodicError,
  loadSession,
  type RunRecord,
  type RunStore,
} from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { describe, expect, it } from 'vitest';
import {
  AI_VERSIONS,
  answers,
  callsTool,
  fixedNow,
  newConversation,
  recordTypes,
  scriptedModel,
  scriptedStreamModel,
  uuidSequence,
} from './__fixtures__/ai-versions.js';
import { episodicMiddleware } from './episodic-middleware.js';
import { sessionMessages } from './session-messages.js';

function summarize(episodes: readonly Episode[]) {
  return episodes.map((episode) => {
    if (episode.type === 'item') {
      const item = episode.payload.item as { type: string; role?: string; call_id?: string };
      return `${episode.meta.source}:${item.type}${item.role ? `:${item.role}` : ''}${item.call_id ? `:${item.call_id}` : ''}`;
    }
    if (episode.type === 'meta') return `${episode.meta.source}:meta:${episode.payload.event}`;
    return `${episode.meta.source}:boundary:${episode.payload.reason}`;
  });
}

/** The one run a test recorded (fails when there is not exactly one). */
async function onlyRun(runs: RunStore) {
  const { runs: listed } = await runs.list();
  expect(listed).toHaveLength(1);
  return runs.read(listed[0]?.runId as string);
}

function ofType<T extends string>(records: readonly RunRecord[], type: T) {
  return records.filter((record) => record.type === type) as Array<
    RunRecord & Record<string, unknown>
  >;
}

describe.each(AI_VERSIONS)('episodicMiddleware with $name', (version) => {
  const { generateText, streamText, wrapLanguageModel, tool, jsonSchema, stepCountIs } = version.ai;
  const addTool = tool({
    description: 'Adds two numbers.',
    inputSchema: jsonSchema<{ a: number; b: number }>({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    }),
    execute: async ({ a, b }) => a + b,
  });

  function setup() {
    const conversation = newConversation();
    const middleware = episodicMiddleware({
      session: conversation.session,
      runs: conversation.runs,
      now: fixedNow,
      generateId: uuidSequence(3),
      runtime: { cwd: '/work' },
    });
    return { ...conversation, middleware };
  }

  it('records a generateText call with a tool round as one run and one turn', async () => {
    const { session, runs, middleware } = setup();
    const { model } = scriptedModel(version, [
      callsTool('call_1', 'add', { a: 1, b: 2 }),
      answers('It is 3.'),
    ]);
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      messages: await sessionMessages(session, { input: 'What is 1 + 2?' }),
      tools: { add: addTool },
      stopWhen: stepCountIs(5),
      onFinish: middleware.onFinish,
    });
    expect(result.text).toBe('It is 3.');

    const episodes = session.log.read({ fromId: 0 });
    expect(summarize(episodes)).toEqual([
      'user:message:user',
      'model:function_call:call_1',
      'runtime:meta:turn.usage',
      'tool:function_call_output:call_1',
      'model:message:assistant',
      'runtime:meta:turn.usage',
    ]);
    const turnIds = new Set(episodes.map((episode) => episode.meta.turnId));
    expect(turnIds.size).toBe(1);
    expect(episodes[1]?.payload).toMatchObject({
      item: { type: 'function_call', name: 'add', arguments: '{"a":1,"b":2}' },
    });
    expect(episodes[2]?.payload).toMatchObject({
      data: { inputTokens: 20, outputTokens: 5, totalTokens: 25 },
    });
    expect(episodes[3]?.payload).toMatchObject({
      item: {
        type: 'function_call_output',
        call_id: 'call_1',
        output: '3',
        ai_sdk: { output: 'json', toolName: 'add' },
      },
    });
    expect(session.invokeSeq).toBe(2);
    expect(session.revision).toBe(2);

    const run = await onlyRun(runs);
    expect(recordTypes(run.records)).toEqual([
      'header',
      'run.start',
      'run.status:running',
      'llm.request',
      'llm.response',
      'tool.output',
      'llm.request',
      'llm.response',
      'run.status:completed',
      'run.end:completed',
    ]);
    expect(run.header).toMatchObject({
      session_id: session.id,
      client: { name: '@episodic/ai-sdk' },
      model: { provider: 'mock-provider', name: 'mock-model-id' },
      runtime: { cwd: '/work' },
      tools: { definitions: [{ type: 'function', name: 'add', description: 'Adds two numbers.' }] },
    });
    expect(ofType(run.records, 'run.start')[0]).toMatchObject({
      input: { type: 'text', text: 'What is 1 + 2?' },
    });
    const [request1, request2] = ofType(run.records, 'llm.request');
    expect(request1).toMatchObject({
      seq: 1,
      input: {
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is 1 + 2?' }] }],
        model: 'mock-model-id',
      },
    });
    expect(request2).toMatchObject({
      seq: 2,
      input: {
        messages: [
          { role: 'user' },
          {
            role: 'assistant',
            tool_calls: [{ id: 'call_1', function: { name: 'add', arguments: '{"a":1,"b":2}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '3' },
        ],
      },
    });
    const [response1, response2] = ofType(run.records, 'llm.response');
    expect(response1).toMatchObject({
      seq: 1,
      output: {
        stop_reason: 'tool-calls',
        usage: { model: 'mock-model-id', input_tokens: 20, output_tokens: 5, total_tokens: 25 },
        messages: [{ role: 'assistant', tool_calls: [{ id: 'call_1' }] }],
      },
      meta: { finish_reason_raw: 'tool_calls' },
    });
    expect(response2).toMatchObject({
      seq: 2,
      output: {
        stop_reason: 'stop',
        messages: [{ role: 'assistant', content: [{ type: 'text', text: 'It is 3.' }] }],
      },
    });
    expect(ofType(run.records, 'tool.output')[0]).toMatchObject({
      tool: 'add',
      tool_call_id: 'call_1',
      result_raw: '3',
    });
    expect(ofType(run.records, 'run.end')[0]).toMatchObject({
      outcome: 'completed',
      final: 'It is 3.',
    });
    expect(middleware.runId).toBeNull();
  });

  it('records the tools run after the last step through onFinish, so the next call sees their real output', async () => {
    const { session, runs, middleware } = setup();
    const { model, prompts } = scriptedModel(version, [
      callsTool('call_1', 'add', { a: 2, b: 2 }),
      answers('4, as computed.'),
    ]);
    const wrapped = wrapLanguageModel({ model, middleware });
    // The default stopWhen ends after one step: the AI SDK runs the tool, no model call follows.
    await generateText({
      model: wrapped,
      messages: await sessionMessages(session, { input: '2 + 2?' }),
      tools: { add: addTool },
      onFinish: middleware.onFinish,
    });
    expect(summarize(session.log.read({ fromId: 0 })).slice(-1)).toEqual([
      'tool:function_call_output:call_1',
    ]);
    await generateText({
      model: wrapped,
      messages: await sessionMessages(session, { input: 'And?' }),
      onFinish: middleware.onFinish,
    });
    expect(prompts[1]).toMatchObject([
      { role: 'user', content: [{ type: 'text', text: '2 + 2?' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'add' }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', output: { type: 'json', value: 4 } },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And?' }] },
    ]);
    const { runs: listed } = await runs.list({ sessionId: session.id });
    expect(listed).toHaveLength(2);
    const read = await Promise.all(listed.map((run) => runs.read(run.runId)));
    const inputOf = (run: (typeof read)[number]) =>
      (run.records.find((record) => record.type === 'run.start') as { input?: { text?: string } })
        .input?.text;
    const first = read.find((run) => inputOf(run) === '2 + 2?');
    const second = read.find((run) => inputOf(run) === 'And?');
    expect(recordTypes(first?.records ?? []).slice(-3)).toEqual([
      'tool.output',
      'run.status:completed',
      'run.end:completed',
    ]);
    // The second run's invocation numbers continue the session's.
    expect(ofType(second?.records ?? [], 'llm.request')[0]).toMatchObject({ seq: 2 });
    expect(session.invokeSeq).toBe(2);
  });

  it('without onFinish, ends the open run when the next call starts (its tool output was not seen)', async () => {
    const { session, runs, middleware } = setup();
    const { model, prompts } = scriptedModel(version, [
      callsTool('call_1', 'add', { a: 2, b: 2 }),
      answers('Unknown.'),
    ]);
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({
      model: wrapped,
      messages: await sessionMessages(session, { input: '2 + 2?' }),
      tools: { add: addTool },
    });
    expect(middleware.runId).not.toBeNull();
    await generateText({
      model: wrapped,
      messages: await sessionMessages(session, { input: 'And?' }),
    });
    // The call has no recorded output, so assembly healed it like any unfinished call.
    expect(prompts[1]).toMatchObject([
      { role: 'user' },
      { role: 'assistant' },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'call_1', output: { type: 'text' } }],
      },
      { role: 'user', content: [{ type: 'text', text: 'And?' }] },
    ]);
    const { runs: listed } = await runs.list({ sessionId: session.id });
    const ended = await Promise.all(listed.map((run) => runs.read(run.runId)));
    expect(ended.map((run) => run.ended)).toEqual([true, true]);
  });

  it('records only the new input of a call: the assembled history is marked and not recorded again', async () => {
    const { session, middleware } = setup();
    const { model, prompts } = scriptedModel(version, [
      answers('Hello!'),
      answers('Fine, thanks.'),
    ]);
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({
      model: wrapped,
      system: 'Be kind.',
      messages: await sessionMessages(session, { input: 'Hi' }),
    });
    await generateText({
      model: wrapped,
      system: 'Be kind.',
      messages: await sessionMessages(session, { input: 'How are you?' }),
    });
    expect(summarize(session.log.read({ fromId: 0 }))).toEqual([
      'user:message:user',
      'model:message:assistant',
      'runtime:meta:turn.usage',
      'user:message:user',
      'model:message:assistant',
      'runtime:meta:turn.usage',
    ]);
    expect(prompts[1]).toMatchObject([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', providerOptions: { episodic: { episodeIds: [1] } } },
      { role: 'assistant', providerOptions: { episodic: { episodeIds: [2] } } },
      { role: 'user', content: [{ type: 'text', text: 'How are you?' }] },
    ]);
    expect(
      (prompts[1] as Array<{ providerOptions?: unknown }>)[3]?.providerOptions,
    ).toBeUndefined();
  });

  it('records a streamText call once each step is complete', async () => {
    const { session, runs, middleware } = setup();
    const { model } = scriptedStreamModel(version, [
      callsTool('call_1', 'add', { a: 5, b: 6 }),
      answers('The sum is 11.'),
    ]);
    const result = streamText({
      model: wrapLanguageModel({ model, middleware }),
      messages: await sessionMessages(session, { input: '5 + 6?' }),
      tools: { add: addTool },
      stopWhen: stepCountIs(5),
      onFinish: middleware.onFinish,
    });
    let sawText = false;
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta' && !sawText) {
        sawText = true;
        // Mid-stream: the first step is committed, the streaming one is not yet.
        expect(summarize(session.log.read({ fromId: 0 })).at(-1)).toBe('runtime:meta:turn.usage');
      }
    }
    expect(await result.text).toBe('The sum is 11.');
    expect(summarize(session.log.read({ fromId: 0 }))).toEqual([
      'user:message:user',
      'model:function_call:call_1',
      'runtime:meta:turn.usage',
      'tool:function_call_output:call_1',
      'model:message:assistant',
      'runtime:meta:turn.usage',
    ]);
    const last = session.log.read({ fromId: 0, type: 'item' }).at(-1);
    expect(last?.payload).toMatchObject({
      item: { content: [{ type: 'output_text', text: 'The sum is 11.' }] },
    });
    const run = await onlyRun(runs);
    expect(run.ended).toBe(true);
    expect(ofType(run.records, 'llm.response')[1]).toMatchObject({
      output: {
        stop_reason: 'stop',
        messages: [{ content: [{ type: 'text', text: 'The sum is 11.' }] }],
      },
    });
  });

  it('an aborted stream leaves a healed history: the unfinished call is paired in the next input', async () => {
    const { session, runs, middleware } = setup();
    const { model } = scriptedStreamModel(version, [
      callsTool('call_slow', 'scan', {}),
      answers('Scanned.'),
    ]);
    const controller = new AbortController();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const scan = tool({
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
      execute: (_input, { abortSignal }) =>
        new Promise<string>((_resolve, reject) => {
          started();
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason));
        }),
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const result = streamText({
      model: wrapped,
      messages: await sessionMessages(session, { input: 'Scan everything.' }),
      tools: { scan },
      stopWhen: stepCountIs(5),
      abortSignal: controller.signal,
      onFinish: middleware.onFinish,
    });
    const consumed = (async () => {
      for await (const _part of result.fullStream) {
        // drain
      }
    })();
    await toolStarted;
    controller.abort(new Error('the user pressed stop'));
    await consumed.catch(() => undefined);
    await middleware.close();

    expect(summarize(session.log.read({ fromId: 0 }))).toEqual([
      'user:message:user',
      'model:function_call:call_slow',
      'runtime:meta:turn.usage',
      'runtime:boundary:interrupt',
    ]);
    const boundary = session.log.read({ fromId: 0 }).at(-1);
    expect(boundary?.payload).toMatchObject({
      reason: 'interrupt',
      content: expect.stringContaining('the user pressed stop'),
    });
    const run = await onlyRun(runs);
    expect(recordTypes(run.records).slice(-2)).toEqual([
      'run.status:cancelled',
      'run.end:cancelled',
    ]);

    const next = await sessionMessages(session, { input: 'What happened?' });
    expect(next.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'user',
    ]);
    expect(next[2]).toMatchObject({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_slow',
          toolName: 'scan',
          output: { type: 'text', value: expect.stringContaining('interrupted') },
        },
      ],
    });
    expect(next[3]).toMatchObject({
      role: 'user',
      content: expect.stringContaining('<interrupt>'),
    });
    // And the next call goes through: its prompt is accepted by the AI SDK and recorded.
    const { model: model2 } = scriptedModel(version, [answers('The scan was interrupted.')]);
    await generateText({ model: wrapLanguageModel({ model: model2, middleware }), messages: next });
    expect(summarize(session.log.read({ fromId: 4 }))).toEqual([
      'user:message:user',
      'model:message:assistant',
      'runtime:meta:turn.usage',
    ]);
  });

  it('an abort mid-text keeps nothing of the unfinished text', async () => {
    const { session, runs, middleware } = setup();
    const controller = new AbortController();
    const { model } = scriptedStreamModel(version, [
      {
        chunkDelayInMs: 15,
        parts: [
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't1' },
          { type: 'text-delta', id: 't1', delta: 'Once ' },
          { type: 'text-delta', id: 't1', delta: 'upon ' },
          { type: 'text-delta', id: 't1', delta: 'a time' },
          { type: 'text-end', id: 't1' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: { inputTokens: { total: 5 }, outputTokens: { total: 3 } },
          },
        ],
      },
    ]);
    const result = streamText({
      model: wrapLanguageModel({ model, middleware }),
      messages: await sessionMessages(session, { input: 'Tell a story.' }),
      abortSignal: controller.signal,
    });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') controller.abort();
    }
    await middleware.close();
    expect(summarize(session.log.read({ fromId: 0 }))).toEqual([
      'user:message:user',
      'runtime:boundary:interrupt',
    ]);
    const run = await onlyRun(runs);
    expect(ofType(run.records, 'llm.response')[0]).toMatchObject({
      output: { stop_reason: 'aborted', messages: [] },
      meta: { partial: true },
    });
    expect(recordTypes(run.records).at(-1)).toBe('run.end:cancelled');
  });

  it('a retried provider error is one step in the session and an llm_error event in the run', async () => {
    const { session, runs, middleware } = setup();
    let calls = 0;
    const model = new version.test.MockLanguageModelV3({
      doGenerate: async () => {
        calls += 1;
        if (calls === 1) {
          throw new version.ai.APICallError({
            message: 'overloaded',
            url: 'https://example.invalid',
            requestBodyValues: {},
            statusCode: 503,
            isRetryable: true,
          });
        }
        return answers('Back.') as never;
      },
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      messages: await sessionMessages(session, { input: 'Are you there?' }),
      maxRetries: 1,
    });
    expect(summarize(session.log.read({ fromId: 0 }))).toEqual([
      'user:message:user',
      'model:message:assistant',
      'runtime:meta:turn.usage',
    ]);
    const run = await onlyRun(runs);
    expect(recordTypes(run.records)).toEqual([
      'header',
      'run.start',
      'run.status:running',
      'llm.request',
      'agent.event',
      'llm.request',
      'llm.response',
      'run.status:completed',
      'run.end:completed',
    ]);
    expect(ofType(run.records, 'agent.event')[0]).toMatchObject({
      event: { type: 'llm_error', invocation: 1, error: { message: 'overloaded' } },
    });
    expect(session.invokeSeq).toBe(2);
  });

  it('a call that fails for good ends its run with run.error and keeps the input out of the session', async () => {
    const { session, runs, middleware } = setup();
    const model = new version.test.MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('provider down');
      },
    });
    await expect(
      generateText({
        model: wrapLanguageModel({ model, middleware }),
        messages: await sessionMessages(session, { input: 'Hello?' }),
        maxRetries: 0,
      }),
    ).rejects.toThrow('provider down');
    await middleware.close();
    expect(session.log.size).toBe(0);
    const run = await onlyRun(runs);
    expect(recordTypes(run.records).slice(-3)).toEqual([
      'run.error',
      'run.status:error',
      'run.end:error',
    ]);
  });

  it('fails the call when the run store fails, and records nothing half-way in the session', async () => {
    const { session, runs } = newConversation();
    const failing = {
      ...runs,
      append: async () => {
        throw new EpisodicError({ code: 'STORAGE_ERROR', message: 'disk full' });
      },
    };
    const middleware = episodicMiddleware({ session, runs: failing });
    const { model } = scriptedModel(version, [answers('never recorded')]);
    await expect(
      generateText({
        model: wrapLanguageModel({ model, middleware }),
        messages: await sessionMessages(session, { input: 'Hi' }),
      }),
    ).rejects.toThrow('disk full');
    expect(session.log.size).toBe(0);
  });

  it('refuses a second call while one is running on the same middleware', async () => {
    const { session, middleware } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = new version.test.MockLanguageModelV3({
      doGenerate: async () => {
        await gate;
        return answers('done') as never;
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const first = generateText({
      model: wrapped,
      messages: await sessionMessages(session, { input: 'one' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = generateText({ model: wrapped, prompt: 'two', maxRetries: 0 });
    await expect(second).rejects.toMatchObject({ code: 'CONFLICT' });
    release();
    await first;
    expect(session.log.size).toBe(3);
  });

  it('records without a run store: episodes only', async () => {
    const { session } = newConversation();
    const middleware = episodicMiddleware({ session });
    const { model } = scriptedModel(version, [answers('ok')]);
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      messages: await sessionMessages(session, { input: 'Hi' }),
    });
    expect(session.log.size).toBe(3);
  });
});

describe('episodicMiddleware with AI SDK 7 callbacks', () => {
  it('takes onFinish as onEnd (its AI SDK 7 name)', async () => {
    const version = AI_VERSIONS[0];
    const { session, runs } = newConversation();
    const middleware = episodicMiddleware({ session, runs });
    const { model } = scriptedModel(version, [callsTool('call_1', 'add', { a: 1, b: 1 })]);
    await version.ai.generateText({
      model: version.ai.wrapLanguageModel({ model, middleware }),
      messages: await sessionMessages(session, { input: '1 + 1?' }),
      tools: {
        add: version.ai.tool({
          inputSchema: version.ai.jsonSchema<{ a: number; b: number }>({ type: 'object' }),
          execute: async ({ a, b }) => a + b,
        }),
      },
      onEnd: middleware.onFinish,
    });
    expect(summarize(session.log.read({ fromId: 0 })).at(-1)).toBe(
      'tool:function_call_output:call_1',
    );
    expect(middleware.runId).toBeNull();
    const run = await onlyRun(runs);
    expect(run.ended).toBe(true);
  });
});

describe('episodicMiddleware options', () => {
  it('rejects bad options, naming the field and the fix', () => {
    const { session } = newConversation();
    expect(() => episodicMiddleware({} as never)).toThrow(/session.*Episodic session/);
    expect(() => episodicMiddleware({ session, runs: {} as never })).toThrow(/runs.*RunStore/);
    expect(() => episodicMiddleware({ session, now: 'today' as never })).toThrow(/now.*function/);
    expect(() => episodicMiddleware({ session, colour: 'red' } as never)).toThrow(/colour/);
    try {
      episodicMiddleware({ session, runtime: { cwd: 42 } as never });
      expect.unreachable();
    } catch (error) {
      expect(EpisodicError.isInstance(error) && error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('episodicMiddleware on a home on disk', () => {
  it('writes run files and a session snapshot that read back', async () => {
    const root = mkdtempSync(join(tmpdir(), 'episodic-ai-sdk-'));
    try {
      const store = createFsStore({ root, durability: 'always' });
      const session = createSession({ store: store.sessions });
      const middleware = episodicMiddleware({ session, runs: store.runs });
      const version = AI_VERSIONS[0];
      const { model } = scriptedModel(version, [
        callsTool('call_1', 'add', { a: 1, b: 1 }),
        answers('2'),
      ]);
      await version.ai.generateText({
        model: version.ai.wrapLanguageModel({ model, middleware }),
        messages: await sessionMessages(session, { input: '1 + 1?' }),
        tools: {
          add: version.ai.tool({
            inputSchema: version.ai.jsonSchema<{ a: number; b: number }>({ type: 'object' }),
            execute: async ({ a, b }) => a + b,
          }),
        },
        stopWhen: version.ai.stepCountIs(3),
        onFinish: middleware.onFinish,
      });
      await store.close();

      const reopened = createFsStore({ root });
      const { runs } = await reopened.runs.list({ sessionId: session.id });
      const run = await reopened.runs.read(runs[0]?.runId as string);
      expect(run).toMatchObject({ ended: true, errors: [], bestEffort: false });
      expect(await reopened.readToolOutput('call_1')).toBe('2');
      const loaded = await loadSession(reopened.sessions, session.id);
      expect(summarize(loaded.log.read({ fromId: 0 }))).toEqual(
        summarize(session.log.read({ fromId: 0 })),
      );
      expect(loaded.invokeSeq).toBe(2);
      expect((await reopened.sessions.load(session.id))?.run_id).toBe(run.runId);
      await reopened.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
