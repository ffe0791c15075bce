import { createMemoryRunStore, createRunRecorder, type RunRecord } from '@episodic/core';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../__fixtures__/read-fixture.js';
import { importClaudeCode } from '../import-transcript.js';
import { recordRunSpans } from './record-run-spans.js';

// The spans are recorded through the OpenTelemetry API into the official SDK, and read back from
// its in-memory exporter: the tree (parents), kinds, times and GenAI attributes are what a
// collector receives.

function sdk() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return {
    tracer: provider.getTracer('episodic-test'),
    /** The finished spans, once the processor has handed them to the exporter. */
    spans: async () => {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
  };
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

async function recordedRun(): Promise<RunRecord[]> {
  const runs = createMemoryRunStore();
  let clock = Date.parse('2026-02-01T10:00:00.000Z');
  const recorder = createRunRecorder({
    store: runs,
    now: () => {
      clock += 250;
      return new Date(clock);
    },
    header: { model: { provider: 'openai', name: 'gpt-4.1' }, prompts: { system: 'Be brief.' } },
  });
  await recorder.start('What is in the invoice?');
  const seq = await recorder.llmRequest({
    messages: [{ role: 'user', content: 'What is in the invoice?' }],
    model: 'gpt-4.1',
  });
  await recorder.llmResponse({
    seq,
    messages: [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"invoice.csv"}' },
          },
        ],
      },
    ],
    usage: {
      model: 'gpt-4.1-2025-04-14',
      input_tokens: 120,
      output_tokens: 12,
      total_tokens: 132,
      input_cached_tokens: 64,
    },
    stopReason: 'tool_calls',
  });
  await recorder.agentEvent({
    type: 'tool_call',
    tool: 'read_file',
    args: '{"path":"invoice.csv"}',
    tool_call_id: 'call_1',
  });
  await recorder.toolOutput({
    tool: 'read_file',
    toolCallId: 'call_1',
    resultRaw: 'item,qty\nWidget,4\n',
  });
  const second = await recorder.llmRequest({
    messages: [{ role: 'user', content: 'What is in the invoice?' }],
  });
  await recorder.llmResponse({
    seq: second,
    messages: [{ role: 'assistant', content: 'Four widgets.' }],
    stopReason: 'stop',
  });
  await recorder.complete({ final: 'Four widgets.' });
  return (await runs.read(recorder.runId)).records;
}

