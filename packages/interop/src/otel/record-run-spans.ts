import { type BaseMessage, EpisodicError, type RunRecord } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import * as z from 'zod';
import { toGenAiMessages } from './genai-messages.js';

/** Episodic's own span attributes (the GenAI conventions have no name for these). */
export const EPISODIC_SPAN_ATTRIBUTES = {
  runId: 'episodic.run.id',
  outcome: 'episodic.run.outcome',
  seq: 'episodic.llm.seq',
} as const;

/** Options of `recordRunSpans`. */
export interface RunSpanOptions {
  /** The tracer the spans are started on: get it from your OpenTelemetry SDK's tracer provider. */
  tracer: Tracer;
  /**
   * Record message content: model inputs and outputs (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.system_instructions`) and tool arguments and results.
   * Content may hold personal data and secrets, so it is left out unless asked for.
   * @default false
   */
  includeContent?: boolean;
  /** `gen_ai.agent.name` of the `invoke_agent` spans. @default the run header's `server.name`, else `episodic` */
  agentName?: string;
}

/** What `recordRunSpans` recorded. */
export interface RunSpanSummary {
  /** Runs turned into span trees. */
  runs: number;
  /** Spans started and ended, by operation. */
  spans: { invoke_agent: number; chat: number; execute_tool: number };
  /** Runs left out, with why (a run needs a header). */
  skipped: Array<{ index: number; reason: string }>;
}

const optionsSchema = z.strictObject({
  tracer: z.custom<Tracer>(
    (value) => typeof (value as Tracer)?.startSpan === 'function',
    'must be an OpenTelemetry Tracer (tracerProvider.getTracer(name))',
  ),
  includeContent: z.boolean().optional(),
  agentName: z.string().min(1).optional(),
});

const runsSchema = z.array(z.array(z.looseObject({ type: z.string() })));

type Fields = Record<string, unknown>;

function timeOf(value: unknown, fallback: Date): Date {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? new Date(ms) : fallback;
}

/** `time`, or `start` when `time` is earlier (a span never ends before it starts). */
function notBefore(time: Date, start: Date): Date {
  return time.getTime() < start.getTime() ? start : time;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function defined(attributes: Record<string, unknown>): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined) result[key] = value as never;
  return result;
}

function messagesOf(value: unknown): BaseMessage[] {
  return Array.isArray(value) ? (value as BaseMessage[]) : [];
}

interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: string;
  readonly start: Date;
}

