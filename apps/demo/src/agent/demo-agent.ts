import { randomUUID } from 'node:crypto';
import {
  type ArtifactStore,
  type AssemblyManifest,
  type BaseMessage,
  type CheckpointInfo,
  compact,
  createRunRecorder,
  createSession,
  EpisodicError,
  type FunctionCallItem,
  type InputItem,
  type InterruptOptions,
  itemsToMessages,
  loadSession,
  type ModelCall,
  type RunRecorder,
  type Session,
  type SessionAssemblyOptions,
  type ToolExecutor,
} from '@episodic/core';
import type { FsStore } from '@episodic/store-fs';
import type { DemoModel, ModelTurnResponse } from '../models/demo-model.js';
import { SYSTEM_PROMPT } from '../models/demo-model.js';
import type { TaskStepReport, TaskTracker } from '../task-tracker.js';
import { runTool, TOOL_DEFINITIONS } from '../tools/workspace-tools.js';
import { DEMO_VERSION } from '../version.js';
import { type ManifestSummary, summarizeManifest } from './manifest-summary.js';

/**
 * The agent's limits. The budget is deliberately small so that one long tool output fills it:
 * the demo shows what happens then (a budget restart, then compaction).
 */
export const AGENT_LIMITS = {
  /** The most model calls one turn may make; a longer task stops with its last call unanswered. */
  maxModelCalls: 4,
  /** The context window the budget rule assumes, in (estimated) tokens. */
  maxTokens: 4_000,
  /** Tokens kept free for the answer: the budget is `maxTokens − reserveOutputTokens`. */
  reserveOutputTokens: 1_000,
  /** Compact after a turn whose last input used more than this share of the budget. */
  compactAtShare: 0.75,
} as const;

/** How a turn ended, from the agent's point of view. */
export type TurnOutcome = 'completed' | 'step-limit' | 'interrupted' | 'failed';

/** One tool call the agent ran (or started) in a turn. */
export interface ToolCallRecord {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  /** The full output (null when the call was interrupted before it returned). */
  readonly output: string | null;
  readonly isError: boolean;
  readonly latencyMs: number;
}

/** One model invocation of a turn, as recorded. */
export interface ModelCallRecord {
  /** The `llm.request` / `llm.response` seq written to the run file. */
  readonly seq: number;
  /** The session's invocation number for the same call (they must be equal). */
  readonly invokeSeq: number;
  readonly round: number;
  readonly manifest: ManifestSummary;
  /** The full manifest, for printing. */
  readonly fullManifest: AssemblyManifest;
  readonly inputTokens: number | null;
}

/** What compaction did after a turn. */
export interface CompactionRecord {
  readonly checkpointId: number;
  readonly covers: { readonly fromId: number; readonly toId: number };
  readonly summary: string;
  /** The artifact that keeps the summary, associated with the episodes it covers. */
  readonly artifactKey: string | null;
  /** Why the agent compacted. */
  readonly reason: string;
}

/** Everything about one turn: the input, the run that recorded it, and what happened. */
export interface TurnRecord {
  readonly sessionId: string;
  readonly turnId: string;
  readonly runId: string;
  readonly input: string;
  readonly model: string;
  readonly outcome: TurnOutcome;
  /** The session's stop reason for committed turns. */
  readonly stopReason: string | null;
  /** The final assistant text, if the model gave one. */
  readonly answer: string | null;
  /** The error message of a failed turn, or the reason of an interrupted one. */
  readonly error: string | null;
  readonly toolCalls: readonly ToolCallRecord[];
  /** Calls committed without an output (the turn hit the step limit). */
  readonly pendingCalls: ReadonlyArray<{
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
  }>;
  readonly modelCalls: readonly ModelCallRecord[];
  readonly revisionBefore: number;
  readonly revisionAfter: number;
  /** The ids of the episodes this turn committed (null when it committed none). */
  readonly episodes: { readonly fromId: number; readonly toId: number } | null;
  /** The interrupt boundary committed for an interrupted turn. */
  readonly interruptBoundaryId: number | null;
  readonly compaction: CompactionRecord | null;
  /** Why compaction after this turn failed (the turn itself stays committed). */
  readonly compactionError: string | null;
  /** The invocation number the run continued from (`invoke_seq` of its resume plan). */
  readonly resumedFromInvokeSeq: number;
  readonly pid: number;
}

