import { z } from 'zod';
import {
  type AssembleOptions,
  assemble,
  assemblyOptionsShape,
  refineBudget,
} from '../assembly/assemble.js';
import type { AssemblyManifest } from '../assembly/manifest.js';
import { type AssemblyPlugin, pluginsSchema } from '../assembly/plugin.js';
import {
  createEpisodic,
  createEpisodicFromParsed,
  type Episodic,
} from '../episodic/create-episodic.js';
import { EpisodicError } from '../errors/episodic-error.js';
import { assertIdCarriesNoContent } from '../ledger/content-guard.js';
import { CHAT_MESSAGE_KEY } from '../messages/chat-message-marker.js';
import { lastUserMessageOfEpisodes } from '../messages/last-user-message.js';
import type {
  BoundaryEpisode,
  Episode,
  EpisodicQuery,
  NewEpisode,
  TurnUsage,
} from '../schema/episode.js';
import { type FunctionCallItem, type InputItem, inputItemSchema } from '../schema/input-item.js';
import { type EpisodeRunRange, type SessionDelta, uuidSchema } from '../schema/session-state.js';
import { addEpisodeRun } from '../store/episode-runs.js';
import {
  type SessionStore,
  type StoredSession,
  sessionEpisodes,
  takeFreshlyDecoded,
} from '../store/session-store.js';
import { frozenJsonCopy } from '../util/json.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { raceAbort, throwIfAborted, turnAbortedError } from './abortable.js';
import { countMessages, type MessageCut, noMessageCut } from './message-count.js';
import {
  type ModelCall,
  modelResponseSchema,
  type ToolExecutor,
  toolOutputSchema,
} from './model-call.js';
import { MutationQueue } from './mutation-queue.js';
import { buildSnapshot, carriedFields } from './session-snapshot.js';

/** The session context: a JSON object the agent keeps with the session (seed 000 `AgentContext`). */
export type SessionContext = Readonly<Record<string, unknown>>;

/**
 * Where a recorded run receives agent events (seed 001 `agent.event`). Structural, so any run
 * recorder with an `agentEvent` method fits.
 */
export interface SessionRecorder {
  /** Records one agent event, e.g. `{ type: 'compaction_start', … }`. */
  agentEvent(event: { type: string; [key: string]: unknown }): unknown | Promise<unknown>;
}

/** What `onCheckpoint` learns about a compaction checkpoint once it is committed. */
export interface CheckpointInfo {
  readonly sessionId: string;
  /** The committed `checkpoint` boundary; its payload holds the summary and `covers`. */
  readonly checkpoint: BoundaryEpisode;
  /** The first and last episode ids the summary covers (inclusive). */
  readonly covers: { readonly fromId: number; readonly toId: number };
  /** Every episode id the summary covers, ascending: the episodes to associate it with. */
  readonly episodeIds: readonly number[];
  /** The summary text. */
  readonly summary: string;
}

/** Called after a compaction checkpoint is committed (e.g. to store the summary as an artifact). */
export type CheckpointHook = (info: CheckpointInfo) => unknown | Promise<unknown>;

/** Assembly settings a session applies to every model call (per-call fields are the session's). */
export type SessionAssemblyOptions = Omit<
  AssembleOptions,
  'plugins' | 'turnId' | 'context' | 'signal'
>;

export interface SessionOptions {
  /** Where snapshots are saved; `createMemorySessionStore()` in tests. */
  store: SessionStore;
  /**
   * The session id (a UUID). A new session is saved at its first commit, which fails with
   * `CONFLICT` if the store already has this id: use `loadSession` to resume one.
   * @default generateId()
   */
  id?: string;
  /**
   * The initial context (a JSON object).
   * @default {}
   */
  context?: Record<string, unknown>;
  /** Plugins whose `extendInput` adds temporary input to every model call. */
  plugins?: readonly AssemblyPlugin[];
  /**
   * How model input is assembled (start, budget, normalization).
   * @default {} (start at the last checkpoint, no budget, synthesize dangling calls)
   */
  assembly?: SessionAssemblyOptions;
  /** Runs the tool calls the model makes; without it a turn ends at the first unanswered call. */
  executeTool?: ToolExecutor;
  /**
   * The most model calls one turn may make (one per round of tool calls).
   * @default 10
   */
  maxModelCalls?: number;
  /** Receives compaction agent events when a run is being recorded. */
  recorder?: SessionRecorder;
  /** Called after every compaction checkpoint is committed. */
  onCheckpoint?: CheckpointHook;
  /**
   * The clock for episode timestamps and `updated_at`.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Generates session ids (must be UUIDs) and turn ids.
   * @default () => globalThis.crypto.randomUUID()
   */
  generateId?: () => string;
}

/** A read-only view of the committed log. `fork()` gives an independent, appendable copy in O(1). */
export type ReadonlyEpisodic = Pick<Episodic, 'read' | 'toJSONL' | 'fork' | 'size' | 'lastId'>;

/** The input of a turn: text (a user message), one item, or several items. */
export type TurnInput = string | InputItem | readonly InputItem[];

