// The writer of a session: it owns the committed log, the revision, the mutation order, the
// commit to the store and the reload from it. Everything that changes a session goes through it.
import {
  createEpisodic,
  createEpisodicFromParsed,
  type Episodic,
} from '../episodic/create-episodic.js';
import { EpisodicError } from '../errors/episodic-error.js';
import { lastUserMessageOfEpisodes } from '../messages/last-user-message.js';
import type { Episode, NewEpisode } from '../schema/episode.js';
import type { EpisodeRunRange, SessionDelta, SessionState } from '../schema/session-state.js';
import { addEpisodeRun } from '../store/episode-runs.js';
import {
  type SessionStore,
  type StoredSession,
  sessionEpisodes,
  takeFreshlyDecoded,
} from '../store/session-store.js';
import { invalidField } from '../validation/parse-input.js';
import { countMessages, type MessageCut, noMessageCut } from './message-count.js';
import { MutationQueue } from './mutation-queue.js';
import { freezeContext } from './session-options.js';
import { buildSnapshot, carriedFields } from './session-snapshot.js';
import type { SessionContext } from './session-types.js';

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

/** What one commit adds beyond the episodes: the run that recorded them, framework model calls. */
export interface AppendOptions {
  runId?: string;
  /** Model calls made outside `runTurn` (see `commitEpisodes`): added to the invocation count. */
  modelCalls?: number;
}

/**
 * Owns what a session has committed and the order of its mutations. The committed state moves on
 * only after the store accepted a commit, so a `CONFLICT` or a storage failure leaves it as it was.
 */
export class SessionWriter {
  readonly id: string;
  private readonly store: SessionStore;
  private readonly now: () => Date;
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
  private removing = false;
  private removed = false;

  constructor(store: SessionStore, now: () => Date, seed: SessionSeed) {
    this.store = store;
    this.now = now;
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
  }

  /** The committed log (replaced by `clear` and `reload`: read it again after either). */
  get log(): Episodic {
    return this.committedLog;
  }

  get revision(): number {
    return this.committedRevision;
  }

  /** The current context: committed, or applied and about to be committed. */
  get context(): SessionContext {
    return this.contextValue;
  }

  get invokeSeq(): number {
    return this.invokeCount;
  }

  /** Applies a context now (the next commit stores it); call `commit` to save it. */
  setContext(next: SessionContext): void {
    this.contextValue = next;
  }

  /** Counts one model call of a turn and returns its number (seed 001 `invoke_seq`). */
  countInvocation(): number {
    this.invokeCount += 1;
    return this.invokeCount;
  }

  /** `NOT_FOUND` once the session is removed (or being removed). */
  assertOpen(): void {
    if (this.removed || this.removing) {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `Session ${this.id} was removed; nothing was changed. Create a new session or load another one.`,
        details: { sessionId: this.id },
      });
    }
  }

  /** Runs `task` in mutation order, whether or not the session is still open when it starts. */
  inOrder<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(task);
  }

  /** Runs `task` in mutation order, once the session is checked to be open. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.assertOpen();
      return task();
    });
  }

  /**
   * Deletes the session from its store in mutation order and closes it: later calls fail with
   * `NOT_FOUND`. `onClosing` runs first, once the session counts as removed (to abort a turn).
   * Resolves false when the session was already removed or the store had no snapshot.
   */
  async remove(onClosing: () => void): Promise<boolean> {
    if (this.removed || this.removing) return false;
    this.removing = true;
    onClosing();
    return this.queue.run(async () => {
      try {
        const deleted = await this.store.delete(this.id);
        this.removed = true;
        return deleted;
      } catch (error) {
        this.removing = false;
        throw error;
      }
    });
  }

  /** Empties the committed log (the context stays) and commits; call inside `exclusive`. */
  async clear(): Promise<number> {
    const empty = createEpisodic(undefined, { now: this.now });
    const revision = await this.commit(empty, undefined, true);
    this.committedLog = empty;
    return revision;
  }

  /**
   * Appends episodes to the committed log through a working fork: saved first, merged after.
   * `modelCalls` advances the invocation count (a framework's own model calls, see
   * `commitEpisodes`); it moves back when the save fails, so a failed commit changes nothing.
   * Call inside `exclusive`.
   */
  async appendCommitted(
    episodes: readonly NewEpisode[],
    options: AppendOptions = {},
  ): Promise<Episode[]> {
    const startId = this.committedLog.lastId;
    const working = this.committedLog.fork();
    for (const episode of episodes) working.append(episode);
    const invokeCount = this.invokeCount;
    this.invokeCount += options.modelCalls ?? 0;
    try {
      await this.commit(working, options.runId);
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
   * commit follows). Call inside `exclusive`, so no turn is running.
   */
  async reload(): Promise<void> {
    const stored = await this.store.read(this.id);
    if (stored === null) {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `Session ${this.id} is no longer in the ${this.store.name} store: another writer deleted it. Create a new session.`,
        details: { sessionId: this.id, store: this.store.name },
      });
    }
    const seed = storedSessionSeed(stored, this.now);
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
   * cost is the new episodes', whatever the session's size: only a new session hands over its
   * whole state, and the store builds its folds from what it stored. Only after the store accepted it does the in-memory state move
   * on, so a `CONFLICT` or a storage failure leaves the session exactly as it was. The committed
   * log itself is not touched: `merge` copies a working fork's episodes in after the commit.
   */
  async commit(log: Episodic, runId?: string, reset = false): Promise<number> {
    const revision = this.committedRevision + 1;
    const invokeSeq =
      this.invokeCount > 0 || this.carried.invoke_seq !== undefined ? this.invokeCount : undefined;
    const carried = {
      ...this.carried,
      ...(runId === undefined ? {} : { run_id: runId }),
      ...(invokeSeq === undefined ? {} : { invoke_seq: invokeSeq }),
    };
    const now = this.now();
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
      // Part of the delta format (schema_version 2, not seed 001): the summary of the state this
      // commit leaves, which only the writer knows without rebuilding that state, so that a
      // session list reads a session's last delta alone (see `summarizeSession`).
      episode_count: log.size,
      message_count: messages.count,
      ...(lastUser === undefined ? {} : { last_user_message: lastUser }),
    };
    // A new session hands over its whole state; any other commit its delta alone (the store
    // builds its folds from what it stored).
    let state: SessionState | undefined;
    if (!this.saved) {
      // The runs of the commits before this one, and this one's (as a fold of the deltas adds it).
      const episodeRuns = this.episodeRuns.slice();
      addEpisodeRun(episodeRuns, delta);
      state = buildSnapshot({
        sessionId: this.id,
        log,
        context,
        revision,
        updatedAt,
        carried,
        episodeRuns,
      });
    }
    await this.store.commit({
      sessionId: this.id,
      expectedRevision: this.saved ? this.committedRevision : null,
      delta,
      ...(state === undefined ? {} : { state }),
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

  /**
   * Copies the working log's new episodes (ids above `startId`) into the committed log, after
   * `commit` stored them.
   */
  merge(working: Episodic, startId: number): Episode[] {
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
