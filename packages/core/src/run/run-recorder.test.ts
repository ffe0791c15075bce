import { describe, expect, it } from 'vitest';
import { rejection } from '../__fixtures__/episodic-errors.js';
import type { RunRecord } from '../schema/run-record.js';
import type { SessionState } from '../schema/session-state.js';
import { createMemoryRunStore, createMemoryRunStoreAdapter } from '../store/memory-run-store.js';
import { createRunStore, type RunStore } from '../store/run-store.js';
import { VERSION } from '../version.js';
import { createRunRecorder } from './run-recorder.js';

const RUN_ID = '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a';
const SESSION_ID = 'f6d2c6d5-4a12-4cc4-bbc9-9a0c0d2b5af1';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function clock(start = Date.parse('2026-02-03T12:00:00.000Z')) {
  let tick = 0;
  return () => new Date(start + 100 * tick++);
}

function at<T>(items: readonly T[], index: number): T {
  const item = items.at(index);
  if (item === undefined) throw new Error(`no item at ${index}`);
  return item;
}

async function recordsOf(store: RunStore, runId = RUN_ID): Promise<RunRecord[]> {
  return (await store.read(runId)).records;
}

function withToolOutputCache(): RunStore {
  const adapter = createMemoryRunStoreAdapter();
  return createRunStore({
    ...adapter,
    capabilities: { ...adapter.capabilities, toolOutputCache: true },
  });
}

