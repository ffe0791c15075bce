import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { type BaseMessage, baseMessageSchema } from '../schema/base-message.js';
import {
  type AgentEvent,
  agentEventSchema,
  CUSTOM_RUN_RECORD_TYPE_PATTERN,
  type LlmUsage,
  llmUsageSchema,
  RUN_RECORD_SCHEMA_VERSION,
  type RunHeader,
  type RunModelInfo,
  type RunRecord,
  type RunStatus,
  type RuntimeInfo,
  runModelInfoSchema,
  runtimeInfoSchema,
  type ToolOutputRef,
  toolOutputRefFor,
} from '../schema/run-record.js';
import { type SessionState, sessionStateSchema, uuidSchema } from '../schema/session-state.js';
import type { RunStore } from '../store/run-store.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { EPISODIC_SERVER_INFO } from '../version.js';
import { planResume, type ResumePlan, snapshotRuntime } from './resume.js';

/** Header fields a recorder copies into the run's `header` record (seed 001). */
export interface RunHeaderFields {
  /** The client that drives the run, e.g. `{ name: 'tui', version: '0.1.0' }`. */
  client?: { name: string; version: string };
  /**
   * The server or runtime that executes it.
   * @default { name: 'episodic', version: VERSION } (the Episodic that wrote the file)
   */
  server?: { name: string; version: string };
  /** The model the run uses. */
  model?: RunModelInfo;
  /** The system prompt. */
  prompts?: { system?: string };
  /** The tool definitions offered to the model. */
  tools?: { definitions?: unknown[]; source?: string };
  /** Forward-compatible extensions. */
  meta?: Record<string, unknown>;
}

/** Options of `createRunRecorder`. */
export interface RunRecorderOptions {
  /** Where the records go. */
  store: RunStore;
  /** The run id (a UUID). @default generateId() */
  runId?: string;
  /** The session the run belongs to (a UUID). @default resumeFrom.session_id, else generateId() */
  sessionId?: string;
  /** The clock stamping `started_at` and every `ts`. @default () => new Date() */
  now?: () => Date;
  /** Generates run and session ids. @default () => globalThis.crypto.randomUUID() (UUIDv4) */
  generateId?: () => string;
  /**
   * The session snapshot this run continues. Invocation numbers continue from its `invoke_seq`, and
   * when `runtime` differs from the environment it was saved in, the run resumes with a system
   * message describing the change (see `RunRecorder.resume`).
   */
  resumeFrom?: SessionState;
  /** The environment the run executes in; written to the header's `runtime`. */
  runtime?: RuntimeInfo;
  /** Extra header fields. */
  header?: RunHeaderFields;
  /**
   * Attach `output_ref` (cache id, byte size, line count) to `tool.output` records, so the store
   * keeps the output under that id. @default store.capabilities.toolOutputCache
   */
  outputRefs?: boolean;
  /**
   * On a resumed run whose environment changed, insert `resume.systemMessage` into the first
   * `llm.request` when the caller's messages do not already contain it, so the model always hears
   * about the change. @default true
   */
  injectEnvironmentMessage?: boolean;
}

/** The input that starts a run: text, or seed 001's `{ type: 'text', text }`. */
export type RunInput = string | { type: 'text'; text: string; [key: string]: unknown };

/** Options of `RunRecorder.start`. */
export interface RunStartOptions {
  /** A UI context snapshot stored in `run.start.ui_context`. */
  uiContext?: unknown;
  /** Forward-compatible extensions for the `run.start` record. */
  meta?: Record<string, unknown>;
}

/** What `start` wrote. */
export interface RunStartReceipt {
  /** The header as written. */
  header: RunHeader;
  /** The resume plan, or null when the run does not resume a snapshot. */
  resume: ResumePlan | null;
}

/** One model invocation's input, as `llm.request` records it. */
export interface LlmRequestInput {
  /** The messages sent, after any compaction or trimming. */
  messages: BaseMessage[];
  /** The tool definitions sent. */
  tools?: unknown[] | null;
  /** The tool choice sent. */
  toolChoice?: unknown;
  /** The model name sent. */
  model?: string;
  /** Which model served the invocation. */
  modelInfo?: RunModelInfo;
  /** Forward-compatible extensions for the record. */
  meta?: Record<string, unknown>;
}