describe('recordRunSpans', () => {
  it('records invoke_agent → chat and execute_tool spans with GenAI attributes, without content by default', async () => {
    const records = await recordedRun();
    const { spans: finished, tracer } = sdk();
    const summary = recordRunSpans([records], { tracer });
    expect(summary).toEqual({
      runs: 1,
      spans: { invoke_agent: 1, chat: 2, execute_tool: 1 },
      skipped: [],
    });
    const spans = await finished();
    const agent = spans.find((span) => span.name === 'invoke_agent episodic') as ReadableSpan;
    expect(agent.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(agent)).toBeUndefined();
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'episodic',
      'gen_ai.conversation.id': (records[0] as { session_id: string }).session_id,
      'gen_ai.provider.name': 'openai',
      'episodic.run.id': (records[0] as { run_id: string }).run_id,
      'episodic.run.outcome': 'completed',
    });
    const chats = spans.filter((span) => span.name === 'chat gpt-4.1');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(chat)).toBe(agent.spanContext().spanId);
      expect(chat.spanContext().traceId).toBe(agent.spanContext().traceId);
    }
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.response.model': 'gpt-4.1-2025-04-14',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.usage.cache_read.input_tokens': 64,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const tool = spans.find((span) => span.name === 'execute_tool read_file') as ReadableSpan;
    expect(parentOf(tool)).toBe(agent.spanContext().spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
    });
    for (const span of spans) {
      expect(
        Object.keys(span.attributes).filter((key) =>
          /messages|arguments|result|instructions/.test(key),
        ),
      ).toEqual([]);
    }
    // Times come from the records: the chat span runs from its llm.request to its llm.response.
    const request = records.find((record) => record.type === 'llm.request') as { ts: string };
    expect(chats[0]?.startTime).toEqual([Date.parse(request.ts) / 1000, 0]);
    expect(agent.endTime[0] * 1000 + agent.endTime[1] / 1e6).toBeGreaterThanOrEqual(
      Date.parse(request.ts),
    );
  });

  it('records message content, tool arguments and results only when asked', async () => {
    const records = await recordedRun();
    const { spans: finished, tracer } = sdk();
    recordRunSpans([records], { tracer, includeContent: true });
    const spans = await finished();
    const chat = spans.find((span) => span.name.startsWith('chat')) as ReadableSpan;
    expect(JSON.parse(String(chat.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is in the invoice?' }] },
    ]);
    expect(JSON.parse(String(chat.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call_1',
            name: 'read_file',
            arguments: { path: 'invoice.csv' },
          },
        ],
        finish_reason: 'tool_calls',
      },
    ]);
    const tool = spans.find((span) => span.name.startsWith('execute_tool')) as ReadableSpan;
    expect(tool.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"path":"invoice.csv"}',
      'gen_ai.tool.call.result': 'item,qty\nWidget,4\n',
    });
    const agent = spans.find((span) => span.name.startsWith('invoke_agent')) as ReadableSpan;
    expect(JSON.parse(String(agent.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'Be brief.' },
    ]);
  });

  it('marks failed tools and runs as errors, and ends unanswered calls with the run', async () => {
    const [conversation] = importClaudeCode(readFixture('claude-code/session.jsonl')).conversations;
    const runs = conversation?.runs.map((run) => [...run.records]) ?? [];
    const { spans: finished, tracer } = sdk();
    const summary = recordRunSpans(runs, { tracer, agentName: 'claude-code' });
    expect(summary.runs).toBe(3);
    const failed = (await finished()).find(
      (span) => span.attributes['gen_ai.tool.call.id'] === 'toolu_01A6',
    );
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool Edit failed' });
    expect(failed?.attributes['error.type']).toBe('tool_error');

    const broken: RunRecord[] = [
      { type: 'header', schema_version: 1, run_id: 'r1', started_at: '2026-01-01T00:00:00Z' },
      {
        type: 'agent.event',
        run_id: 'r1',
        ts: '2026-01-01T00:00:01Z',
        seq: 0,
        event: { type: 'tool_call', tool: 'search', args: '{}', tool_call_id: 'c9' },
      },
      {
        type: 'run.error',
        run_id: 'r1',
        ts: '2026-01-01T00:00:02Z',
        error: { name: 'ProviderError', message: 'HTTP 503' },
      },
      { type: 'run.end', run_id: 'r1', ts: '2026-01-01T00:00:03Z', outcome: 'error' },
    ];
    const second = sdk();
    recordRunSpans([broken, [{ type: 'run.start' } as RunRecord]], { tracer: second.tracer });
    const spans = await second.spans();
    const agent = spans.find((span) => span.name.startsWith('invoke_agent'));
    expect(agent?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
    expect(agent?.attributes['error.type']).toBe('ProviderError');
    const dangling = spans.find((span) => span.name === 'execute_tool search');
    expect(dangling?.endTime).toEqual([Date.parse('2026-01-01T00:00:03Z') / 1000, 0]);
    expect(dangling?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('skips runs without a header and validates its arguments', () => {
    const { tracer } = sdk();
    expect(recordRunSpans([[{ type: 'run.start' } as RunRecord]], { tracer }).skipped).toEqual([
      { index: 0, reason: 'the run does not start with its header record' },
    ]);
    expect(() => recordRunSpans([], { tracer: {} as never })).toThrow(
      /must be an OpenTelemetry Tracer/,
    );
    expect(() => recordRunSpans('runs' as never, { tracer })).toThrow(/recordRunSpans runs/);
  });
});