/** Live progress, for interactive output. */
export type AgentEvent =
  | { readonly type: 'tool-start'; readonly call: FunctionCallItem }
  | { readonly type: 'tool-end'; readonly call: FunctionCallItem; readonly record: ToolCallRecord }
  | { readonly type: 'model-call'; readonly round: number; readonly manifest: ManifestSummary }
  | { readonly type: 'compaction'; readonly record: CompactionRecord };

/** Per-turn choices. */
export interface TurnOptions {
  /** Uses this model for the turn instead of the agent's (e.g. one that simulates an outage). */
  readonly model?: DemoModel;
  /** Called when a tool call starts (e.g. to interrupt the turn at that moment). */
  readonly onToolStart?: (call: FunctionCallItem) => void;
  /** A label for the task step that records the turn. */
  readonly title?: string;
}

/** The "run being recorded now", shared by a session and its forks (compaction events go there). */
interface RunSlot {
  current: RunRecorder | null;
}

/** Options of `openDemoAgent`. */
export interface DemoAgentOptions {
  readonly model: DemoModel;
  /** Run files, snapshots and the tool-output cache. */
  readonly store: FsStore;
  /** The folder the tools work in. */
  readonly workspace: string;
  /**
   * The session id: of the new session, or of the stored session to continue when `resume` is set.
   * @default a new UUID
   */
  readonly sessionId?: string;
  /** Continue the stored session `sessionId` (`loadSession`) instead of starting a new one. */
  readonly resume?: boolean;
  /** Tracks every tool call and turn as steps of a task episode (over MCP). */
  readonly tracker?: TaskTracker;
  /** Keeps compaction summaries as artifacts associated with the episodes they cover. */
  readonly artifacts?: ArtifactStore;
  /** Live progress. */
  readonly onEvent?: (event: AgentEvent) => void;
}

/** The demo agent: one session, a run file per turn, real tools, and task tracking. */
export interface DemoAgent {
  readonly session: Session;
  readonly model: DemoModel;
  /** Runs one turn; never rejects for a failed or interrupted turn (see `outcome`). */
  turn(input: string, options?: TurnOptions): Promise<TurnRecord>;
  /** Interrupts the running turn (or the next one, if it has not reached the model yet). */
  /**
   * Interrupts the running turn. `keep: 'partial'` commits what the turn did so far before the
   * interrupt boundary (see `Session.interrupt`); the default discards it.
   */
  interrupt(reason: string, options?: InterruptOptions): Promise<boolean>;
  /** A new agent on a fork of this session (committed history only). */
  fork(): DemoAgent;
  /** Compacts now (a checkpoint summarizing everything since the last one). */
  compactNow(reason: string): Promise<CompactionRecord | null>;
}

const BUDGET_LIMIT = AGENT_LIMITS.maxTokens - AGENT_LIMITS.reserveOutputTokens;

const ASSEMBLY: SessionAssemblyOptions = {
  maxTokens: AGENT_LIMITS.maxTokens,
  reserveOutputTokens: AGENT_LIMITS.reserveOutputTokens,
};

const TOOLS_PAYLOAD = TOOL_DEFINITIONS.map((tool) => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: tool.parameters },
}));

const runtime = (workspace: string) => ({
  cwd: workspace,
  os: process.platform,
  arch: process.arch,
  version: process.version,
});

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/**
 * Seed 001's `tool_call` arguments: `args` is the object the model's JSON arguments parse to; text
 * that is not a JSON object is kept as `raw_args` beside an empty `args`, as Codelia does.
 */
function toolCallArgs(text: unknown): { args: Record<string, unknown>; raw_args?: string } {
  if (typeof text !== 'string') return { args: {}, raw_args: String(text) };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return { args: parsed as Record<string, unknown> };
    }
  } catch {
    // Not JSON: kept as raw_args below.
  }
  return { args: {}, raw_args: text };
}

function finalAnswer(items: readonly InputItem[]): string | null {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as InputItem;
    if (item.type === 'message' && item.role === 'assistant') return textOf(item.content);
  }
  return null;
}

