// The `Session` facade: validates each call's input, then hands it to the module that does the
// job (the writer for commits and the mutation order, the turn registry for interrupts, the turn
// loop for turns). It keeps no state of its own beyond the three.
import { createEpisodic } from '../episodic/create-episodic.js';
import { assertIdCarriesNoContent } from '../ledger/content-guard.js';
import type { EpisodicQuery } from '../schema/episode.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { TurnRegistry } from './interrupts.js';
import type { ModelCall } from './model-call.js';
import {
  forkOptionsSchema,
  freezeContext,
  interruptOptionsSchema,
  interruptReasonSchema,
  isFunction,
  newSessionId,
  parseTurnInput,
  runTurnOptionsSchema,
  type SessionConfig,
  sessionOptionsSchema,
  toSessionConfig,
  updateSchema,
} from './session-options.js';
import type {
  ForkSessionOptions,
  InterruptOptions,
  InterruptResult,
  ReadonlyEpisodic,
  RunTurnOptions,
  Session,
  SessionContext,
  SessionOptions,
  TurnInput,
  TurnResult,
} from './session-types.js';
import { type SessionSeed, SessionWriter } from './session-writer.js';
import { runTurnLoop } from './turn-loop.js';

/** What the session functions outside the facade (`compact`, `commitEpisodes`) work with. */
export interface SessionParts {
  readonly writer: SessionWriter;
  readonly config: SessionConfig;
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
  return new SessionFacade(config, new SessionWriter(config.store, config.now, seed));
}

/**
 * The writer and settings of a session made by `createSession`, `loadSession` or `fork()`;
 * `VALIDATION_ERROR` naming `subject` for anything else.
 */
export function sessionParts(session: unknown, subject: string): SessionParts {
  const parts = SessionFacade.partsOf(session);
  if (parts === undefined) {
    throw invalidField(
      subject,
      'session',
      session,
      'must be a session from createSession, loadSession or fork()',
    );
  }
  return parts;
}

class SessionFacade implements Session {
  readonly id: string;
  readonly log: ReadonlyEpisodic;
  readonly #parts: SessionParts;
  readonly #turns: TurnRegistry;

  /** The parts of a facade (an ES private field: no other object has them). */
  static partsOf(value: unknown): SessionParts | undefined {
    return typeof value === 'object' && value !== null && #parts in value
      ? (value as SessionFacade).#parts
      : undefined;
  }

  constructor(config: SessionConfig, writer: SessionWriter) {
    this.#parts = { writer, config };
    this.#turns = new TurnRegistry(writer.id);
    this.id = writer.id;
    this.log = Object.freeze({
      read: (query?: EpisodicQuery) => writer.log.read(query),
      toJSONL: () => writer.log.toJSONL(),
      fork: () => writer.log.fork(),
      get size() {
        return writer.log.size;
      },
      get lastId() {
        return writer.log.lastId;
      },
    });
  }

  get revision(): number {
    return this.#parts.writer.revision;
  }

  get context(): SessionContext {
    return this.#parts.writer.context;
  }

  get activeTurnId(): string | null {
    return this.#turns.activeTurnId;
  }

  get invokeSeq(): number {
    return this.#parts.writer.invokeSeq;
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
    const { writer, config } = this.#parts;
    writer.assertOpen();
    // Registered now, not when it starts: interrupt() right after runTurn() must reach it.
    const turn = this.#turns.register(settings.turnId ?? config.generateId(), settings.signal);
    return writer.inOrder(async () => {
      try {
        writer.assertOpen();
        return await runTurnLoop({ writer, config, turn, input: items, modelCall, settings });
      } finally {
        this.#turns.release(turn);
      }
    });
  }

  async interrupt(reason?: string, options?: InterruptOptions): Promise<InterruptResult> {
    const text = parseInput(interruptReasonSchema, reason, 'interrupt reason');
    const keep =
      parseInput(interruptOptionsSchema, options, 'interrupt options')?.keep ?? 'boundary';
    this.#parts.writer.assertOpen();
    return this.#turns.interrupt(text, keep);
  }

  async abort(): Promise<boolean> {
    this.#parts.writer.assertOpen();
    return this.#turns.abort();
  }

  fork(options?: ForkSessionOptions): Session {
    const settings = parseInput(forkOptionsSchema, options, 'fork options') ?? {};
    const { writer, config } = this.#parts;
    writer.assertOpen();
    const id = settings.id ?? newSessionId(config.generateId, 'fork options');
    if (id.toLowerCase() === writer.id.toLowerCase()) {
      throw invalidField('fork options', 'id', id, 'must differ from the source session id');
    }
    const context =
      settings.context === undefined
        ? writer.context
        : freezeContext(settings.context, 'fork options.context');
    // O(1): the fork reads a frozen prefix of this session's committed log (an in-flight turn
    // lives in its own working fork and is never part of it).
    return openSession(config, {
      id,
      committed: writer.log.fork(),
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
    const { writer } = this.#parts;
    writer.assertOpen();
    const next =
      typeof update === 'function'
        ? freezeContext(update(writer.context), 'context returned by the updateContext function')
        : freezeContext({ ...writer.context, ...update }, 'updateContext update');
    // Applied now, so a running turn's model calls and commit already see it; saved in order.
    writer.setContext(next);
    return writer.exclusive(() => writer.commit(writer.log));
  }

  async clear(): Promise<number> {
    const { writer } = this.#parts;
    writer.assertOpen();
    return writer.exclusive(() => writer.clear());
  }

  async remove(): Promise<boolean> {
    return this.#parts.writer.remove(() => this.#turns.abortForRemoval());
  }
}
