import type { InputItem } from '@episodic/core';
import type { ToolDefinition } from '../tools/workspace-tools.js';

/** One model invocation as the demo agent asks for it. */
export interface ModelTurnRequest {
  /** The assembled, normalized model input (every call paired with an output). */
  readonly items: readonly InputItem[];
  /** The tools the model may call. */
  readonly tools: readonly ToolDefinition[];
  /** The system prompt. */
  readonly system: string;
  /** The turn this invocation belongs to (the built-in model derives call ids from it). */
  readonly turnId: string;
  /** 0 for the turn's first call, +1 after each round of tool outputs. */
  readonly round: number;
  /** Fires when the turn is interrupted or aborted. */
  readonly signal: AbortSignal;
}

/** Token usage of one invocation. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What one invocation produced. */
export interface ModelTurnResponse {
  /** Assistant messages and `function_call`s, in order. */
  readonly output: InputItem[];
  readonly usage: ModelUsage;
  /** Why the model stopped: `tool_use` when it called tools, else `end_turn`. */
  readonly stopReason: string;
}

/** What a summarizer receives at compaction (see `compact` in `@episodic/core`). */
export interface SummarizeRequest {
  /** The history since the previous checkpoint as the model sees it (starting with its summary). */
  readonly items: readonly InputItem[];
  /** The first and last episode ids the summary covers. */
  readonly covers: { readonly fromId: number; readonly toId: number };
  readonly signal: AbortSignal;
}

/** A model the demo agent can drive: the built-in scripted one or an OpenAI-compatible endpoint. */
export interface DemoModel {
  /** How the model is named in output and on the command line (`built-in`, `openai:gpt-4o-mini`). */
  readonly label: string;
  /** Written to run headers and `llm.request` records. */
  readonly info: { readonly provider: string; readonly name: string };
  /** True when the model runs in this process with no network (the built-in model). */
  readonly offline: boolean;
  respond(request: ModelTurnRequest): Promise<ModelTurnResponse>;
  /** Writes the summary of a compaction checkpoint. */
  summarize(request: SummarizeRequest): Promise<string>;
}

/** The system prompt of the demo agent. */
export const SYSTEM_PROMPT =
  'You are the Episodic demo agent. You help with the files of a small workspace. Use the tools to ' +
  'list, read and search files and to do arithmetic (never compute in your head). Answer in one or ' +
  'two short sentences. When a tool output says it was truncated, search the file for what you need.';
