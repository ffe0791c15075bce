import { performance } from 'node:perf_hooks';
import { assembleModelMessages, episodicMiddleware, modelMessagesToItems } from '@episodic/ai-sdk';
import type { AssemblyManifest, FunctionCallItem, Session } from '@episodic/core';
import type { FsStore } from '@episodic/store-fs';
import { generateText, jsonSchema, stepCountIs, type ToolSet, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { DemoModel } from '../models/demo-model.js';
import { SYSTEM_PROMPT } from '../models/demo-model.js';
import type { TaskStepReport, TaskTracker } from '../task-tracker.js';
import { runTool, TOOL_DEFINITIONS } from '../tools/workspace-tools.js';
import {
  AGENT_LIMITS,
  type ModelCallRecord,
  type ToolCallRecord,
  type TurnOutcome,
  type TurnRecord,
  toolStep,
  turnStep,
} from './demo-agent.js';
import { summarizeManifest } from './manifest-summary.js';

/** What `runAiSdkTurn` needs: the agent's session and its model, tools and tracker. */
export interface AiSdkTurnOptions {
  readonly session: Session;
  readonly model: DemoModel;
  readonly store: FsStore;
  readonly workspace: string;
  readonly tracker?: TaskTracker;
  /** A label for the task step that records the turn. */
  readonly title?: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/**
 * The demo's model as an AI SDK language model: the AI SDK's own mock model (`ai/test`), whose
 * `doGenerate` hands the prompt, converted to Episodic items, to the demo's model (offline, the
 * built-in one) and returns its answer as AI SDK content: text and tool calls.
 */
function languageModelFor(model: DemoModel, turn: { id: () => string; round: number }) {
  return new MockLanguageModelV3({
    provider: model.info.provider,
    modelId: model.info.name,
    doGenerate: async (options) => {
      const items = modelMessagesToItems(options.prompt as never).filter(
        (item) => !(item.type === 'message' && item.role === 'system'),
      );
      const response = await model.respond({
        items,
        tools: TOOL_DEFINITIONS,
        system: SYSTEM_PROMPT,
        turnId: turn.id(),
        round: turn.round++,
        signal: options.abortSignal ?? new AbortController().signal,
      });
      type Content =
        | { type: 'text'; text: string }
        | { type: 'tool-call'; toolCallId: string; toolName: string; input: string };
      const content = response.output.flatMap((item): Content[] => {
        if (item.type === 'message' && item.role === 'assistant') {
          return [{ type: 'text', text: textOf(item.content) }];
        }
        if (item.type === 'function_call') {
          return [
            {
              type: 'tool-call',
              toolCallId: String(item.call_id),
              toolName: String(item.name),
              input: String(item.arguments),
            },
          ];
        }
        return [];
      });
      const calls = content.some((part) => part.type === 'tool-call');
      const { inputTokens, outputTokens } = response.usage;
      return {
        content,
        finishReason: {
          unified: calls ? ('tool-calls' as const) : ('stop' as const),
          raw: response.stopReason,
        },
        usage: {
          inputTokens: {
            total: inputTokens,
            noCache: inputTokens,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

/**
 * Runs one turn of the demo conversation through the Vercel AI SDK instead of `Session.runTurn`:
 * `generateText` with the demo's tools (AI SDK `tool`s running the same workspace tools), the
 * model wrapped with `@episodic/ai-sdk`'s middleware, and the history from `sessionMessages`. The
 * middleware records the call as a run (client `@episodic/ai-sdk`) and commits its steps to the
 * same session the other turns use. Returns the turn in the agent's own form.
 */
export async function runAiSdkTurn(input: string, options: AiSdkTurnOptions): Promise<TurnRecord> {
  const { session, model, store, workspace } = options;
  const revisionBefore = session.revision;
  const lastIdBefore = session.log.lastId;
  const middleware = episodicMiddleware({
    session,
    runs: store.runs,
    runtime: { cwd: workspace, os: process.platform, arch: process.arch, version: process.version },
  });
  let runId: string | null = null;
  const turn = {
    id: () => {
      runId ??= middleware.runId;
      return middleware.turnId ?? 'ai-sdk-turn';
    },
    round: 0,
  };
  const toolCalls: ToolCallRecord[] = [];
  const steps: Promise<number>[] = [];
  const step = (report: TaskStepReport) => {
    if (options.tracker !== undefined) steps.push(options.tracker.step(report));
  };
  const tools: ToolSet = Object.fromEntries(
    TOOL_DEFINITIONS.map((definition) => [
      definition.name,
      tool({
        description: definition.description,
        inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters),
        execute: async (toolInput, { toolCallId, abortSignal }) => {
          const call: FunctionCallItem = {
            type: 'function_call',
            call_id: toolCallId,
            name: definition.name,
            arguments: JSON.stringify(toolInput),
          };
          const started = performance.now();
          const run = await runTool(workspace, call, abortSignal ?? new AbortController().signal);
          const latencyMs = Math.round(performance.now() - started);
          const record: ToolCallRecord = {
            callId: toolCallId,
            name: definition.name,
            arguments: call.arguments,
            output: run.output,
            isError: run.isError,
            latencyMs,
          };
          toolCalls.push(record);
          step(toolStep(record));
          return run.output;
        },
      }),
    ]),
  );

  const { messages, manifest } = await assembleModelMessages(session, {
    input,
    maxTokens: AGENT_LIMITS.maxTokens,
    reserveOutputTokens: AGENT_LIMITS.reserveOutputTokens,
  });
  const result = await generateText({
    model: wrapLanguageModel({ model: languageModelFor(model, turn), middleware }),
    system: SYSTEM_PROMPT,
    messages,
    tools,
    stopWhen: stepCountIs(AGENT_LIMITS.maxModelCalls),
    maxRetries: 0,
    onFinish: middleware.onFinish,
  });
  await middleware.close();

  const firstSeq = session.invokeSeq - result.steps.length + 1;
  const modelCalls: ModelCallRecord[] = result.steps.map((taken, round) => ({
    seq: firstSeq + round,
    invokeSeq: firstSeq + round,
    round,
    // The AI SDK assembles once per call; later steps add the outputs to the same input.
    manifest: summarizeManifest(manifest as AssemblyManifest),
    fullManifest: manifest,
    inputTokens: taken.usage.inputTokens ?? null,
  }));
  const last = result.steps.at(-1);
  const answered = new Set(toolCalls.map((call) => call.callId));
  const pendingCalls = (last?.toolCalls ?? [])
    .filter((call) => !answered.has(call.toolCallId))
    .map((call) => ({
      callId: call.toolCallId,
      name: call.toolName,
      arguments: JSON.stringify(call.input),
    }));
  const answer = result.text === '' ? null : result.text;
  const outcome: TurnOutcome = pendingCalls.length > 0 ? 'step-limit' : 'completed';
  step(turnStep(options.title ?? input, outcome, answer, null));
  await Promise.all(steps);
  const lastId = session.log.lastId;
  return {
    sessionId: session.id,
    turnId: String(
      session.log.read({ fromId: lastIdBefore, limit: Number.MAX_SAFE_INTEGER })[0]?.meta.turnId ??
        turn.id(),
    ),
    runId: runId ?? '',
    input,
    model: `${model.label} via the AI SDK`,
    outcome,
    stopReason: last?.finishReason ?? null,
    answer,
    error: null,
    toolCalls,
    pendingCalls,
    modelCalls,
    revisionBefore,
    revisionAfter: session.revision,
    episodes: lastId > lastIdBefore ? { fromId: lastIdBefore + 1, toId: lastId } : null,
    interruptBoundaryId: null,
    compaction: null,
    compactionError: null,
    resumedFromInvokeSeq: firstSeq - 1,
    pid: process.pid,
  };
}