export interface RunTurnOptions {
  /**
   * The turn id stamped on every episode of the turn.
   * @default generateId()
   */
  turnId?: string;
  /** Aborts the turn like `abort()` (no interrupt boundary). */
  signal?: AbortSignal;
  /** The run recording this turn; saved as the snapshot's `run_id`. */
  runId?: string;
  /**
   * Overrides the session's `executeTool` for this turn.
   * @default the session's executeTool
   */
  executeTool?: ToolExecutor;
  /**
   * Overrides the session's `maxModelCalls` for this turn.
   * @default the session's maxModelCalls
   */
  maxModelCalls?: number;
}

/**
 * Why a turn ended: the model answered without calling tools (`completed`), it called tools and
 * there is no `executeTool` (`tool-calls-pending`), or it hit `maxModelCalls`. In the last two
 * cases the unanswered calls are committed as they are; the next assembly heals them.
 */
export type TurnStopReason = 'completed' | 'tool-calls-pending' | 'max-model-calls';

/** A committed turn. */
export interface TurnResult {
  readonly turnId: string;
  readonly stopReason: TurnStopReason;
  /** What the model and the tools produced in this turn, in order. */
  readonly items: readonly InputItem[];
  /** The last model call's usage, when the provider reported it. */
  readonly usage?: TurnUsage;
  /** One manifest per model call, in order: what each call was sent and why. */
  readonly manifests: readonly AssemblyManifest[];
  /** The episodes this turn added to the committed log (input, output, tool outputs, usage). */
  readonly episodes: readonly Episode[];
  /** The session revision this commit saved. */
  readonly revision: number;
}

/** What `interrupt()` did. */
export interface InterruptResult {
  /** False when no turn was running (or it was already committing): nothing was written. */
  readonly interrupted: boolean;
  /** The interrupted turn. */
  readonly turnId: string | null;
  /** The `interrupt` boundary appended to the committed log. */
  readonly boundary: BoundaryEpisode | null;
  /** The turn's episodes committed before the boundary (`keep: 'partial'`); empty otherwise. */
  readonly kept: readonly Episode[];
}

export interface InterruptOptions {
  /**
   * What of the interrupted turn to commit. `'boundary'` (seed 000): only the interrupt boundary;
   * the turn's input and output are discarded. `'partial'`: the turn's input and everything it
   * produced so far (model output, finished tool outputs), then the boundary, in one commit. A
   * tool call that was still running stays without an output in the log; the next assembly heals
   * it (see `danglingCalls`), so the model learns exactly which call did not finish.
   * @default 'boundary'
   */
  keep?: 'boundary' | 'partial';
}

export interface ForkSessionOptions {
  /**
   * The new session's id (a UUID, different from this one).
   * @default generateId()
   */
  id?: string;
  /**
   * The new session's context.
   * @default this session's context
   */
  context?: Record<string, unknown>;
}

/**
 * A conversation: a committed episodic log and a context, saved as a `SessionState` snapshot.
 * Turns run against a working fork and merge only on success. Mutations (turns, interrupt
 * boundaries, compaction, context saves, `clear`, `remove`) run one at a time in call order.
 */
export interface Session {
  /** The session id (a UUID). */
  readonly id: string;
  /** The revision of the last commit (0 before the first). Every commit adds one. */
  readonly revision: number;
  /** The current context (frozen). */
  readonly context: SessionContext;
  /** The committed log, read-only. */
  readonly log: ReadonlyEpisodic;
  /** The current turn: the one running now, else the next one waiting to run, else null. */
  readonly activeTurnId: string | null;
  /** The number of model calls made so far (seed 001 `invoke_seq`). */
  readonly invokeSeq: number;
  /**
   * Runs one turn: forks the committed log, appends the input (source `user`), calls the model
   * (and `executeTool` for its calls, round after round), and on success merges the turn's
   * episodes into the committed log and saves a snapshot. On failure or abort nothing is
   * committed. Rejects with `ABORTED` when interrupted or aborted, with `CONFLICT` when another
   * writer committed first, and with the model's or tool's own error when they throw.
   */
  runTurn(input: TurnInput, modelCall: ModelCall, options?: RunTurnOptions): Promise<TurnResult>;
  /**
   * Aborts the running turn and appends an `interrupt` boundary to the committed log (saved), so
   * the next turn sees that the previous one was interrupted. `reason` becomes the boundary's
   * content. Resolves once the boundary is committed; with no running turn it does nothing.
   * With `keep: 'partial'` the turn's work so far is committed before the boundary.
   */
  interrupt(reason?: string, options?: InterruptOptions): Promise<InterruptResult>;
  /** Aborts the running turn without a boundary; resolves true once it has been discarded. */
  abort(): Promise<boolean>;
  /**
   * A new session with this session's committed history (never an in-flight turn), in O(1).
   * It shares this session's store and options and is saved at its first commit.
   */
  fork(options?: ForkSessionOptions): Session;
  /**
   * Updates the context now (a patch is merged shallowly; a function returns the whole new
   * context) and saves it. An update during a running turn survives that turn's commit.
   * Resolves with the revision that saved it.
   */
  updateContext(
    update: Record<string, unknown> | ((current: SessionContext) => Record<string, unknown>),
  ): Promise<number>;
  /** Empties the committed log (the context stays) and saves. Waits for a running turn. */
  clear(): Promise<number>;
  /**
   * Aborts a running turn, deletes the snapshot and closes the session: later calls fail with
   * `NOT_FOUND`. Resolves false when the store had no snapshot.
   */
  remove(): Promise<boolean>;
}