/** One model invocation's output, as `llm.response` records it. */
export interface LlmResponseOutput {
  /** The invocation this answers. @default the latest invocation without a response */
  seq?: number;
  /** The messages the model produced. */
  messages: BaseMessage[];
  /** Token usage. */
  usage?: LlmUsage | null;
  /** Why the model stopped, e.g. `tool_use`. */
  stopReason?: string | null;
  /** Provider-specific data. */
  providerMeta?: unknown;
  /** Forward-compatible extensions for the record. */
  meta?: Record<string, unknown>;
}

/** The full output of one tool call, as `tool.output` records it. */
export interface ToolOutputInput {
  /** The tool's name. */
  tool: string;
  /** The call id that pairs the output with its call. */
  toolCallId: string;
  /** The full raw output. */
  resultRaw: string;
  /** True when the tool failed. */
  isError?: boolean;
  /** Forward-compatible extensions for the record. */
  meta?: Record<string, unknown>;
}

/** Where a recorder is in its run. */
export type RunRecorderState = 'new' | 'running' | 'ended';

/**
 * Records one run (seed 001): `start` writes `header`, `run.start` and `run.status: running`; then
 * agent events, model invocations, tool outputs and context levels; then one terminal sequence.
 * Writes are queued in call order; each method's promise settles when its records are stored and
 * rejects with the store's error (`STORAGE_ERROR`) if they were not.
 */
export interface RunRecorder {
  /** The run id. */
  readonly runId: string;
  /** The session id. */
  readonly sessionId: string;
  /** Where the recorder is. */
  readonly state: RunRecorderState;
  /** The last invocation number used (the snapshot's `invoke_seq` before the first request). */
  readonly invokeSeq: number;
  /** The next `agent.event` seq. */
  readonly nextEventSeq: number;
  /** The resume plan once started from a snapshot, else null. */
  readonly resume: ResumePlan | null;
  /** Writes `header`, `run.start` and `run.status: running`. */
  start(input: RunInput, options?: RunStartOptions): Promise<RunStartReceipt>;
  /**
   * Appends an `agent.event` (UI playback), numbered from 0; resolves to its seq. Other modules
   * call this structurally, e.g. `recorder.agentEvent({ type: 'compaction_start' })`.
   */
  agentEvent(event: AgentEvent, options?: { meta?: Record<string, unknown> }): Promise<number>;
  /** Appends an `llm.request`; resolves to its invocation number. */
  llmRequest(input: LlmRequestInput): Promise<number>;
  /** Appends the `llm.response` of an invocation; resolves to its seq. */
  llmResponse(output: LlmResponseOutput): Promise<number>;
  /**
   * Appends a `tool.output` with the full output; resolves to the `output_ref` it carries
   * (undefined without `outputRefs`). Return it with the output from a session's tool executor
   * (`{ output, outputRef }`) and the snapshot's tool message carries it too.
   */
  toolOutput(output: ToolOutputInput): Promise<ToolOutputRef | undefined>;
  /** Appends a `run.context` when the value differs from the last one written; resolves to whether it did. */
  context(contextLeftPercent: number): Promise<boolean>;
  /** Appends a non-terminal `run.status` (e.g. `awaiting_ui`, or `running` again). */
  status(status: RunStatus, message?: string): Promise<void>;
  /** Appends a custom `x.<org>.<name>` record (`run_id` and `ts` are filled in). */
  custom(record: { type: string; [key: string]: unknown }): Promise<void>;
  /** Ends the run: `run.status: completed`, `run.end: completed`. */
  complete(options?: { final?: string; meta?: Record<string, unknown> }): Promise<void>;
  /** Ends the run: `run.status: cancelled`, `run.end: cancelled`. */
  cancel(options?: { message?: string; final?: string }): Promise<void>;
  /** Ends the run: `run.error`, `run.status: error`, `run.end: error`. */
  fail(error: unknown, options?: { final?: string }): Promise<void>;
}