describe('createRunRecorder', () => {
  it('records the seed 001 example run in the documented order with the documented counters', async () => {
    const store = withToolOutputCache();
    const recorder = createRunRecorder({
      store,
      runId: RUN_ID,
      sessionId: SESSION_ID,
      now: clock(),
      header: {
        client: { name: 'tui', version: '0.1.0' },
        model: { provider: 'openai', name: 'gpt-4.1-mini', reasoning: 'medium' },
        prompts: { system: 'You are a coding assistant.' },
      },
      runtime: { cwd: '/home/user/project', os: 'linux' },
    });
    expect(recorder.state).toBe('new');
    const { header } = await recorder.start('list files', {
      uiContext: { cwd: '/home/user/project' },
    });
    expect(header).toMatchObject({
      type: 'header',
      schema_version: 1,
      run_id: RUN_ID,
      session_id: SESSION_ID,
    });
    const seq = await recorder.llmRequest({
      messages: [
        { role: 'system', content: 'You are a coding assistant.' },
        { role: 'user', content: 'list files' },
      ],
      tools: [{ type: 'function', function: { name: 'exec_command' } }],
      toolChoice: null,
      model: 'gpt-4.1-mini',
    });
    expect(seq).toBe(1);
    await recorder.llmResponse({
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'exec_command', arguments: '{"cmd":"ls"}' },
            },
          ],
        },
      ],
      usage: { model: 'gpt-4.1-mini', input_tokens: 120, output_tokens: 15, total_tokens: 135 },
      stopReason: 'tool_use',
    });
    expect(
      await recorder.agentEvent({
        type: 'tool_call',
        tool: 'exec_command',
        tool_call_id: 'call_1',
      }),
    ).toBe(0);
    await recorder.toolOutput({
      tool: 'exec_command',
      toolCallId: 'call_1',
      resultRaw: 'AGENTS.md\nRULES.md\npackages\n',
    });
    expect(await recorder.agentEvent({ type: 'final', content: 'Here are the files.' })).toBe(1);
    await recorder.complete({ final: 'Here are the files.' });
    expect(recorder.state).toBe('ended');

    const records = await recordsOf(store);
    expect(records.map((record) => record.type)).toEqual([
      'header',
      'run.start',
      'run.status',
      'llm.request',
      'llm.response',
      'agent.event',
      'tool.output',
      'agent.event',
      'run.status',
      'run.end',
    ]);
    expect(records[0]).toMatchObject({
      started_at: '2026-02-03T12:00:00.000Z',
      client: { name: 'tui', version: '0.1.0' },
      runtime: { cwd: '/home/user/project', os: 'linux' },
    });
    expect(records[1]).toMatchObject({
      input: { type: 'text', text: 'list files' },
      ui_context: { cwd: '/home/user/project' },
      session_id: SESSION_ID,
    });
    expect(records[2]).toMatchObject({ status: 'running' });
    expect(records[3]).toMatchObject({
      seq: 1,
      input: { tool_choice: null, model: 'gpt-4.1-mini' },
    });
    expect(records[4]).toMatchObject({ seq: 1, output: { stop_reason: 'tool_use' } });
    expect(records[6]).toMatchObject({
      tool_call_id: 'call_1',
      output_ref: { id: 'call_1', byte_size: 28, line_count: 3 },
    });
    expect(records.slice(-2)).toMatchObject([
      { type: 'run.status', status: 'completed' },
      { type: 'run.end', outcome: 'completed', final: 'Here are the files.' },
    ]);
    // Timestamps come from the injected clock, in call order.
    const stamps = records.map((record) => record.ts ?? record.started_at) as string[];
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('generates UUIDv4 run and session ids by default and validates injected ones', async () => {
    const recorder = createRunRecorder({ store: createMemoryRunStore() });
    expect(recorder.runId).toMatch(UUID_V4);
    expect(recorder.sessionId).toMatch(UUID_V4);
    expect(recorder.runId).not.toBe(recorder.sessionId);
    const ids = ['0f0e0d0c-0b0a-4908-8706-000000000001', '0f0e0d0c-0b0a-4908-8706-000000000002'];
    const injected = createRunRecorder({
      store: createMemoryRunStore(),
      generateId: () => ids.shift() as string,
    });
    expect([injected.runId, injected.sessionId]).toEqual([
      '0f0e0d0c-0b0a-4908-8706-000000000001',
      '0f0e0d0c-0b0a-4908-8706-000000000002',
    ]);
    expect(() =>
      createRunRecorder({ store: createMemoryRunStore(), generateId: () => 'run-1' }),
    ).toThrow(/generateId/);
    expect(() => createRunRecorder({ store: createMemoryRunStore(), runId: '../x' })).toThrow(
      /runId/,
    );
    expect(() => createRunRecorder({ store: {} as RunStore })).toThrow(/store/);
  });

  it('omits output_ref unless the store caches tool outputs (or outputRefs says so)', async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({ store, runId: RUN_ID, now: clock() });
    await recorder.start('go');
    expect(
      await recorder.toolOutput({ tool: 't', toolCallId: 'call/1', resultRaw: 'é', isError: true }),
    ).toBeUndefined();
    const forced = createRunRecorder({ store, now: clock(), outputRefs: true });
    await forced.start('go');
    // It resolves to the output_ref it wrote, for the session's tool message.
    expect(await forced.toolOutput({ tool: 't', toolCallId: 'call/1', resultRaw: 'é' })).toEqual({
      id: 'call_1',
      byte_size: 2,
      line_count: 1,
    });
    const [plain] = (await recordsOf(store)).filter((record) => record.type === 'tool.output');
    expect(plain).not.toHaveProperty('output_ref');
    expect(plain).toMatchObject({ is_error: true });
    const [withRef] = (await recordsOf(store, forced.runId)).filter(
      (record) => record.type === 'tool.output',
    );
    expect(withRef?.output_ref).toEqual({ id: 'call_1', byte_size: 2, line_count: 1 });
  });

  it('continues invocation numbers from the snapshot and pairs each response with its request', async () => {
    const store = createMemoryRunStore();
    const snapshot: SessionState = {
      schema_version: 1,
      session_id: SESSION_ID,
      updated_at: '2026-02-03T11:00:00.000Z',
      invoke_seq: 7,
      messages: [{ role: 'user', content: 'earlier' }],
    };
    const recorder = createRunRecorder({
      store,
      runId: RUN_ID,
      resumeFrom: snapshot,
      now: clock(),
    });
    expect(recorder.sessionId).toBe(SESSION_ID);
    await recorder.start('again');
    expect(recorder.invokeSeq).toBe(7);
    const first = await recorder.llmRequest({ messages: [{ role: 'user', content: 'a' }] });
    const second = await recorder.llmRequest({ messages: [{ role: 'user', content: 'b' }] });
    expect([first, second]).toEqual([8, 9]);
    expect(await recorder.llmResponse({ messages: [], seq: 8 })).toBe(8);
    expect(await recorder.llmResponse({ messages: [{ role: 'assistant', content: 'b' }] })).toBe(9);
    expect((await rejection(recorder.llmResponse({ messages: [], seq: 9 }))).code).toBe('CONFLICT');
    expect((await rejection(recorder.llmResponse({ messages: [] }))).code).toBe('VALIDATION_ERROR');
    expect((await rejection(recorder.llmResponse({ messages: [], seq: 3 }))).code).toBe(
      'VALIDATION_ERROR',
    );
    const llm = (await recordsOf(store)).filter((record) => record.type.startsWith('llm.'));
    expect(llm.map((record) => `${record.type}:${record.seq}`)).toEqual([
      'llm.request:8',
      'llm.request:9',
      'llm.response:8',
      'llm.response:9',
    ]);
    expect(() =>
      createRunRecorder({
        store,
        resumeFrom: snapshot,
        sessionId: '0f0e0d0c-0b0a-4908-8706-000000000009',
      }),
    ).toThrow(/resumeFrom.session_id/);
  });

  it('writes run.context only when the value changes', async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({ store, runId: RUN_ID, now: clock() });
    await recorder.start('go');
    expect(await recorder.context(80)).toBe(true);
    expect(await recorder.context(80)).toBe(false);
    expect(await recorder.context(55.5)).toBe(true);
    expect(await recorder.context(80)).toBe(true);
    expect((await rejection(recorder.context(101))).code).toBe('VALIDATION_ERROR');
    const contexts = (await recordsOf(store)).filter((record) => record.type === 'run.context');
    expect(contexts.map((record) => record.context_left_percent)).toEqual([80, 55.5, 80]);
  });

  it('writes the cancelled and error terminal sequences', async () => {
    const store = createMemoryRunStore();
    const cancelled = createRunRecorder({ store, now: clock() });
    await cancelled.start('go');
    await cancelled.status('awaiting_ui', 'waiting for approval');
    await cancelled.cancel({ message: 'user pressed Esc' });
    expect((await recordsOf(store, cancelled.runId)).slice(-3)).toMatchObject([
      { type: 'run.status', status: 'awaiting_ui', message: 'waiting for approval' },
      { type: 'run.status', status: 'cancelled', message: 'user pressed Esc' },
      { type: 'run.end', outcome: 'cancelled' },
    ]);

    const failed = createRunRecorder({ store, now: clock() });
    await failed.start('go');
    await failed.fail(new TypeError('model endpoint refused'));
    const tail = (await recordsOf(store, failed.runId)).slice(-3);
    expect(tail).toMatchObject([
      { type: 'run.error', error: { name: 'TypeError', message: 'model endpoint refused' } },
      { type: 'run.status', status: 'error', message: 'model endpoint refused' },
      { type: 'run.end', outcome: 'error' },
    ]);
    expect(typeof (at(tail, 0).error as { stack?: unknown }).stack).toBe('string');
    expect((await store.read(failed.runId)).ended).toBe(true);

    const thrownString = createRunRecorder({ store, now: clock() });
    await thrownString.start('go');
    await thrownString.fail('plain string');
    expect((await recordsOf(store, thrownString.runId)).at(-3)).toMatchObject({
      error: { name: 'Error', message: 'plain string' },
    });
  });

  it('refuses records before start, after the end, and terminal statuses through status()', async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({ store, now: clock() });
    expect((await rejection(recorder.agentEvent({ type: 'x' }))).code).toBe('CONFLICT');
    await recorder.start('go');
    expect((await rejection(recorder.start('again'))).code).toBe('CONFLICT');
    expect((await rejection(recorder.status('completed'))).code).toBe('VALIDATION_ERROR');
    expect((await rejection(recorder.agentEvent({ kind: 'no type' } as never))).code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await rejection(recorder.custom({ type: 'checkpoint' }))).code).toBe(
      'VALIDATION_ERROR',
    );
    await recorder.custom({ type: 'x.acme.checkpoint', label: 'a' });
    await recorder.complete();
    for (const call of [
      () => recorder.agentEvent({ type: 'late' }),
      () => recorder.complete(),
      () => recorder.fail(new Error('late')),
      () => recorder.llmRequest({ messages: [] }),
    ]) {
      expect((await rejection(call())).code).toBe('CONFLICT');
    }
    const records = await recordsOf(store, recorder.runId);
    expect(records.map((record) => record.type)).toEqual([
      'header',
      'run.start',
      'run.status',
      'x.acme.checkpoint',
      'run.status',
      'run.end',
    ]);
    expect(records[3]).toMatchObject({ label: 'a', run_id: recorder.runId });
  });

  it('keeps call order and seq order when calls are not awaited', async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({ store, now: clock() });
    void recorder.start('go');
    const pending = Array.from({ length: 25 }, (_, index) =>
      recorder.agentEvent({ type: 'delta', index }),
    );
    expect(await Promise.all(pending)).toEqual(Array.from({ length: 25 }, (_, index) => index));
    await recorder.complete();
    const events = (await recordsOf(store, recorder.runId)).filter(
      (record) => record.type === 'agent.event',
    );
    expect(events.map((record) => [record.seq, (record.event as { index: number }).index])).toEqual(
      Array.from({ length: 25 }, (_, index) => [index, index]),
    );
  });

  it('surfaces a store failure to the caller of the failed write, and later writes still go through', async () => {
    const adapter = createMemoryRunStoreAdapter();
    let failNext = false;
    const store = createRunStore({
      ...adapter,
      append(runId, entries) {
        if (failNext) {
          failNext = false;
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }
        return adapter.append(runId, entries);
      },
    });
    const recorder = createRunRecorder({ store, now: clock() });
    await recorder.start('go');
    failNext = true;
    const error = await rejection(recorder.agentEvent({ type: 'lost' }));
    expect(error.code).toBe('STORAGE_ERROR');
    expect(error.details.backendCode).toBe('ENOSPC');
    await recorder.agentEvent({ type: 'kept' });
    const events = (await recordsOf(store, recorder.runId)).filter(
      (record) => record.type === 'agent.event',
    );
    expect(events.map((record) => record.seq)).toEqual([1]);
  });

  it('retries a failed start with the same header (the store skips it as identical)', async () => {
    const adapter = createMemoryRunStoreAdapter();
    let failures = 1;
    const store = createRunStore({
      ...adapter,
      async append(runId, entries) {
        const written = adapter.append(runId, entries.slice(0, 1));
        if (failures-- > 0) throw new Error('EIO: i/o error');
        return (await written) + (await adapter.append(runId, entries.slice(1)));
      },
    });
    const recorder = createRunRecorder({ store, now: clock() });
    expect((await rejection(recorder.start('go'))).code).toBe('STORAGE_ERROR');
    expect(recorder.state).toBe('new');
    await recorder.start('go');
    const records = await recordsOf(store, recorder.runId);
    expect(records.map((record) => record.type)).toEqual(['header', 'run.start', 'run.status']);
  });
});

