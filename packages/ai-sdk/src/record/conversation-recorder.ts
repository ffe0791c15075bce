import {
  commitEpisodes,
  createRunRecorder,
  EpisodicError,
  type InputItem,
  itemsToMessages,
  type NewEpisode,
  type RunHeaderFields,
  type RunRecorder,
  type RunStore,
  type RuntimeInfo,
  type Session,
} from '@episodic/core';
import { detailOf } from '../convert/ai-sdk-detail.js';
import { toJsonSafe } from '../convert/binary-data.js';
import { historyMarkOf } from '../convert/history-tag.js';
import { type MessageLike, messageToItems } from '../convert/model-messages.js';
import { isErrorOutput, outputText as toolOutputText } from '../convert/tool-result-output.js';
import { VERSION } from '../version.js';
import {
  type FinishReasonLike,
  type OutputContent,
  outputText,
  outputToItems,
  rawFinishReason,
  toLlmUsage,
  toTurnUsage,
  type UsageLike,
  unifiedFinishReason,
} from './model-output.js';
import type { StreamCapture } from './stream-capture.js';

/** The settings a recorder runs with, after validation. */
export interface RecorderSettings {
  readonly session: Session;
  readonly runs: RunStore | undefined;
  readonly header: RunHeaderFields | undefined;
  readonly runtime: RuntimeInfo | undefined;
  readonly now: () => Date;
  readonly generateId: () => string;
}

/** What a step (one model call) starts with. */
export interface StepStart {
  readonly prompt: readonly MessageLike[];
  readonly tools: unknown[] | undefined;
  readonly toolChoice: unknown;
  readonly provider: string;
  readonly modelId: string;
  readonly signal: AbortSignal | undefined;
}

/** What a step produced. */
export interface StepOutcome {
  readonly content: readonly OutputContent[];
  readonly usage: UsageLike | undefined;
  readonly finishReason: FinishReasonLike;
  readonly providerMetadata?: unknown;
  readonly response?: unknown;
  readonly errors?: readonly unknown[];
}

/** The event of the AI SDK's `onFinish` / `onEnd`, as far as the recorder reads it. */
export interface FinishEventLike {
  readonly text?: string;
  readonly steps?: ReadonlyArray<{
    readonly response?: { readonly messages?: readonly unknown[] };
  }>;
  readonly response?: { readonly messages?: readonly unknown[] };
  readonly responseMessages?: readonly unknown[];
}

interface ToolCallState {
  readonly name: string;
  answered: boolean;
}

interface RunState {
  readonly runId: string;
  readonly turnId: string;
  readonly recorder: RunRecorder | null;
  readonly calls: Map<string, ToolCallState>;
  lastStep: 'new' | 'tool-calls' | 'failed';
  failedInput: { key: string; episodes: NewEpisode[] } | null;
  lastError: unknown;
  /** Model calls made but not yet counted in the session's `invoke_seq`. */
  uncountedCalls: number;
  /** True once the turn has episodes in the session (later commits must follow them directly). */
  committed: boolean;
  finalText: string;
  active: RecordedStep | null;
  aborted: boolean;
  ended: boolean;
  signal: AbortSignal | null;
  unwatch: (() => void) | null;
}

const INTERRUPT_TITLE = 'turn interrupted';

function itemEpisode(
  item: InputItem,
  source: 'user' | 'model' | 'tool',
  turnId: string,
): NewEpisode {
  return { type: 'item', meta: { source, turnId }, payload: { item } };
}

function sourceOf(role: string): 'user' | 'model' | 'tool' {
  if (role === 'assistant') return 'model';
  if (role === 'tool') return 'tool';
  return 'user';
}

function itemOf(episode: NewEpisode): InputItem | null {
  return episode.type === 'item' ? (episode.payload.item as InputItem) : null;
}

function isOutput(episode: NewEpisode): boolean {
  return itemOf(episode)?.type === 'function_call_output';
}

