import { z } from 'zod';
import type { AssemblyManifest } from '../assembly/manifest.js';
import { type TurnUsage, turnUsageSchema } from '../schema/episode.js';
import { type FunctionCallItem, type InputItem, inputItemSchema } from '../schema/input-item.js';
import { type ToolOutputRef, toolOutputRefSchema } from '../schema/run-record.js';

/**
 * One model invocation, as `runTurn` asks for it. The session assembled `items` from the turn's
 * working log (history from the last checkpoint, the turn's input, earlier rounds' output and tool
 * outputs, plugin input) and explains them in `manifest`.
 */
export interface ModelRequest {
  readonly sessionId: string;
  readonly turnId: string;
  /** 0 for the turn's first model call; +1 after each round of tool outputs. */
  readonly round: number;
  /**
   * The session's invocation number for this call, continuing the snapshot's `invoke_seq`
   * (seed 001): use it as `llm.request.seq` / `llm.response.seq` when recording the run.
   */
  readonly invokeSeq: number;
  /** The model input, normalized: every call has its output and no output lacks its call. */
  readonly items: InputItem[];
  /** Why `items` are what they are (see `explainEpisode`). */
  readonly manifest: AssemblyManifest;
  /** The session context at the time of the call. */
  readonly context: Readonly<Record<string, unknown>>;
  /**
   * Fires on `interrupt()`, `abort()`, `remove()` or the turn's own `signal`. Pass it to the
   * provider's request; a call that ignores it is abandoned anyway and its result discarded.
   */
  readonly signal: AbortSignal;
}

/** What the model produced for one `ModelRequest`. */
export interface ModelResponse {
  /**
   * The output items, in order: assistant messages, reasoning, `function_call`s. A model call
   * that ran tools itself may include their `function_call_output`s too; calls left without an
   * output here are run by the session's `executeTool`.
   */
  output: InputItem[];
  /** The provider's token usage, recorded as a `turn.usage` meta episode (drives the budget). */
  usage?: TurnUsage | null;
}

/**
 * Calls the model once. Throwing (or rejecting) fails the turn: nothing is committed and the
 * error is rethrown from `runTurn` unchanged.
 */
export type ModelCall = (request: ModelRequest) => ModelResponse | Promise<ModelResponse>;

/** What a tool executor receives besides the call. */
export interface ToolCallContext {
  readonly sessionId: string;
  readonly turnId: string;
  readonly context: Readonly<Record<string, unknown>>;
  /** Fires when the turn is interrupted or aborted. */
  readonly signal: AbortSignal;
}

/**
 * A tool's result: its output (text, or content parts such as `{ type: 'input_text', text }`), or
 * `{ output, outputRef }` when the run file keeps that output under an `output_ref` (what
 * `RunRecorder.toolOutput` resolves to): the session's seed 001 tool message then carries the same
 * `output_ref`, as the run file's `tool.output` does.
 */
export type ToolResult =
  | string
  | ReadonlyArray<{ type: string; [key: string]: unknown }>
  | {
      output: string | ReadonlyArray<{ type: string; [key: string]: unknown }>;
      outputRef?: ToolOutputRef | undefined;
    };

/**
 * Runs one tool call the model made and returns its output; the session appends it as a
 * `function_call_output` (source `tool`) and calls the model again. To tell the model a tool
 * failed, return a message saying so; throwing fails the whole turn (nothing committed).
 */
export type ToolExecutor = (
  call: FunctionCallItem,
  context: ToolCallContext,
) => ToolResult | Promise<ToolResult>;

export const modelResponseSchema = z.looseObject({
  output: z.array(inputItemSchema),
  usage: turnUsageSchema.nullish(),
});

const toolOutputValueSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string().min(1) })),
]);

export const toolOutputSchema = z.union([
  toolOutputValueSchema,
  z.strictObject({ output: toolOutputValueSchema, outputRef: toolOutputRefSchema.optional() }),
]);