describe('the header names the Episodic that wrote the run', () => {
  it("defaults server to { name: 'episodic', version } with the build's package version", async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({ store, now: clock() });
    const { header } = await recorder.start('go');
    expect(header.server).toEqual({ name: 'episodic', version: VERSION });
    // vitest injects the package.json version the way tsup does at build time.
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(VERSION).not.toBe('0.0.0-dev');
    const [written] = await recordsOf(store, recorder.runId);
    expect(written).toMatchObject({
      type: 'header',
      server: { name: 'episodic', version: VERSION },
    });
  });

  it("keeps the caller's own server", async () => {
    const store = createMemoryRunStore();
    const server = { name: 'runtime', version: '0.1.0' };
    const recorder = createRunRecorder({ store, now: clock(), header: { server } });
    const { header } = await recorder.start('go');
    expect(header.server).toEqual(server);
  });
});

describe('resuming a session in another environment (seed 001 §6)', () => {
  const snapshot: SessionState = {
    schema_version: 1,
    session_id: SESSION_ID,
    updated_at: '2026-02-03T11:00:00.000Z',
    run_id: RUN_ID,
    invoke_seq: 2,
    messages: [
      { role: 'system', content: 'You are a coding assistant.' },
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: 'AGENTS.md' },
    ],
    meta: { runtime: { cwd: '/home/a/project', os: 'linux' } },
  };

  it('records the new runtime before the first llm.request and injects a system message into it', async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({
      store,
      resumeFrom: snapshot,
      runtime: { cwd: '/srv/b/project', os: 'linux' },
      now: clock(),
    });
    const { header, resume } = await recorder.start('continue');
    expect(header.runtime).toEqual({ cwd: '/srv/b/project', os: 'linux' });
    expect(header.meta?.resume).toMatchObject({
      from_run_id: RUN_ID,
      invoke_seq: 2,
      previous_runtime: { cwd: '/home/a/project', os: 'linux' },
      changes: [{ field: 'cwd', from: '/home/a/project', to: '/srv/b/project' }],
    });
    expect(resume?.systemMessage?.content).toContain('/home/a/project');
    expect(resume?.systemMessage?.content).toContain('/srv/b/project');
    expect(resume?.state.meta?.runtime).toEqual({ cwd: '/srv/b/project', os: 'linux' });

    // The caller forgot the notice: the recorder inserts it after the resumed history.
    await recorder.llmRequest({
      messages: [...snapshot.messages, { role: 'user', content: 'continue' }],
    });
    // Only the first request carries it.
    await recorder.llmRequest({ messages: [{ role: 'user', content: 'next' }] });
    const records = await recordsOf(store, recorder.runId);
    const requests = records.filter((record) => record.type === 'llm.request');
    const firstMessages = (
      at(requests, 0).input as { messages: Array<{ role: string; content: string }> }
    ).messages;
    expect(firstMessages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'system',
      'user',
    ]);
    expect(firstMessages[3]?.content).toBe(resume?.systemMessage?.content);
    expect((at(requests, 1).input as { messages: unknown[] }).messages).toHaveLength(1);
    expect(requests[0]?.seq).toBe(3);
    expect(records.findIndex((record) => record.type === 'header')).toBeLessThan(
      records.findIndex((record) => record.type === 'llm.request'),
    );
  });

  it('does not duplicate the notice when the caller already sends resume.messages', async () => {
    const store = createMemoryRunStore();
    const recorder = createRunRecorder({
      store,
      resumeFrom: snapshot,
      runtime: { cwd: '/elsewhere' },
      now: clock(),
    });
    const { resume } = await recorder.start('continue');
    await recorder.llmRequest({
      messages: [...(resume?.messages ?? []), { role: 'user', content: 'continue' }],
    });
    const requests = (await recordsOf(store, recorder.runId)).filter(
      (record) => record.type === 'llm.request',
    );
    const messages = (at(requests, 0).input as { messages: Array<{ role: string }> }).messages;
    expect(messages.filter((message) => message.role === 'system')).toHaveLength(2);
  });

  it('injects nothing when the environment is the same, or when asked not to', async () => {
    const store = createMemoryRunStore();
    const same = createRunRecorder({
      store,
      resumeFrom: snapshot,
      runtime: { cwd: '/home/a/project', os: 'linux' },
    });
    const { resume } = await same.start('continue');
    expect(resume?.changes).toEqual([]);
    expect(resume?.systemMessage).toBeNull();
    await same.llmRequest({ messages: [{ role: 'user', content: 'x' }] });

    const optOut = createRunRecorder({
      store,
      resumeFrom: snapshot,
      runtime: { cwd: '/other' },
      injectEnvironmentMessage: false,
    });
    await optOut.start('continue');
    await optOut.llmRequest({ messages: [{ role: 'user', content: 'x' }] });
    for (const runId of [same.runId, optOut.runId]) {
      const requests = (await recordsOf(store, runId)).filter(
        (record) => record.type === 'llm.request',
      );
      expect((at(requests, 0).input as { messages: unknown[] }).messages).toHaveLength(1);
    }
  });

  it("falls back to the last run's header when the snapshot does not record its environment", async () => {
    const store = createMemoryRunStore();
    const first = createRunRecorder({
      store,
      runId: RUN_ID,
      sessionId: SESSION_ID,
      runtime: { cwd: '/home/a/project' },
      now: clock(),
    });
    await first.start('list files');
    await first.complete();
    const { meta: _meta, ...older } = snapshot;
    const resumed = createRunRecorder({
      store,
      resumeFrom: older,
      runtime: { cwd: '/mnt/c' },
      now: clock(),
    });
    const { resume } = await resumed.start('continue');
    expect(resume?.changes).toEqual([{ field: 'cwd', from: '/home/a/project', to: '/mnt/c' }]);
  });
});