/** What `compact` needs from a session; not part of the public API. */
export interface SessionInternals {
  readonly id: string;
  readonly recorder: SessionRecorder | undefined;
  readonly onCheckpoint: CheckpointHook | undefined;
  readonly revision: number;
  /** The session's clock. */
  readonly now: () => Date;
  committed(): Episodic;
  assertOpen(): void;
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  appendCommitted(
    episodes: readonly NewEpisode[],
    options?: { runId?: string; modelCalls?: number },
  ): Promise<Episode[]>;
  /** Catches up with the store in place (call inside `exclusive`); `NOT_FOUND` when deleted. */
  reload(): Promise<void>;
}

const internals = new WeakMap<object, SessionInternals>();

/** The internals of a session made by `createSession`, `loadSession` or `fork`. */
export function sessionInternals(session: unknown, subject: string): SessionInternals {
  const found =
    typeof session === 'object' && session !== null ? internals.get(session) : undefined;
  if (found === undefined) {
    throw invalidField(
      subject,
      'session',
      session,
      'must be a session from createSession, loadSession or fork()',
    );
  }
  return found;
}

const DEFAULT_MAX_MODEL_CALLS = 10;
const MAX_MODEL_CALLS_LIMIT = 1000;

const isFunction = (what: string) =>
  z.custom<(...args: never[]) => unknown>(
    (value) => typeof value === 'function',
    `must be a function (${what})`,
  );

export const storeSchema = z.custom<SessionStore>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SessionStore).load === 'function' &&
    typeof (value as SessionStore).save === 'function' &&
    typeof (value as SessionStore).delete === 'function',
  'must be a SessionStore (createMemorySessionStore() or a store package)',
);

const contextSchema = z.record(z.string(), z.unknown());

/** A session id: a UUID (seed 001 uses UUIDv4). */
export const sessionIdSchema = z
  .string()
  .refine(
    (value) => uuidSchema.safeParse(value).success,
    'must be a UUID, e.g. from crypto.randomUUID()',
  );

/** Options shared by `createSession` and `loadSession` (everything but store, id and context). */
export const sessionBehaviourShape = {
  plugins: pluginsSchema.optional(),
  assembly: z.strictObject(assemblyOptionsShape).superRefine(refineBudget).optional(),
  executeTool: isFunction('call, context → output').optional(),
  maxModelCalls: z.number().int().min(1).max(MAX_MODEL_CALLS_LIMIT).optional(),
  recorder: z
    .custom<SessionRecorder>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as SessionRecorder).agentEvent === 'function',
      'must have an agentEvent(event) method',
    )
    .optional(),
  onCheckpoint: isFunction('info → void').optional(),
  now: isFunction('() → Date').optional(),
  generateId: isFunction('() → string').optional(),
};

const sessionOptionsSchema = z.strictObject({
  store: storeSchema,
  id: sessionIdSchema.optional(),
  context: contextSchema.optional(),
  ...sessionBehaviourShape,
});

/** Text, one item or several; each shape is checked on its own so errors name the real problem. */
function parseTurnInput(input: unknown): InputItem[] {
  const subject = 'runTurn input';
  if (typeof input === 'string') {
    parseInput(z.string().min(1), input, subject);
    return [{ type: 'message', role: 'user', content: input }];
  }
  if (Array.isArray(input)) return parseInput(z.array(inputItemSchema), input, subject);
  if (typeof input === 'object' && input !== null)
    return [parseInput(inputItemSchema, input, subject)];
  throw invalidField(
    subject,
    '(root)',
    input,
    'must be text, an input item or an array of input items',
  );
}

const runTurnOptionsSchema = z
  .strictObject({
    turnId: z.string().min(1).max(200).optional(),
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal')
      .optional(),
    runId: z.string().min(1).max(200).optional(),
    executeTool: isFunction('call, context → output').optional(),
    maxModelCalls: z.number().int().min(1).max(MAX_MODEL_CALLS_LIMIT).optional(),
  })
  .optional();

const forkOptionsSchema = z
  .strictObject({ id: sessionIdSchema.optional(), context: contextSchema.optional() })
  .optional();

const updateSchema = z.union([contextSchema, isFunction('current context → new context')]);

/** The settings a session runs with, after validation. */
export interface SessionConfig {
  readonly store: SessionStore;
  readonly plugins: readonly AssemblyPlugin[];
  readonly assembly: SessionAssemblyOptions;
  readonly executeTool: ToolExecutor | undefined;
  readonly maxModelCalls: number;
  readonly recorder: SessionRecorder | undefined;
  readonly onCheckpoint: CheckpointHook | undefined;
  readonly now: () => Date;
  readonly generateId: () => string;
}

