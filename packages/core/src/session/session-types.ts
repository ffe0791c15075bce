// The public types of a session: its options, its turns, its interrupts and the `Session` itself.
import type { AssembleOptions } from '../assembly/assemble.js';
import type { AssemblyManifest } from '../assembly/manifest.js';
import type { AssemblyPlugin } from '../assembly/plugin.js';
import type { Episodic } from '../episodic/create-episodic.js';
import type { BoundaryEpisode, Episode, TurnUsage } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import type { SessionStore } from '../store/session-store.js';
import type { ModelCall, ToolExecutor } from './model-call.js';

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
