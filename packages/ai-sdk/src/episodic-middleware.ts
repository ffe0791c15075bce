import type { RunHeaderFields, RunStore, RuntimeInfo, Session } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import { runtimeInfoSchema } from '@episodic/core/schemas';
import type { LanguageModelMiddleware } from 'ai';
import * as z from 'zod';
import type { MessageLike } from './convert/model-messages.js';
import {
  ConversationRecorder,
  type FinishEventLike,
  type RecordedStep,
  type StepOutcome,
  type StepStart,
} from './record/conversation-recorder.js';
import type { OutputContent, UsageLike } from './record/model-output.js';
import { StreamCapture, type StreamPartLike } from './record/stream-capture.js';

/** Options of `episodicMiddleware`. */
export interface EpisodicMiddlewareOptions {
  /**
   * The Episodic session the conversation belongs to (`createSession` / `loadSession`). Every
   * completed step is committed to it as episodes: the step's new input (the user's message, tool
   * outputs), the model's output and its usage.
   */
  session: Session;
  /**
   * Where each call is recorded as a run (seed 001 run records). Without it only episodes are
   * recorded.
   */
  runs?: RunStore;
  /**
   * Extra header fields for every run (they win over the ones the middleware fills in: `client`,
   * `model`, `prompts.system`, `tools`).
   */
  header?: RunHeaderFields;
  /** The environment the runs execute in; written to each run header's `runtime`. */
  runtime?: RuntimeInfo;
  /**
   * The clock for record timestamps.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Generates run and turn ids (must return UUIDs).
   * @default () => globalThis.crypto.randomUUID()
   */
  generateId?: () => string;
}

/**
 * A language model middleware for `wrapLanguageModel` that records a conversation in Episodic,
 * plus the two hooks the middleware cannot see on its own.
 */
export interface EpisodicMiddleware extends LanguageModelMiddleware {
  /**
   * Pass as the call's `onFinish` (AI SDK 6) or `onEnd` (AI SDK 7). It records the outputs of the
   * tools the AI SDK ran after the last model call (no model call follows to show them to the
   * middleware) and ends the run right away. Without it those outputs are missing and the run
   * ends when the next call starts or on `close()`.
   */
  onFinish(event: FinishEventLike): Promise<void>;
  /** Ends the open run, if any (completed, or failed when its last model call failed). */
  close(): Promise<void>;
  /** The run being recorded, or null between calls. */
  readonly runId: string | null;
  /** The session turn being recorded, or null between calls. */
  readonly turnId: string | null;
}

const functionSchema = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', `must be a function (${what})`);

const optionsSchema = z.strictObject({
  session: z.custom<Session>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as Session).runTurn === 'function' &&
      typeof (value as Session).id === 'string',
    'must be an Episodic session (createSession or loadSession from @episodic/core)',
  ),
  runs: z
    .custom<RunStore>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as RunStore).append === 'function' &&
        typeof (value as RunStore).list === 'function',
      'must be a RunStore (e.g. createFsStore().runs, createSqliteStore().runs)',
    )
    .optional(),
  header: z.record(z.string(), z.unknown()).optional(),
  runtime: runtimeInfoSchema.optional(),
  now: functionSchema<() => Date>('() → Date').optional(),
  generateId: functionSchema<() => string>('() → UUID').optional(),
});

interface CallParams {
  prompt: unknown;
  tools?: unknown[];
  toolChoice?: unknown;
  abortSignal?: AbortSignal;
}

interface ModelInfo {
  provider: string;
  modelId: string;
}

function stepStart(params: CallParams, model: ModelInfo): StepStart {
  return {
    prompt: (Array.isArray(params.prompt) ? params.prompt : []) as MessageLike[],
    tools: params.tools,
    toolChoice: params.toolChoice,
    provider: model.provider,
    modelId: model.modelId,
    signal: params.abortSignal,
  };
}

/** Forwards a model's stream unchanged while gathering what it produced; records at its end. */
function recordStream(
  stream: ReadableStream<StreamPartLike>,
  step: RecordedStep,
): ReadableStream<StreamPartLike> {
  const reader = stream.getReader();
  const capture = new StreamCapture();
  step.capture = capture;
  return new ReadableStream<StreamPartLike>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        await step.fail(error).catch(() => undefined);
        controller.error(error);
        return;
      }
      if (next.done) {
        try {
          const captured = capture.result();
          await step.complete({
            content: captured.content,
            usage: captured.usage,
            finishReason: captured.finished ? captured.finishReason : 'other',
            providerMetadata: captured.providerMetadata,
            response: captured.response,
            errors: captured.errors,
          });
          controller.close();
        } catch (error) {
          controller.error(error);
        }
        return;
      }
      capture.add(next.value);
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      step.cancelled(reason);
      await reader.cancel(reason);
    },
  });
}

/**
 * Records every `generateText` / `streamText` step of a conversation in Episodic. Wrap the model
 * with it (`wrapLanguageModel({ model, middleware })`), build each call's `messages` with
 * `sessionMessages(session, { input })`, and pass `middleware.onFinish` as the call's `onFinish`.
 *
 * One call is one run and one turn of the session. For each model call (step) it writes
 * `llm.request` before the model runs and, once the step is complete (a stream once it has
 * finished), `llm.response` with the usage and finish reason and a `tool.output` for each tool
 * result; and it commits the step's new input, output and usage to the session. An aborted call
 * commits what it completed, then an `interrupt` boundary, and ends its run `cancelled`: a tool
 * call cut off there has no output, and the next assembly pairs it with a synthesized one.
 * A storage failure fails the call with the store's `EpisodicError`. When another writer committed
 * to the session first, a call's first commit follows the other writer's episodes; a later one
 * fails the call with `CONFLICT` (the session object is reloaded), so two calls' episodes never
 * interleave.
 */
export function episodicMiddleware(options: EpisodicMiddlewareOptions): EpisodicMiddleware {
  const checked = parseInput(optionsSchema, options, 'episodicMiddleware options');
  const recorder = new ConversationRecorder({
    session: options.session,
    runs: options.runs,
    header: options.header,
    runtime: checked.runtime,
    now: (checked.now as (() => Date) | undefined) ?? (() => new Date()),
    generateId:
      (checked.generateId as (() => string) | undefined) ?? (() => globalThis.crypto.randomUUID()),
  });
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      const step = await recorder.beginStep(stepStart(params as CallParams, model));
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result = await doGenerate();
      } catch (error) {
        await step.fail(error);
        throw error;
      }
      const outcome: StepOutcome = {
        content: result.content as unknown as OutputContent[],
        usage: result.usage as unknown as UsageLike,
        finishReason: result.finishReason,
        providerMetadata: result.providerMetadata,
        response:
          result.response === undefined
            ? undefined
            : { ...result.response, headers: undefined, body: undefined },
      };
      await step.complete(outcome);
      return result;
    },
    async wrapStream({ doStream, params, model }) {
      const step = await recorder.beginStep(stepStart(params as CallParams, model));
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        await step.fail(error);
        throw error;
      }
      return {
        ...result,
        stream: recordStream(
          result.stream as unknown as ReadableStream<StreamPartLike>,
          step,
        ) as unknown as typeof result.stream,
      };
    },
    onFinish: (event) => recorder.onFinish(event),
    close: () => recorder.close(),
    get runId() {
      return recorder.runId;
    },
    get turnId() {
      return recorder.turnId;
    },
  };
}