function preview(text: string, max = 400): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The task step that reports how a turn ended. */
export function turnStep(
  action: string,
  outcome: TurnOutcome,
  answer: string | null,
  error: string | null,
): TaskStepReport {
  return {
    tool: 'agent_turn',
    action,
    result:
      outcome === 'completed'
        ? { type: 'success', output: preview(answer ?? '(no answer)') }
        : outcome === 'step-limit'
          ? {
              type: 'success',
              output: `stopped at the step limit of ${AGENT_LIMITS.maxModelCalls} model calls`,
            }
          : { type: 'error', message: preview(error ?? outcome) },
  };
}

/** The task step that reports one finished tool call. */
export function toolStep(record: ToolCallRecord): TaskStepReport {
  const output = record.output ?? '';
  return {
    tool: record.name,
    action: `${record.name} ${preview(record.arguments, 200)}`,
    result: record.isError
      ? { type: 'error', message: preview(output) }
      : { type: 'success', output: preview(output) },
    latency_ms: record.latencyMs,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAborted(error: unknown): boolean {
  return EpisodicError.isInstance(error) && error.code === 'ABORTED';
}

/** Opens the demo agent on a new or stored session. */
export async function openDemoAgent(options: DemoAgentOptions): Promise<DemoAgent> {
  const slot: RunSlot = { current: null };
  const behaviour = {
    assembly: ASSEMBLY,
    maxModelCalls: AGENT_LIMITS.maxModelCalls,
    // Compaction emits its agent events into whichever run is being recorded.
    recorder: {
      agentEvent: (event: { type: string; [key: string]: unknown }) =>
        slot.current?.agentEvent(event),
    },
  };
  if (options.resume === true && options.sessionId === undefined) {
    throw new Error('openDemoAgent: resume needs the sessionId of the stored session.');
  }
  const session =
    options.resume === true
      ? await loadSession(options.store.sessions, options.sessionId as string, behaviour)
      : createSession({
          store: options.store.sessions,
          ...(options.sessionId === undefined ? {} : { id: options.sessionId }),
          context: { workspace: options.workspace },
          ...behaviour,
        });
  return agentFor(session, options, slot);
}

function agentFor(session: Session, options: DemoAgentOptions, slot: RunSlot): DemoAgent {
  let turnRunning = false;
  let pendingInterrupt: { reason: string; options: InterruptOptions | undefined } | null = null;
  let interruptReason: string | null = null;

  const keepSummary = async (info: CheckpointInfo): Promise<string | null> => {
    if (options.artifacts === undefined) return null;
    const key = `checkpoint:${info.sessionId}:${info.checkpoint.id}`;
    await options.artifacts.upsert({
      key,
      kind: 'checkpoint_summary',
      content: {
        session_id: info.sessionId,
        checkpoint_id: info.checkpoint.id,
        covers: info.covers,
        summary: info.summary,
      },
      episodes: info.episodeIds.map((id) => `session:${info.sessionId}#${id}`),
    });
    return key;
  };

  const compactNow = async (reason: string): Promise<CompactionRecord | null> => {
    let artifactKey: string | null = null;
    const result = await compact(session, {
      summarize: ({ items, covers, signal }) => options.model.summarize({ items, covers, signal }),
      onCheckpoint: async (info) => {
        artifactKey = await keepSummary(info);
      },
    });
    if (result.checkpoint === null || result.covers === null) return null;
    const payload = result.checkpoint.payload as { content?: string };
    const record: CompactionRecord = {
      checkpointId: result.checkpoint.id,
      covers: result.covers,
      summary: payload.content ?? '',
      artifactKey,
      reason,
    };
    options.onEvent?.({ type: 'compaction', record });
    return record;
  };

  const turn = async (input: string, turnOptions: TurnOptions = {}): Promise<TurnRecord> => {
    if (turnRunning)
      throw new Error('A turn is already running on this agent; wait for it to finish.');
    turnRunning = true;
    interruptReason = null;
    const model = turnOptions.model ?? options.model;
    const turnId = randomUUID();
    const revisionBefore = session.revision;
    const lastIdBefore = session.log.lastId;
    const snapshot = await options.store.sessions.load(session.id);
    // A failed turn's invocations are recorded in its run but never committed, so the session's
    // own count (not the snapshot's) is where this run's llm.request numbering continues.
    const recorder = createRunRecorder({
      store: options.store.runs,
      sessionId: session.id,
      ...(snapshot === null ? {} : { resumeFrom: { ...snapshot, invoke_seq: session.invokeSeq } }),
      runtime: runtime(options.workspace),
      header: {
        client: { name: '@episodic/demo', version: DEMO_VERSION },
        model: { ...model.info },
        prompts: { system: SYSTEM_PROMPT },
        tools: { definitions: TOOLS_PAYLOAD, source: 'apps/demo' },
      },
    });
    const toolCalls: ToolCallRecord[] = [];
    const modelCalls: ModelCallRecord[] = [];
    const steps: Promise<number>[] = [];
    const step = (report: TaskStepReport) => {
      if (options.tracker !== undefined) steps.push(options.tracker.step(report));
    };

    const modelCall: ModelCall = async (request) => {
      const manifest = summarizeManifest(request.manifest);
      const messages: BaseMessage[] = [
        { role: 'system', content: SYSTEM_PROMPT },
        ...itemsToMessages(request.items),
      ];
      const seq = await recorder.llmRequest({
        messages,
        tools: TOOLS_PAYLOAD,
        model: model.info.name,
        modelInfo: { ...model.info },
        meta: { turn_id: turnId, round: request.round, manifest },
      });
      const callRecord = {
        seq,
        invokeSeq: request.invokeSeq,
        round: request.round,
        manifest,
        fullManifest: request.manifest,
      };
      options.onEvent?.({ type: 'model-call', round: request.round, manifest });
      let response: ModelTurnResponse;
      try {
        response = await model.respond({
          items: request.items,
          tools: TOOL_DEFINITIONS,
          system: SYSTEM_PROMPT,
          turnId,
          round: request.round,
          signal: request.signal,
        });
      } catch (error) {
        modelCalls.push({ ...callRecord, inputTokens: null });
        throw error;
      }
      modelCalls.push({ ...callRecord, inputTokens: response.usage.inputTokens });
      const { inputTokens, outputTokens } = response.usage;
      await recorder.llmResponse({
        seq,
        messages: itemsToMessages(response.output),
        usage: {
          model: model.info.name,
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
        },
        stopReason: response.stopReason,
      });
      for (const item of response.output) {
        if (item.type === 'message' && item.role === 'assistant') {
          await recorder.agentEvent({ type: 'text', content: textOf(item.content) });
        } else if (item.type === 'function_call') {
          await recorder.agentEvent({
            type: 'tool_call',
            tool: item.name,
            ...toolCallArgs(item.arguments),
            tool_call_id: item.call_id,
          });
        }
      }
      return {
        output: response.output,
        usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      };
    };

    const executeTool: ToolExecutor = async (call, { signal }) => {
      options.onEvent?.({ type: 'tool-start', call });
      turnOptions.onToolStart?.(call);
      const started = performance.now();
      try {
        signal.throwIfAborted();
        const run = await runTool(options.workspace, call, signal);
        const record: ToolCallRecord = {
          callId: call.call_id,
          name: call.name,
          arguments: call.arguments,
          output: run.output,
          isError: run.isError,
          latencyMs: Math.round(performance.now() - started),
        };
        toolCalls.push(record);
        // The run file keeps the full output; the model's view of it may be truncated.
        const outputRef = await recorder.toolOutput({
          tool: call.name,
          toolCallId: call.call_id,
          resultRaw: run.output,
          isError: run.isError,
        });
        await recorder.agentEvent({
          type: 'tool_result',
          tool: call.name,
          result: run.output,
          tool_call_id: call.call_id,
          is_error: run.isError,
          output_chars: run.output.length,
        });
        options.onEvent?.({ type: 'tool-end', call, record });
        step(toolStep(record));
        // The snapshot's tool message gets the run file's output_ref, as Codelia's does.
        return { output: run.output, outputRef };
      } catch (error) {
        const latencyMs = Math.round(performance.now() - started);
        toolCalls.push({
          callId: call.call_id,
          name: call.name,
          arguments: call.arguments,
          output: null,
          isError: true,
          latencyMs,
        });
        step({
          tool: call.name,
          action: `${call.name} ${preview(call.arguments, 200)}`,
          result: {
            type: 'error',
            message: signal.aborted ? 'interrupted before it returned' : messageOf(error),
          },
          latency_ms: latencyMs,
        });
        throw error;
      }
    };

    let outcome: TurnOutcome;
    let stopReason: string | null = null;
    let answer: string | null = null;
    let error: string | null = null;
    let pendingCalls: TurnRecord['pendingCalls'] = [];
    let compaction: CompactionRecord | null = null;
    let compactionError: string | null = null;
    let interruptBoundaryId: number | null = null;
    try {
      await recorder.start(input, { meta: { turn_id: turnId, pid: process.pid } });
      slot.current = recorder;
      const running = session.runTurn(input, modelCall, {
        turnId,
        runId: recorder.runId,
        executeTool,
      });
      if (pendingInterrupt !== null) {
        const { reason, options: interruptOptions } = pendingInterrupt;
        pendingInterrupt = null;
        void interruptSession(reason, interruptOptions);
      }
      try {
        const result = await running;
        stopReason = result.stopReason;
        answer = finalAnswer(result.items);
        const answered = new Set(
          result.items
            .filter((item) => item.type === 'function_call_output')
            .map((item) => String(item.call_id)),
        );
        pendingCalls = result.items
          .filter(
            (item): item is FunctionCallItem =>
              item.type === 'function_call' && !answered.has(String(item.call_id)),
          )
          .map((item) => ({ callId: item.call_id, name: item.name, arguments: item.arguments }));
        if (answer !== null) await recorder.agentEvent({ type: 'final', content: answer });
        if (pendingCalls.length > 0) {
          await recorder.agentEvent({
            type: 'turn_stopped',
            reason: result.stopReason,
            pending_calls: pendingCalls.map((pending) => pending.callId),
          });
        }
        outcome = result.stopReason === 'completed' ? 'completed' : 'step-limit';
        const exceeded = modelCalls.some((call) => call.manifest.budget?.exceeded === true);
        const lastInput = result.usage?.inputTokens ?? 0;
        if (exceeded || lastInput > BUDGET_LIMIT * AGENT_LIMITS.compactAtShare) {
          try {
            compaction = await compactNow(
              exceeded
                ? `the budget rule cut this turn's input (limit ${BUDGET_LIMIT} tokens)`
                : `the last input used ${lastInput} of ${BUDGET_LIMIT} tokens`,
            );
          } catch (compactionFailure) {
            // The turn is committed either way; the run file has compaction_complete "failed".
            compactionError = messageOf(compactionFailure);
          }
        }
        await recorder.complete(answer === null ? {} : { final: answer });
      } catch (turnError) {
        if (isAborted(turnError)) {
          outcome = 'interrupted';
          error = interruptReason ?? messageOf(turnError);
          const boundary = session.log.read({ type: 'boundary', limit: 1 })[0];
          interruptBoundaryId =
            boundary !== undefined && boundary.meta.turnId === turnId ? boundary.id : null;
          await recorder.cancel({ message: error });
        } else {
          outcome = 'failed';
          error = messageOf(turnError);
          await recorder.fail(turnError);
        }
      }
    } finally {
      slot.current = null;
      turnRunning = false;
    }
    step(turnStep(turnOptions.title ?? input, outcome, answer, error));
    await Promise.all(steps);
    const lastId = session.log.lastId;
    return {
      sessionId: session.id,
      turnId,
      runId: recorder.runId,
      input,
      model: model.label,
      outcome,
      stopReason,
      answer,
      error,
      toolCalls,
      pendingCalls,
      modelCalls,
      revisionBefore,
      revisionAfter: session.revision,
      episodes: lastId > lastIdBefore ? { fromId: lastIdBefore + 1, toId: lastId } : null,
      interruptBoundaryId,
      compaction,
      compactionError,
      resumedFromInvokeSeq: recorder.resume?.invokeSeq ?? 0,
      pid: process.pid,
    };
  };

  const interruptSession = async (
    reason: string,
    interruptOptions?: InterruptOptions,
  ): Promise<boolean> => {
    interruptReason = reason;
    const result = await session.interrupt(reason, interruptOptions);
    return result.interrupted;
  };

  return {
    session,
    model: options.model,
    turn,
    async interrupt(reason, interruptOptions) {
      if (!turnRunning) return false;
      if (session.activeTurnId === null) {
        // The turn is still starting its run: interrupt it as soon as it reaches the session.
        pendingInterrupt = { reason, options: interruptOptions };
        interruptReason = reason;
        return true;
      }
      return interruptSession(reason, interruptOptions);
    },
    fork: () => agentFor(session.fork(), options, slot),
    compactNow,
  };
}