/** The state a session starts from. */
export interface SessionSeed {
  readonly id: string;
  readonly committed: Episodic;
  readonly context: SessionContext;
  /** The stored revision, or null when the session has never been saved. */
  readonly revision: number | null;
  readonly invokeSeq: number;
  readonly carried: Readonly<Record<string, unknown>>;
  /** The run of each range of the committed log's episodes (the stored `episode_runs`). */
  readonly episodeRuns?: readonly EpisodeRunRange[];
  /**
   * False when the stored base is an older format (a version 1 or seed 001 snapshot): the next
   * commit then folds, so the session is stored as a current base from then on.
   * @default true
   */
  readonly baseCurrent?: boolean;
}

/** Validates the behaviour options shared by `createSession` and `loadSession`. */
export function toSessionConfig(
  options: z.output<z.ZodObject<typeof sessionBehaviourShape>> & { store: SessionStore },
): SessionConfig {
  return {
    store: options.store,
    plugins: options.plugins ?? [],
    assembly: (options.assembly ?? {}) as SessionAssemblyOptions,
    executeTool: options.executeTool as ToolExecutor | undefined,
    maxModelCalls: options.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS,
    recorder: options.recorder,
    onCheckpoint: options.onCheckpoint as CheckpointHook | undefined,
    now: (options.now as (() => Date) | undefined) ?? (() => new Date()),
    generateId:
      (options.generateId as (() => string) | undefined) ?? (() => globalThis.crypto.randomUUID()),
  };
}

/** A JSON-safe, frozen copy of a context, or a `VALIDATION_ERROR` naming the field. */
export function freezeContext(value: unknown, subject: string): SessionContext {
  const parsed = parseInput(contextSchema, value, subject);
  return frozenJsonCopy(parsed, subject);
}

/**
 * The starting state of a stored session (what `loadSession` opens and a reload catches up to):
 * the committed log from the base and the commits since, the context, the revision, seed 001's
 * `invoke_seq` and the fields a session carries over.
 */
export function storedSessionSeed(stored: StoredSession, now: () => Date): SessionSeed {
  const { state } = stored;
  return {
    id: state.session_id,
    // Episodes a store just decoded are handed over: no defensive copy (the load's largest cost).
    committed: takeFreshlyDecoded(stored)
      ? createEpisodicFromParsed(sessionEpisodes(stored), { now })
      : createEpisodic(sessionEpisodes(stored), { now }),
    context: freezeContext(state.context ?? {}, `context of stored session ${state.session_id}`),
    revision: state.revision ?? 0,
    invokeSeq: typeof state.invoke_seq === 'number' ? state.invoke_seq : 0,
    carried: carriedFields(state),
    episodeRuns: state.episode_runs ?? [],
    baseCurrent: stored.base.log !== null && 'episodes' in stored.base.log,
  };
}

/** A fresh session id from `generateId`, checked to be a UUID. */
export function newSessionId(generateId: () => string, subject: string): string {
  const id = generateId();
  if (!uuidSchema.safeParse(id).success) {
    throw invalidField(subject, 'generateId', id, 'must return a UUID for a session id');
  }
  return id;
}

/**
 * Creates a new session with an empty committed log. Nothing is stored until the first commit
 * (a turn, an interrupt, a compaction, a context update or `clear`).
 */
export function createSession(options: SessionOptions): Session {
  const parsed = parseInput(sessionOptionsSchema, options, 'createSession options');
  const config = toSessionConfig(parsed);
  const context = freezeContext(parsed.context ?? {}, 'createSession options.context');
  const id = parsed.id ?? newSessionId(config.generateId, 'createSession options');
  return openSession(config, {
    id,
    committed: createEpisodic(undefined, { now: config.now }),
    context,
    revision: null,
    invokeSeq: 0,
    carried: {},
  });
}

/** Builds a session object from validated settings and a starting state. */
export function openSession(config: SessionConfig, seed: SessionSeed): Session {
  const session = new SessionImpl(config, seed);
  internals.set(session, session.internals());
  return session;
}

interface ActiveTurn {
  readonly turnId: string;
  readonly controller: AbortController;
  /** Set once the commit has started: from then on the turn can no longer be aborted. */
  committing: boolean;
  /** Set once the turn's failure path has run: a late interrupt() finds nothing to do. */
  finished: boolean;
  interrupt: {
    reason: string | undefined;
    keep: 'boundary' | 'partial';
    promise: Promise<InterruptResult>;
  } | null;
  resolveInterrupt: ((result: InterruptResult) => void) | null;
  rejectInterrupt: ((error: unknown) => void) | null;
  readonly settled: Promise<void>;
  markSettled(): void;
}

const INTERRUPT_TITLE = 'turn interrupted';
const INTERRUPT_CONTENT =
  'The previous turn was interrupted before it finished: its input and output were discarded, and tools it called may have partially run.';
const INTERRUPT_PARTIAL_CONTENT =
  'The previous turn was interrupted before it finished: its input and the output produced so far were kept; a tool call without an output did not finish and may have partially run.';