function describeError(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function abortReason(signal: AbortSignal | null): string {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  if (typeof reason === 'string' && reason !== '') return reason;
  return 'the AI SDK call was aborted';
}

/**
 * One model call of a run. The middleware reports how it ended: `complete` with what the model
 * produced, `fail` when the provider threw, or nothing when the call was aborted (the recorder
 * watches the call's `abortSignal` and a cancelled stream).
 */
export class RecordedStep {
  /** Set once the step has an outcome (synchronously, so an abort that follows sees it). */
  outcome: StepOutcome | undefined;
  /** The parts of a streamed step gathered so far. */
  capture: StreamCapture | undefined;
  settled = false;

  constructor(
    private readonly owner: ConversationRecorder,
    readonly run: RunState,
    readonly input: NewEpisode[],
    readonly inputKey: string,
    readonly seq: number | null,
    readonly start: StepStart,
  ) {}

  /** Records what the model produced: the run file, then the session. */
  complete(outcome: StepOutcome): Promise<void> {
    this.outcome ??= outcome;
    return this.owner.completeStep(this);
  }

  /** Records a provider error (the AI SDK may retry the call). */
  fail(error: unknown): Promise<void> {
    return this.owner.failStep(this, error);
  }

  /** The stream was cancelled before it finished: the run ends as interrupted. */
  cancelled(reason: unknown): void {
    this.owner.interruptRun(this.run, reason);
  }
}

/**
 * The state machine behind `episodicMiddleware`: one AI SDK call (`generateText`/`streamText`,
 * all its steps) is one run and one turn of the session. Every step is recorded once complete:
 * `llm.request` before the model is called, `llm.response` and the step's episodes (its new
 * input, its output, its usage) after. Work is serialized in call order.
 */
export class ConversationRecorder {
  private run: RunState | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private backgroundError: unknown = undefined;
  private lastSeq = 0;

  constructor(private readonly settings: RecorderSettings) {}

  get runId(): string | null {
    return this.run?.runId ?? null;
  }

  get turnId(): string | null {
    return this.run?.turnId ?? null;
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** An error of the abort path (which has no caller) surfaces at the next call. */
  private throwBackgroundError(): void {
    const error = this.backgroundError;
    if (error === undefined) return;
    this.backgroundError = undefined;
    throw error;
  }

  beginStep(start: StepStart): Promise<RecordedStep> {
    return this.serial(async () => {
      this.throwBackgroundError();
      if (this.run?.active) {
        throw new EpisodicError({
          code: 'CONFLICT',
          message: `A model call of session ${this.settings.session.id} is still running: one episodicMiddleware records one conversation, one call at a time. Await each generateText/streamText call, or give each conversation its own session and middleware.`,
          details: { sessionId: this.settings.session.id, runId: this.run.runId },
        });
      }
      const candidates: NewEpisode[] = [];
      const promptItems: InputItem[] = [];
      let system: string | undefined;
      for (const message of start.prompt) {
        const items = messageToItems(message);
        promptItems.push(...items);
        if (message.role === 'system') {
          system ??= typeof message.content === 'string' ? message.content : undefined;
          continue;
        }
        if (historyMarkOf(message) !== null) continue;
        for (const item of items) candidates.push(itemEpisode(item, sourceOf(message.role), ''));
      }
      const inputKey = JSON.stringify(candidates.map(itemOf));

      let run = this.run;
      let input: NewEpisode[] = [];
      if (run !== null) {
        const answers = this.answersIn(run, candidates);
        if (run.lastStep === 'tool-calls' && answers.length > 0) {
          input = answers;
        } else if (run.lastStep === 'failed' && run.failedInput?.key === inputKey) {
          input = run.failedInput.episodes;
        } else {
          await this.endRun(run, answers);
          const answered = new Set(answers);
          run = null;
          input = candidates.filter((episode) => !answered.has(episode));
        }
      } else {
        input = candidates;
      }
      if (run === null) run = await this.startRun(start, system, input);
      const turnId = run.turnId;
      input = input.map((episode) => ({ ...episode, meta: { ...episode.meta, turnId } }));

      for (const episode of input) await this.recordToolOutput(run, episode);
      let seq: number | null = null;
      if (run.recorder !== null) {
        seq = await run.recorder.llmRequest({
          messages: itemsToMessages(promptItems),
          ...(start.tools === undefined ? {} : { tools: toJsonSafe(start.tools) as unknown[] }),
          ...(start.toolChoice === undefined ? {} : { toolChoice: toJsonSafe(start.toolChoice) }),
          model: start.modelId,
          modelInfo: { provider: start.provider, name: start.modelId },
        });
        this.lastSeq = seq;
      }
      run.uncountedCalls += 1;
      this.watch(run, start.signal);
      const step = new RecordedStep(this, run, input, inputKey, seq, start);
      run.active = step;
      if (start.signal?.aborted) this.interruptRun(run, start.signal.reason);
      return step;
    });
  }

  completeStep(step: RecordedStep): Promise<void> {
    return this.serial(async () => {
      const { run } = step;
      // An aborted run's abort path records this step (with its outcome, if it has one).
      if (step.settled || run.aborted || run.ended) return;
      step.settled = true;
      run.active = null;
      const outcome = step.outcome as StepOutcome;
      const output = outputToItems(outcome.content);
      const finish = unifiedFinishReason(outcome.finishReason);
      await this.recordResponse(step, output, outcome, false);
      const episodes = this.stepEpisodes(step, output, outcome);
      if (episodes.length > 0) await this.commit(run, episodes);
      this.markAnswered(run, step.input);
      const pending = this.trackCalls(run, output);
      run.finalText = outputText(output) || run.finalText;
      run.failedInput = null;
      if (pending > 0) {
        run.lastStep = 'tool-calls';
        return;
      }
      run.lastStep = 'new';
      if (finish === 'error') {
        run.lastStep = 'failed';
        run.lastError = new Error(
          `The model ended step ${step.seq ?? ''} with an error${outcome.errors?.length ? `: ${describeError(outcome.errors[0]).message}` : ''}.`,
        );
      }
      await this.endRun(run, []);
    });
  }

  failStep(step: RecordedStep, error: unknown): Promise<void> {
    return this.serial(async () => {
      const { run } = step;
      if (step.settled || run.aborted || run.ended || step.start.signal?.aborted) return;
      step.settled = true;
      run.active = null;
      await run.recorder?.agentEvent({
        type: 'llm_error',
        ...(step.seq === null ? {} : { invocation: step.seq }),
        error: describeError(error),
      });
      run.lastStep = 'failed';
      run.failedInput = { key: step.inputKey, episodes: step.input };
      run.lastError = error;
    });
  }

  /**
   * Ends the run as interrupted: what the call completed so far (its input, the finished parts of
   * a streamed step, finished tool outputs) is committed, then an `interrupt` boundary. A tool call
   * left without an output stays so in the log; the next assembly pairs it with a synthesized one.
   */
  interruptRun(run: RunState, reason: unknown): void {
    if (run.aborted || run.ended) return;
    run.aborted = true;
    const message =
      reason === undefined
        ? abortReason(run.signal)
        : describeError(reason).message || abortReason(run.signal);
    this.serial(async () => {
      if (run.ended) return;
      const step = run.active;
      const episodes: NewEpisode[] = [];
      if (step !== null) {
        step.settled = true;
        run.active = null;
        const outcome =
          step.outcome ?? (step.capture === undefined ? undefined : step.capture.result());
        const output = outputToItems(outcome?.content ?? []);
        await this.recordResponse(
          step,
          output,
          outcome ?? { content: [], usage: undefined, finishReason: 'aborted' },
          step.outcome === undefined,
        );
        episodes.push(...this.stepEpisodes(step, output, step.outcome));
        this.markAnswered(run, step.input);
      }
      episodes.push({
        type: 'boundary',
        meta: { source: 'runtime', turnId: run.turnId },
        payload: {
          reason: 'interrupt',
          title: INTERRUPT_TITLE,
          content: `The previous turn was interrupted before it finished (${message}): the output completed so far was kept; a tool call without an output did not finish and may have partially run.`,
        },
      });
      await this.commit(run, episodes);
      await run.recorder?.cancel({ message });
      this.finish(run);
    }).catch((error: unknown) => {
      this.backgroundError ??= error;
    });
  }

  onFinish(event: FinishEventLike): Promise<void> {
    return this.serial(async () => {
      this.throwBackgroundError();
      const run = this.run;
      if (run === null || run.ended || run.active !== null) return;
      const messages = [
        ...(event.steps ?? []).flatMap((step) => step.response?.messages ?? []),
        ...(event.response?.messages ?? []),
        ...(event.responseMessages ?? []),
      ].filter(
        (message): message is MessageLike =>
          typeof message === 'object' &&
          message !== null &&
          (message as MessageLike).role === 'tool' &&
          Array.isArray((message as MessageLike).content),
      );
      const found = messages.flatMap((message) =>
        messageToItems(message).map((item) => itemEpisode(item, 'tool', run.turnId)),
      );
      if (typeof event.text === 'string' && event.text !== '') run.finalText = event.text;
      await this.endRun(run, this.answersIn(run, found));
    });
  }

  close(): Promise<void> {
    return this.serial(async () => {
      const run = this.run;
      if (run !== null && !run.ended && run.active === null) await this.endRun(run, []);
      this.throwBackgroundError();
    });
  }

  private async startRun(
    start: StepStart,
    system: string | undefined,
    input: readonly NewEpisode[],
  ): Promise<RunState> {
    const { session, runs, header, runtime, now, generateId } = this.settings;
    const runId = generateId();
    const turnId = generateId();
    let recorder: RunRecorder | null = null;
    if (runs !== undefined) {
      const invokeSeq = Math.max(session.invokeSeq, this.lastSeq);
      recorder = createRunRecorder({
        store: runs,
        runId,
        sessionId: session.id,
        now,
        generateId,
        ...(runtime === undefined ? {} : { runtime }),
        ...(invokeSeq > 0
          ? {
              resumeFrom: {
                schema_version: 1,
                session_id: session.id,
                updated_at: now().toISOString(),
                invoke_seq: invokeSeq,
                messages: [],
              },
            }
          : {}),
        header: {
          client: { name: '@episodic/ai-sdk', version: VERSION },
          model: { provider: start.provider, name: start.modelId },
          ...(system === undefined ? {} : { prompts: { system } }),
          ...(start.tools === undefined
            ? {}
            : { tools: { definitions: toJsonSafe(start.tools) as unknown[], source: 'ai-sdk' } }),
          ...header,
        },
      });
      const text = input
        .map(itemOf)
        .filter((item): item is InputItem => item?.type === 'message' && item.role === 'user')
        .map((item) => outputText([item]))
        .join('\n');
      await recorder.start(text, { meta: { turn_id: turnId } });
    }
    const run: RunState = {
      runId: recorder?.runId ?? runId,
      turnId,
      recorder,
      calls: new Map(),
      lastStep: 'new',
      failedInput: null,
      lastError: undefined,
      uncountedCalls: 0,
      committed: false,
      finalText: '',
      active: null,
      aborted: false,
      ended: false,
      signal: null,
      unwatch: null,
    };
    this.run = run;
    return run;
  }

  /** Commits what a finished run still holds (outputs it learned late) and writes its end. */
  private async endRun(run: RunState, answers: readonly NewEpisode[]): Promise<void> {
    if (run.ended) return;
    const late = [
      ...answers,
      // A failed last step's tool outputs happened; its user input is left for the retry.
      ...(run.lastStep === 'failed' ? (run.failedInput?.episodes ?? []).filter(isOutput) : []),
    ].map((episode) => ({ ...episode, meta: { ...episode.meta, turnId: run.turnId } }));
    for (const episode of answers) await this.recordToolOutput(run, episode);
    if (late.length > 0) {
      await this.commit(run, late);
      this.markAnswered(run, late);
    }
    if (run.lastStep === 'failed') await run.recorder?.fail(run.lastError);
    else await run.recorder?.complete(run.finalText === '' ? {} : { final: run.finalText });
    this.finish(run);
  }

  /**
   * Commits episodes of the run's turn, with the model calls not counted yet. A turn's episodes
   * stay together in the session: when another writer committed first, the turn's first commit
   * follows the other writer's episodes (the session catches up and commits again); a later one
   * does not, since the other writer's episodes would then split this turn's tool calls from their
   * outputs (providers reject that history). The session is then caught up, the run ends with the
   * `CONFLICT` and it is thrown.
   */
  private async commit(run: RunState, episodes: readonly NewEpisode[]): Promise<void> {
    const { session } = this.settings;
    try {
      await commitEpisodes(session, episodes, {
        runId: run.runId,
        modelCalls: run.uncountedCalls,
        onConflict: run.committed ? 'reload' : 'retry',
      });
    } catch (error) {
      if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
      const conflict = run.committed
        ? new EpisodicError({
            code: 'CONFLICT',
            message: `Session ${session.id} was changed by another writer while this AI SDK call was running. The call's earlier steps are in the session; committing the rest after the other writer's episodes would split its tool calls from their outputs, so it was not committed (run ${run.runId} records it and ends with this error). The session has been reloaded: the next call sees both writers' history. Call again to continue.`,
            details: { ...error.details, sessionId: session.id, runId: run.runId },
          })
        : error;
      run.active = null;
      await run.recorder?.fail(conflict).catch(() => undefined);
      this.finish(run);
      throw conflict;
    }
    run.committed = true;
    run.uncountedCalls = 0;
  }

  private finish(run: RunState): void {
    run.ended = true;
    run.unwatch?.();
    run.unwatch = null;
    if (this.run === run) this.run = null;
  }

  private watch(run: RunState, signal: AbortSignal | undefined): void {
    if (signal === undefined || run.signal === signal) return;
    run.unwatch?.();
    const onAbort = () => this.interruptRun(run, signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    run.signal = signal;
    run.unwatch = () => signal.removeEventListener('abort', onAbort);
  }

  /** Outputs among `episodes` that answer calls of `run` not answered yet. */
  private answersIn(run: RunState, episodes: readonly NewEpisode[]): NewEpisode[] {
    const seen = new Set<string>();
    return episodes.filter((episode) => {
      const item = itemOf(episode);
      if (item?.type !== 'function_call_output') return false;
      const callId = String(item.call_id);
      const call = run.calls.get(callId);
      if (call === undefined || call.answered || seen.has(callId)) return false;
      seen.add(callId);
      return true;
    });
  }

  private markAnswered(run: RunState, episodes: readonly NewEpisode[]): void {
    for (const episode of episodes) {
      const item = itemOf(episode);
      if (item?.type !== 'function_call_output') continue;
      const call = run.calls.get(String(item.call_id));
      if (call !== undefined) call.answered = true;
    }
  }

  /** Registers the client-side calls of an output; returns how many have no output yet. */
  private trackCalls(run: RunState, output: readonly InputItem[]): number {
    const answered = new Set(
      output
        .filter((item) => item.type === 'function_call_output')
        .map((item) => String(item.call_id)),
    );
    let pending = 0;
    for (const item of output) {
      if (item.type !== 'function_call' || answered.has(String(item.call_id))) continue;
      if (detailOf(item).providerExecuted === true) continue;
      run.calls.set(String(item.call_id), { name: String(item.name), answered: false });
      pending += 1;
    }
    return pending;
  }

  private stepEpisodes(
    step: RecordedStep,
    output: readonly InputItem[],
    outcome: StepOutcome | undefined,
  ): NewEpisode[] {
    const { turnId } = step.run;
    const usage = outcome === undefined ? null : toTurnUsage(outcome.usage);
    return [
      ...step.input,
      ...output.map((item) => itemEpisode(item, 'model', turnId)),
      ...(usage === null
        ? []
        : [
            {
              type: 'meta',
              meta: { source: 'runtime', turnId },
              payload: { event: 'turn.usage', data: usage },
            } satisfies NewEpisode,
          ]),
    ];
  }

  private async recordResponse(
    step: RecordedStep,
    output: readonly InputItem[],
    outcome: StepOutcome,
    partial: boolean,
  ): Promise<void> {
    const recorder = step.run.recorder;
    if (recorder === null || step.seq === null) return;
    const raw = rawFinishReason(outcome.finishReason);
    const providerMeta = toJsonSafe({
      ...(outcome.providerMetadata === undefined
        ? {}
        : { provider_metadata: outcome.providerMetadata }),
      ...(outcome.response === undefined ? {} : { response: outcome.response }),
    }) as Record<string, unknown>;
    await recorder.llmResponse({
      seq: step.seq,
      messages: itemsToMessages(output),
      usage: toLlmUsage(outcome.usage, step.start.modelId),
      stopReason: partial ? 'aborted' : unifiedFinishReason(outcome.finishReason),
      ...(Object.keys(providerMeta).length === 0 ? {} : { providerMeta }),
      ...(raw === undefined && !partial && (outcome.errors?.length ?? 0) === 0
        ? {}
        : {
            meta: {
              ...(raw === undefined ? {} : { finish_reason_raw: raw }),
              ...(partial ? { partial: true } : {}),
              ...((outcome.errors?.length ?? 0) > 0
                ? { errors: (outcome.errors ?? []).map(describeError) }
                : {}),
            },
          }),
    });
  }

  private async recordToolOutput(run: RunState, episode: NewEpisode): Promise<void> {
    const item = itemOf(episode);
    if (run.recorder === null || item?.type !== 'function_call_output') return;
    const detail = detailOf(item);
    const callId = String(item.call_id);
    await run.recorder.toolOutput({
      tool: detail.toolName ?? run.calls.get(callId)?.name ?? 'unknown',
      toolCallId: callId,
      resultRaw: toolOutputText({ output: item.output as string, detail }),
      ...(isErrorOutput(detail) ? { isError: true } : {}),
    });
  }
}