const functionSchema = <Value>() =>
  z.custom<Value>((value) => typeof value === 'function', 'must be a function');

const optionsSchema = z.strictObject({
  store: z.custom<RunStore>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { append?: unknown }).append === 'function',
    'must be a RunStore (see createRunStore)',
  ),
  runId: uuidSchema.optional(),
  sessionId: uuidSchema.optional(),
  now: functionSchema<() => Date>().optional(),
  generateId: functionSchema<() => string>().optional(),
  resumeFrom: sessionStateSchema.optional(),
  runtime: runtimeInfoSchema.optional(),
  header: z
    .strictObject({
      client: z.looseObject({ name: z.string(), version: z.string() }).optional(),
      server: z.looseObject({ name: z.string(), version: z.string() }).optional(),
      model: runModelInfoSchema.optional(),
      prompts: z.looseObject({ system: z.string().optional() }).optional(),
      tools: z
        .looseObject({
          definitions: z.array(z.unknown()).optional(),
          source: z.string().optional(),
        })
        .optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  outputRefs: z.boolean().optional(),
  injectEnvironmentMessage: z.boolean().optional(),
});

const metaSchema = z.record(z.string(), z.unknown()).optional();
const messagesSchema = lazyCompiled(z.array(baseMessageSchema));

const inputSchema = z.union([
  z.string(),
  z.looseObject({ type: z.literal('text'), text: z.string() }),
]);
const startOptionsSchema = z
  .strictObject({ uiContext: z.unknown().optional(), meta: metaSchema })
  .optional();
const eventOptionsSchema = z.strictObject({ meta: metaSchema }).optional();
const requestSchema = z.strictObject({
  messages: z.array(z.unknown()),
  tools: z.array(z.unknown()).nullable().optional(),
  toolChoice: z.unknown().optional(),
  model: z.string().optional(),
  modelInfo: runModelInfoSchema.optional(),
  meta: metaSchema,
});
const responseSchema = z.strictObject({
  seq: z.number().int().nonnegative().optional(),
  messages: z.array(z.unknown()),
  usage: llmUsageSchema.nullable().optional(),
  stopReason: z.string().nullable().optional(),
  providerMeta: z.unknown().optional(),
  meta: metaSchema,
});
const toolOutputSchema = z.strictObject({
  tool: z.string().min(1),
  toolCallId: z.string().min(1),
  resultRaw: z.string(),
  isError: z.boolean().optional(),
  meta: metaSchema,
});
const contextSchema = z.number().finite().min(0).max(100);
const statusSchema = z.string().min(1);
const customSchema = z.looseObject({
  type: z.string().regex(CUSTOM_RUN_RECORD_TYPE_PATTERN, 'must be namespaced as x.<org>.<name>'),
});
const completeSchema = z
  .strictObject({ final: z.string().optional(), meta: metaSchema })
  .optional();
const cancelSchema = z
  .strictObject({ message: z.string().optional(), final: z.string().optional() })
  .optional();
const failOptionsSchema = z.strictObject({ final: z.string().optional() }).optional();

const TERMINAL_STATUSES = new Set(['completed', 'cancelled', 'error']);

function defaultGenerateId(): string {
  return globalThis.crypto.randomUUID();
}