const interruptOptionsSchema = z
  .strictObject({ keep: z.enum(['boundary', 'partial']).optional() })
  .optional();

function pendingCalls(output: readonly InputItem[]): FunctionCallItem[] {
  const answered = new Set<string>();
  for (const item of output) {
    if (item.type === 'function_call_output') answered.add(String(item.call_id));
  }
  return output.filter(
    (item): item is FunctionCallItem =>
      item.type === 'function_call' && !answered.has(String(item.call_id)),
  );
}

class SessionImpl implements Session {
  readonly id: string;
  readonly log: ReadonlyEpisodic;
  private readonly config: SessionConfig;
  private committedLog: Episodic;
  private committedRevision: number;
  private saved: boolean;
  private baseCurrent: boolean;
  private contextValue: SessionContext;
  /** The context as last committed (a commit stores the context only when it changed). */
  private committedContext: SessionContext;
  /** Seed 001's `last_user_message` of the committed log, once a commit needed it. */
  private lastUserText: { value: string | undefined } | undefined;
  /** Where the committed log's seed 001 messages stop changing (see `countMessages`). */
  private messageCut: MessageCut = noMessageCut();
  private carried: Record<string, unknown>;
  /** The stored `episode_runs` as of the last commit (each commit adds its own in place). */
  private episodeRuns: EpisodeRunRange[];
  private invokeCount: number;
  private readonly queue = new MutationQueue();
  /** Turns in call order: the first is running or next to run; later ones wait behind it. */
  private readonly turns: ActiveTurn[] = [];
  private removing = false;
  private removed = false;

  constructor(config: SessionConfig, seed: SessionSeed) {
    this.config = config;
    this.id = seed.id;
    this.committedLog = seed.committed;
    this.committedRevision = seed.revision ?? 0;
    this.saved = seed.revision !== null;
    this.baseCurrent = seed.baseCurrent ?? true;
    this.contextValue = seed.context;
    this.committedContext = seed.context;
    this.carried = { ...seed.carried };
    this.episodeRuns = [...(seed.episodeRuns ?? [])];
    this.invokeCount = seed.invokeSeq;
    const self = this;
    this.log = Object.freeze({
      read: (query?: EpisodicQuery) => self.committedLog.read(query),
      toJSONL: () => self.committedLog.toJSONL(),
      fork: () => self.committedLog.fork(),
      get size() {
        return self.committedLog.size;
      },
      get lastId() {
        return self.committedLog.lastId;
      },
    });
  }

  get revision(): number {
    return this.committedRevision;
  }

  get context(): SessionContext {
    return this.contextValue;
  }

  get activeTurnId(): string | null {
    return this.turns[0]?.turnId ?? null;
  }

  get invokeSeq(): number {
    return this.invokeCount;
  }

  internals(): SessionInternals {
    const self = this;
    return {
      id: this.id,
      recorder: this.config.recorder,
      onCheckpoint: this.config.onCheckpoint,
      now: this.config.now,
      get revision() {
        return self.committedRevision;
      },
      committed: () => this.committedLog,
      assertOpen: () => this.assertOpen(),
      exclusive: (task) => this.exclusive(task),
      appendCommitted: (episodes, options) => this.appendCommitted(episodes, options),
      reload: () => this.reload(),
    };
  }

  async runTurn(
    input: TurnInput,
    modelCall: ModelCall,
    options?: RunTurnOptions,
  ): Promise<TurnResult> {
    const items = parseTurnInput(input);
    parseInput(isFunction('request → response'), modelCall, 'runTurn modelCall');
    const settings = parseInput(runTurnOptionsSchema, options, 'runTurn options') ?? {};
    // Checked again by the store at commit; here, before any model call is spent.
    assertIdCarriesNoContent(settings.runId, 'runId', 'runTurn options');
    this.assertOpen();
    // Registered now, not when it starts: interrupt() right after runTurn() must reach it.
    const turn = this.registerTurn(settings.turnId ?? this.config.generateId(), settings.signal);
    return this.queue.run(async () => {
      try {
        this.assertOpen();
        return await this.executeTurn(turn, items, modelCall, settings);
      } finally {
        this.releaseTurn(turn);
      }
    });
  }

  async interrupt(reason?: string, options?: InterruptOptions): Promise<InterruptResult> {
    const text = parseInput(z.string().min(1).max(10_000).optional(), reason, 'interrupt reason');
    const keep =
      parseInput(interruptOptionsSchema, options, 'interrupt options')?.keep ?? 'boundary';
    this.assertOpen();
    const turn = this.turns[0];
    if (turn === undefined || turn.committing || turn.finished) {
      return { interrupted: false, turnId: null, boundary: null, kept: [] };
    }
    if (turn.interrupt !== null) return turn.interrupt.promise;
    const promise = new Promise<InterruptResult>((resolve, reject) => {
      turn.resolveInterrupt = resolve;
      turn.rejectInterrupt = reject;
    });
    turn.interrupt = { reason: text, keep, promise };
    turn.controller.abort(turnAbortedError(this.id, turn.turnId, 'interrupted', text));
    return promise;
  }