/** Records one run's spans under its `invoke_agent` span. */
function recordRun(
  records: readonly RunRecord[],
  options: RunSpanOptions,
  summary: RunSpanSummary,
): void {
  const header = records[0] as Fields;
  const runId = String(header.run_id);
  const start = timeOf(header.started_at, new Date(0));
  const last = records.at(-1) as Fields;
  const end = records.find((record) => record.type === 'run.end') as Fields | undefined;
  const runEnd = timeOf(end?.ts ?? last.ts, start);
  const model = (header.model ?? {}) as Fields;
  const provider = stringOf(model.provider);
  const server = (header.server ?? {}) as Fields;
  const agentName = options.agentName ?? stringOf(server.name) ?? 'episodic';
  const sessionId = stringOf(header.session_id);
  const error = records.find((record) => record.type === 'run.error') as Fields | undefined;
  const runStart = records.find((record) => record.type === 'run.start') as Fields | undefined;
  const content = options.includeContent === true;
  const systemPrompt = stringOf((header.prompts as Fields | undefined)?.system);

  const agent = options.tracer.startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agentName}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: start,
      attributes: defined({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_AGENT_NAME]: agentName,
        [ATTR_GEN_AI_CONVERSATION_ID]: sessionId,
        [ATTR_GEN_AI_PROVIDER_NAME]: provider,
        [ATTR_GEN_AI_REQUEST_MODEL]: stringOf(model.name),
        [EPISODIC_SPAN_ATTRIBUTES.runId]: runId,
        [EPISODIC_SPAN_ATTRIBUTES.outcome]: stringOf(end?.outcome),
        [ATTR_GEN_AI_INPUT_MESSAGES]:
          content && runStart !== undefined
            ? JSON.stringify(
                toGenAiMessages([
                  { role: 'user', content: String((runStart.input as Fields)?.text ?? '') },
                ]),
              )
            : undefined,
        [ATTR_GEN_AI_OUTPUT_MESSAGES]:
          content && typeof end?.final === 'string'
            ? JSON.stringify(toGenAiMessages([{ role: 'assistant', content: end.final }]))
            : undefined,
        [ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]:
          content && systemPrompt !== undefined
            ? JSON.stringify([{ type: 'text', content: systemPrompt }])
            : undefined,
      }),
    },
    ROOT_CONTEXT,
  );
  summary.spans.invoke_agent++;
  const parent = trace.setSpan(ROOT_CONTEXT, agent);

  const requests = new Map<number, Fields>();
  for (const record of records) {
    if (record.type === 'llm.request')
      requests.set(Number((record as Fields).seq), record as Fields);
  }
  const open = new Map<string, ToolCall>();
  let previous = start;
  const endTool = (call: ToolCall, at: Date, output: Fields | undefined) => {
    const span: Span = options.tracer.startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${call.name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: call.start,
        attributes: defined({
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
          [ATTR_GEN_AI_TOOL_NAME]: call.name,
          [ATTR_GEN_AI_TOOL_CALL_ID]: call.id,
          [ATTR_GEN_AI_TOOL_TYPE]: 'function',
          [ATTR_GEN_AI_CONVERSATION_ID]: sessionId,
          [EPISODIC_SPAN_ATTRIBUTES.runId]: runId,
          [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: content ? call.args : undefined,
          [ATTR_GEN_AI_TOOL_CALL_RESULT]:
            content && output !== undefined ? String(output.result_raw ?? '') : undefined,
        }),
      },
      parent,
    );
    if (output?.is_error === true) {
      span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: `tool ${call.name} failed` });
    }
    span.end(notBefore(at, call.start));
    summary.spans.execute_tool++;
  };

  for (const record of records) {
    const fields = record as Fields;
    const at = timeOf(fields.ts, previous);
    if (record.type === 'llm.response') {
      const seq = Number(fields.seq);
      const request = requests.get(seq);
      const callStart = request === undefined ? previous : timeOf(request.ts, previous);
      const output = (fields.output ?? {}) as Fields;
      const usage = (output.usage ?? {}) as Fields;
      const responseModel = (fields.model ?? {}) as Fields;
      const requestInput = (request?.input ?? {}) as Fields;
      const requestModel =
        stringOf(requestInput.model) ??
        stringOf(((request?.model ?? {}) as Fields).name) ??
        stringOf(responseModel.name) ??
        stringOf(model.name);
      const finish = stringOf(output.stop_reason);
      const span = options.tracer.startSpan(
        `${GEN_AI_OPERATION_NAME_VALUE_CHAT}${requestModel === undefined ? '' : ` ${requestModel}`}`,
        {
          kind: SpanKind.CLIENT,
          startTime: callStart,
          attributes: defined({
            [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
            [ATTR_GEN_AI_PROVIDER_NAME]: stringOf(responseModel.provider) ?? provider,
            [ATTR_GEN_AI_REQUEST_MODEL]: requestModel,
            [ATTR_GEN_AI_RESPONSE_MODEL]: stringOf(usage.model) ?? stringOf(responseModel.name),
            [ATTR_GEN_AI_CONVERSATION_ID]: sessionId,
            [ATTR_GEN_AI_USAGE_INPUT_TOKENS]:
              typeof usage.input_tokens === 'number' ? usage.input_tokens : undefined,
            [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]:
              typeof usage.output_tokens === 'number' ? usage.output_tokens : undefined,
            [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]:
              typeof usage.input_cached_tokens === 'number' ? usage.input_cached_tokens : undefined,
            [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: finish === undefined ? undefined : [finish],
            [EPISODIC_SPAN_ATTRIBUTES.runId]: runId,
            [EPISODIC_SPAN_ATTRIBUTES.seq]: Number.isFinite(seq) ? seq : undefined,
            [ATTR_GEN_AI_INPUT_MESSAGES]:
              content && request !== undefined
                ? JSON.stringify(toGenAiMessages(messagesOf(requestInput.messages)))
                : undefined,
            [ATTR_GEN_AI_OUTPUT_MESSAGES]: content
              ? JSON.stringify(toGenAiMessages(messagesOf(output.messages), finish))
              : undefined,
          }),
        },
        parent,
      );
      span.end(notBefore(at, callStart));
      summary.spans.chat++;
      for (const message of messagesOf(output.messages)) {
        for (const call of message.tool_calls ?? []) {
          if (!open.has(call.id))
            open.set(call.id, {
              id: call.id,
              name: call.function.name,
              args: call.function.arguments,
              start: at,
            });
        }
      }
    } else if (record.type === 'agent.event') {
      const event = (fields.event ?? {}) as Fields;
      const id = stringOf(event.tool_call_id);
      if (event.type === 'tool_call' && id !== undefined) {
        const known = open.get(id);
        open.set(id, {
          id,
          name: stringOf(event.tool) ?? known?.name ?? 'unknown',
          args: typeof event.args === 'string' ? event.args : (known?.args ?? ''),
          start: at,
        });
      }
    } else if (record.type === 'tool.output') {
      const id = String(fields.tool_call_id);
      const call = open.get(id) ?? { id, name: String(fields.tool), args: '', start: previous };
      open.delete(id);
      endTool({ ...call, name: stringOf(fields.tool) ?? call.name }, at, fields);
    }
    if (record.type !== 'header') previous = at;
  }
  // Calls that never got an output (an interrupted turn) end with the run.
  for (const call of open.values()) endTool(call, runEnd, undefined);

  if (error !== undefined || end?.outcome === 'error') {
    const detail = (error?.error ?? {}) as Fields;
    agent.setAttribute(ATTR_ERROR_TYPE, stringOf(detail.name) ?? 'run_error');
    agent.setStatus({
      code: SpanStatusCode.ERROR,
      message: stringOf(detail.message) ?? 'the run ended with an error',
    });
  }
  agent.end(notBefore(runEnd, start));
  summary.runs++;
}

/**
 * Records runs (each a list of seed 001 records, header first) as OpenTelemetry spans following
 * the GenAI semantic conventions: one `invoke_agent` span per run, and under it one `chat` span per
 * model call (`llm.response`, timed from its `llm.request`, else from the record before it) with the
 * model, token usage and finish reason, and one `execute_tool` span per tool call (from the call to
 * its `tool.output`) with the tool name and call id. Times come from the records. Message content is recorded only with
 * `includeContent`. The spans go to `options.tracer`; export them with any OpenTelemetry exporter.
 */
export function recordRunSpans(
  runs: ReadonlyArray<readonly RunRecord[]>,
  options: RunSpanOptions,
): RunSpanSummary {
  parseInput(runsSchema, runs, 'recordRunSpans runs (a list of runs, each a list of run records)');
  const checked = parseInput(optionsSchema, options, 'recordRunSpans options');
  const summary: RunSpanSummary = {
    runs: 0,
    spans: { invoke_agent: 0, chat: 0, execute_tool: 0 },
    skipped: [],
  };
  runs.forEach((records, index) => {
    if (records[0]?.type !== 'header') {
      summary.skipped.push({ index, reason: 'the run does not start with its header record' });
      return;
    }
    try {
      recordRun(records, { ...checked, tracer: options.tracer }, summary);
    } catch (error) {
      throw new EpisodicError({
        code: 'INTERNAL_ERROR',
        message: `Could not record the spans of run ${String((records[0] as Fields).run_id)}: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  });
  return summary;
}