function stateError(runId: string, message: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId}: ${message}`,
    details: { runId },
  });
}

/** Creates a recorder for one run. Nothing is written until `start`. */
export function createRunRecorder(options: RunRecorderOptions): RunRecorder {
  const checked = parseInput(optionsSchema, options, 'run recorder options');
  const store = options.store;
  const now = checked.now ?? (() => new Date());
  const generateId = checked.generateId ?? defaultGenerateId;
  const newId = (field: string) => {
    const id = generateId();
    const parsed = uuidSchema.safeParse(id);
    if (!parsed.success) {
      throw invalidField(
        'run recorder options',
        'generateId',
        id,
        `must return a UUID (for ${field})`,
      );
    }
    return id.toLowerCase();
  };
  const runId = (checked.runId ?? newId('the run id')).toLowerCase();
  const sessionId = (
    checked.sessionId ??
    checked.resumeFrom?.session_id ??
    newId('the session id')
  ).toLowerCase();
  if (
    checked.resumeFrom !== undefined &&
    checked.resumeFrom.session_id.toLowerCase() !== sessionId
  ) {
    throw invalidField(
      'run recorder options',
      'sessionId',
      sessionId,
      `must match resumeFrom.session_id (${checked.resumeFrom.session_id}) or be left out`,
    );
  }
  const outputRefs = checked.outputRefs ?? store.capabilities?.toolOutputCache === true;
  const injectEnvironmentMessage = checked.injectEnvironmentMessage ?? true;

  let state: RunRecorderState = 'new';
  let invokeSeq = checked.resumeFrom?.invoke_seq ?? 0;
  let nextEventSeq = 0;
  let lastContext: number | undefined;
  let resume: ResumePlan | null = null;
  let environmentMessagePending = false;
  const awaitingResponse: number[] = [];
  const answered = new Set<number>();
  let queue: Promise<unknown> = Promise.resolve();

  const timestamp = (): string => {
    const date = now();
    if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
      throw invalidField('run recorder options', 'now', date, 'must return a valid Date');
    }
    return date.toISOString();
  };
  const write = (records: RunRecord[]): Promise<void> => {
    const next = queue.then(() => store.append(runId, records));
    queue = next.catch(() => undefined);
    return next.then(() => undefined);
  };
  const requireRunning = () => {
    if (state === 'new') throw stateError(runId, 'the run has not started; call start() first.');
    if (state === 'ended') {
      throw stateError(runId, 'the run has already ended; start a new run to record more.');
    }
  };
  const base = (type: string, meta?: Record<string, unknown>) => ({
    type,
    run_id: runId,
    ts: timestamp(),
    ...(meta === undefined ? {} : { meta }),
  });

  const previousRuntimeOf = async (snapshot: SessionState): Promise<RuntimeInfo | undefined> => {
    const recorded = snapshotRuntime(snapshot);
    if (recorded !== undefined || snapshot.run_id === undefined) return recorded;
    // Older snapshots do not record their environment: the last run's header does.
    const { runs } = await store.list({ sessionId: snapshot.session_id });
    const lastRunId = snapshot.run_id.toLowerCase();
    return runs.find((run) => run.runId === lastRunId)?.runtime;
  };

  let startedHeader: RunHeader | undefined;
  const startRecords = (
    uiContext: unknown,
    meta: Record<string, unknown> | undefined,
    input: z.output<typeof inputSchema>,
  ): RunRecord[] => [
    {
      ...base('run.start', meta),
      session_id: sessionId,
      input: typeof input === 'string' ? { type: 'text', text: input } : input,
      ...(uiContext === undefined ? {} : { ui_context: uiContext }),
    },
    { ...base('run.status'), status: 'running' },
  ];

  const end = (records: RunRecord[]) => {
    state = 'ended';
    return write(records);
  };

  return {
    runId,
    sessionId,
    get state() {
      return state;
    },
    get invokeSeq() {
      return invokeSeq;
    },
    get nextEventSeq() {
      return nextEventSeq;
    },
    get resume() {
      return resume;
    },

    async start(input, startOptions) {
      const text = parseInput(inputSchema, input, 'run input');
      const { uiContext, meta } =
        parseInput(startOptionsSchema, startOptions, 'start options') ?? {};
      if (state !== 'new') throw stateError(runId, 'the run has already started.');
      state = 'running';
      try {
        // A retried start reuses the header of the failed attempt: an identical header is skipped
        // by the store, a new timestamp would be a CONFLICT.
        if (startedHeader !== undefined) {
          await write([startedHeader, ...startRecords(uiContext, meta, text)]);
          return { header: startedHeader, resume };
        }
        if (checked.resumeFrom !== undefined) {
          const previousRuntime = await previousRuntimeOf(checked.resumeFrom);
          resume = planResume(checked.resumeFrom, {
            runtime: checked.runtime ?? previousRuntime ?? {},
            ...(previousRuntime === undefined ? {} : { previousRuntime }),
            now,
          });
          environmentMessagePending = resume.systemMessage !== null && injectEnvironmentMessage;
        }
        const startedAt = timestamp();
        const headerMeta = { ...checked.header?.meta };
        if (resume !== null) {
          headerMeta.resume = {
            ...(resume.fromRunId === undefined ? {} : { from_run_id: resume.fromRunId }),
            invoke_seq: resume.invokeSeq,
            ...(resume.previousRuntime === undefined
              ? {}
              : { previous_runtime: resume.previousRuntime }),
            changes: resume.changes,
          };
        }
        const { meta: _headerMeta, ...headerFields } = checked.header ?? {};
        const header: RunHeader = {
          type: 'header',
          schema_version: RUN_RECORD_SCHEMA_VERSION,
          run_id: runId,
          session_id: sessionId,
          started_at: startedAt,
          server: { ...EPISODIC_SERVER_INFO },
          ...headerFields,
          ...(resume !== null
            ? { runtime: resume.runtime }
            : checked.runtime === undefined
              ? {}
              : { runtime: checked.runtime }),
          ...(Object.keys(headerMeta).length === 0 ? {} : { meta: headerMeta }),
        };
        startedHeader = header;
        await write([header, ...startRecords(uiContext, meta, text)]);
        return { header, resume };
      } catch (error) {
        state = 'new';
        throw error;
      }
    },

    async agentEvent(event, eventOptions) {
      requireRunning();
      const checkedEvent = parseInput(agentEventSchema, event, 'agent event');
      const { meta } = parseInput(eventOptionsSchema, eventOptions, 'agent event options') ?? {};
      const seq = nextEventSeq++;
      return write([{ ...base('agent.event', meta), seq, event: checkedEvent }]).then(() => seq);
    },

    async llmRequest(request) {
      requireRunning();
      const checkedRequest = parseInput(requestSchema, request, 'llm request');
      let messages = parseInput(messagesSchema(), checkedRequest.messages, 'llm request messages');
      if (environmentMessagePending && resume?.systemMessage) {
        environmentMessagePending = false;
        const notice = resume.systemMessage;
        if (
          !messages.some(
            (message) => message.role === 'system' && message.content === notice.content,
          )
        ) {
          const at = Math.min(checkedRequest.messages.length, resume.messages.length - 1);
          messages = [...messages.slice(0, at), notice, ...messages.slice(at)];
        }
      }
      const seq = ++invokeSeq;
      awaitingResponse.push(seq);
      const input: Record<string, unknown> = { messages };
      if (checkedRequest.tools !== undefined) input.tools = checkedRequest.tools;
      if (checkedRequest.toolChoice !== undefined) input.tool_choice = checkedRequest.toolChoice;
      if (checkedRequest.model !== undefined) input.model = checkedRequest.model;
      const record: RunRecord = {
        ...base('llm.request', checkedRequest.meta),
        seq,
        ...(checkedRequest.modelInfo === undefined ? {} : { model: checkedRequest.modelInfo }),
        input,
      };
      return write([record]).then(() => seq);
    },

    async llmResponse(response) {
      requireRunning();
      const checkedResponse = parseInput(responseSchema, response, 'llm response');
      const messages = parseInput(
        messagesSchema(),
        checkedResponse.messages,
        'llm response messages',
      );
      const seq = checkedResponse.seq ?? awaitingResponse.at(-1);
      if (seq === undefined) {
        throw invalidField(
          'llm response',
          'seq',
          seq,
          'no llm.request is awaiting a response; record the request first',
        );
      }
      if (answered.has(seq)) {
        throw stateError(runId, `invocation ${seq} already has an llm.response.`);
      }
      const waiting = awaitingResponse.indexOf(seq);
      if (waiting === -1) {
        throw invalidField(
          'llm response',
          'seq',
          seq,
          `must be the seq of an llm.request of this run awaiting a response (${awaitingResponse.join(', ') || 'none'})`,
        );
      }
      awaitingResponse.splice(waiting, 1);
      answered.add(seq);
      const output: Record<string, unknown> = { messages };
      if (checkedResponse.usage !== undefined) output.usage = checkedResponse.usage;
      if (checkedResponse.stopReason !== undefined) output.stop_reason = checkedResponse.stopReason;
      if (checkedResponse.providerMeta !== undefined)
        output.provider_meta = checkedResponse.providerMeta;
      return write([{ ...base('llm.response', checkedResponse.meta), seq, output }]).then(
        () => seq,
      );
    },

    async toolOutput(output) {
      requireRunning();
      const checkedOutput = parseInput(toolOutputSchema, output, 'tool output');
      const outputRef = outputRefs
        ? toolOutputRefFor(checkedOutput.toolCallId, checkedOutput.resultRaw)
        : undefined;
      const record: RunRecord = {
        ...base('tool.output', checkedOutput.meta),
        tool: checkedOutput.tool,
        tool_call_id: checkedOutput.toolCallId,
        result_raw: checkedOutput.resultRaw,
        ...(checkedOutput.isError === undefined ? {} : { is_error: checkedOutput.isError }),
        ...(outputRef === undefined ? {} : { output_ref: outputRef }),
      };
      return write([record]).then(() => (outputRef === undefined ? undefined : { ...outputRef }));
    },

    async context(contextLeftPercent) {
      requireRunning();
      const value = parseInput(contextSchema, contextLeftPercent, 'context left percent');
      if (value === lastContext) return false;
      lastContext = value;
      return write([{ ...base('run.context'), context_left_percent: value }]).then(() => true);
    },

    async status(status, message) {
      requireRunning();
      const value = parseInput(statusSchema, status, 'run status');
      if (TERMINAL_STATUSES.has(value)) {
        throw invalidField(
          'run status',
          'status',
          value,
          'is terminal: end the run with complete(), cancel() or fail() instead',
        );
      }
      const checkedMessage = parseInput(z.string().optional(), message, 'run status message');
      return write([
        {
          ...base('run.status'),
          status: value,
          ...(checkedMessage === undefined ? {} : { message: checkedMessage }),
        },
      ]);
    },

    async custom(record) {
      requireRunning();
      const checkedRecord = parseInput(customSchema, record, 'custom run record');
      return write([{ ...checkedRecord, ...base(checkedRecord.type) }]);
    },

    async complete(completeOptions) {
      requireRunning();
      const { final, meta } = parseInput(completeSchema, completeOptions, 'complete options') ?? {};
      return end([
        { ...base('run.status'), status: 'completed' },
        {
          ...base('run.end', meta),
          outcome: 'completed',
          ...(final === undefined ? {} : { final }),
        },
      ]);
    },

    async cancel(cancelOptions) {
      requireRunning();
      const { message, final } = parseInput(cancelSchema, cancelOptions, 'cancel options') ?? {};
      return end([
        {
          ...base('run.status'),
          status: 'cancelled',
          ...(message === undefined ? {} : { message }),
        },
        { ...base('run.end'), outcome: 'cancelled', ...(final === undefined ? {} : { final }) },
      ]);
    },

    async fail(error, failOptions) {
      requireRunning();
      const { final } = parseInput(failOptionsSchema, failOptions, 'fail options') ?? {};
      const described = describeError(error);
      return end([
        { ...base('run.error'), error: described },
        { ...base('run.status'), status: 'error', message: described.message },
        { ...base('run.end'), outcome: 'error', ...(final === undefined ? {} : { final }) },
      ]);
    },
  };
}

/** `{ name, message, stack? }` for anything thrown. */
function describeError(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) {
    return {
      name: error.name || 'Error',
      message: error.message,
      ...(typeof error.stack === 'string' ? { stack: error.stack } : {}),
    };
  }
  if (typeof error === 'object' && error !== null) {
    const { name, message } = error as { name?: unknown; message?: unknown };
    return {
      name: typeof name === 'string' ? name : 'Error',
      message: typeof message === 'string' ? message : (JSON.stringify(error) ?? String(error)),
    };
  }
  return { name: 'Error', message: String(error) };
}