  async abort(): Promise<boolean> {
    this.assertOpen();
    const turn = this.turns[0];
    if (turn === undefined || turn.committing || turn.finished) return false;
    turn.controller.abort(turnAbortedError(this.id, turn.turnId, 'aborted'));
    await turn.settled;
    return true;
  }

  fork(options?: ForkSessionOptions): Session {
    const settings = parseInput(forkOptionsSchema, options, 'fork options') ?? {};
    this.assertOpen();
    const id = settings.id ?? newSessionId(this.config.generateId, 'fork options');
    if (id.toLowerCase() === this.id.toLowerCase()) {
      throw invalidField('fork options', 'id', id, 'must differ from the source session id');
    }
    const context =
      settings.context === undefined
        ? this.contextValue
        : freezeContext(settings.context, 'fork options.context');
    // O(1): the fork reads a frozen prefix of this session's committed log (an in-flight turn
    // lives in its own working fork and is never part of it).
    return openSession(this.config, {
      id,
      committed: this.committedLog.fork(),
      context,
      revision: null,
      invokeSeq: 0,
      carried: {},
    });
  }

  async updateContext(
    update: Record<string, unknown> | ((current: SessionContext) => Record<string, unknown>),
  ): Promise<number> {
    parseInput(updateSchema, update, 'updateContext update');
    this.assertOpen();
    const next =
      typeof update === 'function'
        ? freezeContext(update(this.contextValue), 'context returned by the updateContext function')
        : freezeContext({ ...this.contextValue, ...update }, 'updateContext update');
    // Applied now, so a running turn's model calls and commit already see it; saved in order.
    this.contextValue = next;
    return this.exclusive(() => this.persist(this.committedLog));
  }

  async clear(): Promise<number> {
    this.assertOpen();
    return this.exclusive(async () => {
      const empty = createEpisodic(undefined, { now: this.config.now });
      const revision = await this.persist(empty, undefined, true);
      this.committedLog = empty;
      return revision;
    });
  }

  async remove(): Promise<boolean> {
    if (this.removed || this.removing) return false;
    this.removing = true;
    const turn = this.turns[0];
    if (turn !== undefined && !turn.committing && !turn.finished) {
      turn.controller.abort(turnAbortedError(this.id, turn.turnId, 'aborted', 'session removed'));
    }
    return this.queue.run(async () => {
      try {
        const deleted = await this.config.store.delete(this.id);
        this.removed = true;
        return deleted;
      } catch (error) {
        this.removing = false;
        throw error;
      }
    });
  }

  private assertOpen(): void {
    if (this.removed || this.removing) {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `Session ${this.id} was removed; nothing was changed. Create a new session or load another one.`,
        details: { sessionId: this.id },
      });
    }
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.assertOpen();
      return task();
    });
  }

  private async executeTurn(
    turn: ActiveTurn,
    input: readonly InputItem[],
    modelCall: ModelCall,
    settings: NonNullable<z.output<typeof runTurnOptionsSchema>>,
  ): Promise<TurnResult> {
    const { turnId } = turn;
    const executeTool =
      (settings.executeTool as ToolExecutor | undefined) ?? this.config.executeTool;
    const maxModelCalls = settings.maxModelCalls ?? this.config.maxModelCalls;
    const { signal } = turn.controller;
    const startId = this.committedLog.lastId;
    const working = this.committedLog.fork();
    const meta = (source: 'model' | 'tool' | 'user' | 'runtime') => ({ source, turnId });
    try {
      throwIfAborted(signal);
      working.appendItems(input, meta('user'));
      const produced: InputItem[] = [];
      const manifests: AssemblyManifest[] = [];
      let usage: TurnUsage | undefined;
      let stopReason: TurnStopReason = 'completed';
      for (let round = 0; ; round++) {
        const assembled = await raceAbort(
          () =>
            assemble(working, {
              ...this.config.assembly,
              plugins: this.config.plugins,
              turnId,
              context: this.contextValue,
              signal,
            }),
          signal,
        );
        manifests.push(assembled.manifest);
        this.invokeCount += 1;
        const request = {
          sessionId: this.id,
          turnId,
          round,
          invokeSeq: this.invokeCount,
          items: assembled.items,
          manifest: assembled.manifest,
          context: this.contextValue,
          signal,
        };
        const response = parseInput(
          modelResponseSchema,
          await raceAbort(() => modelCall(request), signal),
          'model response',
        );
        throwIfAborted(signal);
        working.appendItems(response.output, meta('model'));
        produced.push(...response.output);
        if (response.usage) {
          usage = response.usage;
          working.append({
            type: 'meta',
            meta: meta('runtime'),
            payload: { event: 'turn.usage', data: response.usage },
          });
        }
        const pending = pendingCalls(response.output);
        if (pending.length === 0) break;
        if (executeTool === undefined) {
          stopReason = 'tool-calls-pending';
          break;
        }
        if (round + 1 >= maxModelCalls) {
          stopReason = 'max-model-calls';
          break;
        }
        for (const call of pending) {
          const result = await raceAbort(
            () =>
              executeTool(call, { sessionId: this.id, turnId, context: this.contextValue, signal }),
            signal,
          );
          const checked = toolOutputSchema.safeParse(result);
          if (!checked.success) {
            throw invalidField(
              `output of tool ${call.name} (call ${call.call_id})`,
              'executeTool result',
              result,
              'must be a string, an array of content parts ({ type, … }) or { output, outputRef? }',
            );
          }
          const { output, outputRef } =
            typeof checked.data === 'string' || Array.isArray(checked.data)
              ? { output: checked.data, outputRef: undefined }
              : checked.data;
          // The output_ref the run file gave this output, for the seed 001 tool message.
          const outputItem: InputItem = {
            type: 'function_call_output',
            call_id: call.call_id,
            output,
            ...(outputRef === undefined
              ? {}
              : { [CHAT_MESSAGE_KEY]: { fields: { output_ref: outputRef } } }),
          };
          working.appendItems([outputItem], meta('tool'));
          produced.push(outputItem);
        }
      }
      throwIfAborted(signal);
      turn.committing = true;
      const revision = await this.persist(working, settings.runId);
      const episodes = this.merge(working, startId);
      return {
        turnId,
        stopReason,
        items: produced,
        ...(usage === undefined ? {} : { usage }),
        manifests,
        episodes,
        revision,
      };
    } catch (error) {
      if (!signal.aborted || turn.committing) throw error;
      turn.finished = true;
      if (turn.interrupt !== null) await this.commitInterrupt(turn, working, startId);
      throw signal.reason;
    }
  }

  private registerTurn(turnId: string, external: AbortSignal | undefined): ActiveTurn {
    const controller = new AbortController();
    let markSettled = () => {};
    const settled = new Promise<void>((resolve) => {
      markSettled = resolve;
    });
    const turn: ActiveTurn = {
      turnId,
      controller,
      committing: false,
      finished: false,
      interrupt: null,
      resolveInterrupt: null,
      rejectInterrupt: null,
      settled,
      markSettled: () => {},
    };
    if (external !== undefined) {
      const onAbort = () =>
        controller.abort(turnAbortedError(this.id, turnId, 'aborted', 'its signal fired'));
      if (external.aborted) onAbort();
      else external.addEventListener('abort', onAbort, { once: true });
      turn.markSettled = () => {
        external.removeEventListener('abort', onAbort);
        markSettled();
      };
    } else {
      turn.markSettled = markSettled;
    }
    this.turns.push(turn);
    return turn;
  }

  private releaseTurn(turn: ActiveTurn): void {
    const index = this.turns.indexOf(turn);
    if (index >= 0) this.turns.splice(index, 1);
    // Settles an interrupt() whose turn never got to write its boundary (e.g. the session was
    // removed first); a no-op when the boundary path already settled it.
    turn.resolveInterrupt?.({ interrupted: false, turnId: turn.turnId, boundary: null, kept: [] });
    turn.markSettled();
  }

  /**
   * Commits the interrupt boundary of an interrupted turn (after the turn's work so far with
   * `keep: 'partial'`) and settles `interrupt()`'s promise.
   */
  private async commitInterrupt(
    turn: ActiveTurn,
    working: Episodic,
    startId: number,
  ): Promise<void> {
    const keep = turn.interrupt?.keep ?? 'boundary';
    const reason = turn.interrupt?.reason;
    const boundary: NewEpisode = {
      type: 'boundary',
      meta: { source: 'runtime', turnId: turn.turnId },
      payload: {
        reason: 'interrupt',
        title: INTERRUPT_TITLE,
        content: reason ?? (keep === 'partial' ? INTERRUPT_PARTIAL_CONTENT : INTERRUPT_CONTENT),
      },
    };
    try {
      let committed: Episode[];
      if (keep === 'partial') {
        working.append(boundary);
        await this.persist(working);
        committed = this.merge(working, startId);
      } else {
        committed = await this.appendCommitted([boundary]);
      }
      turn.resolveInterrupt?.({
        interrupted: true,
        turnId: turn.turnId,
        boundary: committed[committed.length - 1] as BoundaryEpisode,
        kept: committed.slice(0, -1),
      });
    } catch (error) {
      turn.rejectInterrupt?.(error);
    }
  }

  /**
   * Appends episodes to the committed log through a working fork: saved first, merged after.
   * `modelCalls` advances the invocation count (a framework's own model calls, see
   * `commitEpisodes`); it moves back when the save fails, so a failed commit changes nothing.
   */
  private async appendCommitted(
    episodes: readonly NewEpisode[],
    options: { runId?: string; modelCalls?: number } = {},
  ): Promise<Episode[]> {
    const startId = this.committedLog.lastId;
    const working = this.committedLog.fork();
    for (const episode of episodes) working.append(episode);
    const invokeCount = this.invokeCount;
    this.invokeCount += options.modelCalls ?? 0;
    try {
      await this.persist(working, options.runId);
    } catch (error) {
      this.invokeCount = invokeCount;
      throw error;
    }
    return this.merge(working, startId);
  }

  /**
   * Brings the session up to date with its store, in place: the committed log, context, revision
   * and seed 001 fields as the store now holds them (commits other writers made since this
   * session's revision included). A context update applied but not committed yet is kept (its
   * commit follows). Runs inside the mutation queue, so no turn is running.
   */
  private async reload(): Promise<void> {
    const stored = await this.config.store.read(this.id);
    if (stored === null) {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `Session ${this.id} is no longer in the ${this.config.store.name} store: another writer deleted it. Create a new session.`,
        details: { sessionId: this.id, store: this.config.store.name },
      });
    }
    const seed = storedSessionSeed(stored, this.config.now);
    this.committedLog = seed.committed;
    this.committedRevision = seed.revision ?? 0;
    this.saved = true;
    this.baseCurrent = seed.baseCurrent ?? true;
    if (this.contextValue === this.committedContext) this.contextValue = seed.context;
    this.committedContext = seed.context;
    this.carried = { ...seed.carried };
    this.episodeRuns = [...(seed.episodeRuns ?? [])];
    this.invokeCount = seed.invokeSeq;
    this.lastUserText = undefined;
    this.messageCut = noMessageCut();
  }

  /**
   * Commits `log` as the next revision, expecting the revision this session last committed: one
   * delta with the episodes it holds beyond the committed log (all of them after `reset`, which
   * empties the log first), the context when it changed, and the run and invocation counters. Its
   * cost is the new episodes', whatever the session's size; the store builds a whole base only
   * for a new session or to fold. Only after the store accepted it does the in-memory state move
   * on, so a `CONFLICT` or a storage failure leaves the session exactly as it was.
   */
  private async persist(log: Episodic, runId?: string, reset = false): Promise<number> {
    const revision = this.committedRevision + 1;
    const invokeSeq =
      this.invokeCount > 0 || this.carried.invoke_seq !== undefined ? this.invokeCount : undefined;
    const carried = {
      ...this.carried,
      ...(runId === undefined ? {} : { run_id: runId }),
      ...(invokeSeq === undefined ? {} : { invoke_seq: invokeSeq }),
    };
    const now = this.config.now();
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw invalidField('session options', 'now', now, 'must return a valid Date');
    }
    const updatedAt = now.toISOString();
    const context = this.contextValue;
    const episodes = log.read({ fromId: reset ? 0 : this.committedLog.lastId });
    // Carried by every commit, so a session list shows it from the last commit alone.
    let lastUser = lastUserMessageOfEpisodes(episodes);
    if (lastUser === undefined && !reset) {
      this.lastUserText ??= {
        value: lastUserMessageOfEpisodes(this.committedLog.read({ fromId: 0 })),
      };
      lastUser = this.lastUserText.value;
    }
    // The message count too, so a session list shows one state (its latest) from the last commit.
    const messages = countMessages(log, reset ? noMessageCut() : this.messageCut);
    const delta: SessionDelta = {
      revision,
      updated_at: updatedAt,
      ...(reset ? { reset: true } : {}),
      ...(episodes.length === 0 ? {} : { episodes: episodes.slice() }),
      ...(context === this.committedContext ? {} : { context: { ...context } }),
      ...(runId === undefined ? {} : { run_id: runId }),
      ...(invokeSeq === undefined || invokeSeq === this.carried.invoke_seq
        ? {}
        : { invoke_seq: invokeSeq }),
      episode_count: log.size,
      message_count: messages.count,
      ...(lastUser === undefined ? {} : { last_user_message: lastUser }),
    };
    await this.config.store.commit({
      sessionId: this.id,
      expectedRevision: this.saved ? this.committedRevision : null,
      delta,
      base: () => {
        // The runs of the commits before this one, and this one's (as a fold of the deltas adds it).
        const episodeRuns = this.episodeRuns.slice();
        addEpisodeRun(episodeRuns, delta);
        return buildSnapshot({
          sessionId: this.id,
          log,
          context,
          revision,
          updatedAt,
          carried,
          episodeRuns,
        });
      },
      fold: !this.baseCurrent,
    });
    this.committedRevision = revision;
    this.saved = true;
    this.baseCurrent = true;
    this.carried = carried;
    this.committedContext = context;
    this.lastUserText = { value: lastUser };
    this.messageCut = messages.advance();
    addEpisodeRun(this.episodeRuns, delta);
    return revision;
  }

  /** Copies the working log's new episodes (ids above `startId`) into the committed log. */
  private merge(working: Episodic, startId: number): Episode[] {
    const merged: Episode[] = [];
    for (const episode of working.read({ fromId: startId })) {
      const stored = this.committedLog.append({
        type: episode.type,
        meta: episode.meta,
        payload: episode.payload,
        ...(episode.metadata === undefined ? {} : { metadata: episode.metadata }),
      } as NewEpisode);
      if (stored.id !== episode.id) {
        throw new EpisodicError({
          code: 'INTERNAL_ERROR',
          message: `Merging a turn into session ${this.id} gave episode ${episode.id} the id ${stored.id}; mutations must be serialized. Please report this bug.`,
          details: { sessionId: this.id, expected: episode.id, actual: stored.id },
        });
      }
      merged.push(stored);
    }
    return merged;
  }
}
