import { randomUUID } from 'node:crypto';
import {
  VERSION as CORE_VERSION,
  EpisodicError,
  type RunHeader,
  type RunRecord,
  type RunStore,
} from '@episodic/core';
import { pauseAfterLostRace } from '@episodic/core/adapter';
import { RUN_RECORD_SCHEMA_VERSION } from '@episodic/core/schemas';
import {
  type AppendEventRequest,
  BaseSessionService,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  getLogger,
  type ListSessionsRequest,
  type ListSessionsResponse,
  mergeStates,
  type Session,
  State,
  trimTempState,
} from '@google/adk';
import * as z from 'zod';
import {
  APP_STATE_RECORD_TYPE,
  appRunId,
  describeEvent,
  describeMeta,
  EVENT_RECORD_TYPE,
  type EventRecord,
  metaOf,
  type RunMeta,
  SESSION_LISTED_RECORD_TYPE,
  SESSION_RECORD_TYPE,
  type SessionListedRecord,
  type SessionRecord,
  type StateRecord,
  sessionRunId,
  USER_LISTED_RECORD_TYPE,
  USER_STATE_RECORD_TYPE,
  type UserListedRecord,
  userRunId,
} from './session-records.js';
import { VERSION } from './version.js';

/** Options of `EpisodicSessionService`. */
export interface EpisodicSessionServiceOptions {
  /**
   * Where the sessions are kept: any Episodic run store (`createFsStore(…).runs`,
   * `createSqliteStore(…).runs`, `(await createPostgresStore(…)).runs`, `createMemoryRunStore()`).
   * Each session is one run; each user's and each app's shared state is one more run.
   */
  runs: RunStore;
  /**
   * The Episodic scope the runs belong to: stamped in the header (`scope`) of every run this
   * service creates, so the MCP tools bound to that scope (and only they) see them.
   * @default none (the default scope)
   */
  scope?: string;
  /**
   * The clock for session creation times and record timestamps.
   * @default () => new Date()
   */
  now?: () => Date;
}

/**
 * How often an append re-reads and retries when other writers keep appending first (each lost
 * race means another writer's append landed; from the third on the retry waits a short pause).
 */
const APPEND_ATTEMPTS = 1000;

/** ADK's event mark (`createEvent` sets it; `isEvent` checks it). */
const EVENT_MARK = Symbol.for('google.adk.event');

const optionsSchema = z.strictObject({
  runs: z.custom<RunStore>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as RunStore).append === 'function' &&
      typeof (value as RunStore).readAfter === 'function',
    'must be an Episodic RunStore (createFsStore(…).runs, createSqliteStore(…).runs, createMemoryRunStore())',
  ),
  scope: z.string().trim().min(1, 'must be a non-empty string').optional(),
  now: z
    .custom<() => Date>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});

const name = z.string({ error: 'must be a string' }).min(1, 'must be a non-empty string');
const count = z.number().int('must be an integer').min(0, 'must be 0 or more');
const stateSchema = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be an object of state keys',
);
const keySchema = z.looseObject({ appName: name, userId: name, sessionId: name });
const createSchema = z.looseObject({
  appName: name,
  userId: name,
  sessionId: name.optional(),
  state: stateSchema.optional(),
});
const getSchema = z.looseObject({
  appName: name,
  userId: name,
  sessionId: name,
  config: z
    .looseObject({ numRecentEvents: count.optional(), afterTimestamp: z.number().optional() })
    .optional(),
});
const listSchema = z.looseObject({
  appName: name,
  userId: name.optional(),
  limit: count.optional(),
  offset: count.optional(),
  page: z.number().int('must be an integer').min(1, 'must be 1 or more').optional(),
  order: z.enum(['asc', 'desc']).optional(),
});
const appendSchema = z.looseObject({
  session: z.looseObject({
    id: name,
    appName: name,
    userId: name,
    state: stateSchema,
    events: z.array(z.unknown(), { error: 'must be an array' }),
  }),
  event: z.looseObject({
    id: name,
    timestamp: z.number({ error: 'must be a number (milliseconds)' }),
  }),
});

function parse<R>(method: string, schema: z.ZodType, value: R): R {
  const result = schema.safeParse(value);
  if (result.success) return value;
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const field = path.join('.');
  let got: unknown = value;
  for (const part of path) got = (got as Record<PropertyKey, unknown>)?.[part];
  throw new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `EpisodicSessionService.${method}: ${field === '' ? 'the argument' : field} ${issue?.message ?? 'is invalid'} (got ${JSON.stringify(got) ?? String(got)}). Pass the request ADK documents for ${method} (appName, userId and sessionId as non-empty strings).`,
    details: { field, issues: result.error.issues },
  });
}

/** A fresh object without a prototype, so any key (even `__proto__`) is an own property. */
function bare(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/** A deep copy of JSON data that keeps `__proto__` keys as own properties. */
function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** What this process knows of one run: read up to `position`. */
interface RunState {
  position: number;
  /** Session runs: the session as stored (state without the app/user overlay). */
  session: StoredSession | undefined;
  /** User and app runs: the shared state (keys without prefix). */
  readonly shared: Record<string, unknown>;
  /** User runs: the session ids listed; app runs: the user ids listed (in listing order). */
  readonly listed: Set<string>;
  /** Appends of this process to this run, one after the other. */
  queue: Promise<unknown>;
}

interface StoredSession {
  state: Record<string, unknown>;
  readonly events: Array<Record<string, unknown>>;
  /** Whether each event carried ADK's event mark. */
  readonly marked: boolean[];
  /** Event id → index in `events`. */
  readonly indexes: Map<string, number>;
  lastUpdateTime: number;
}

/**
 * An ADK `BaseSessionService` over an Episodic run store. Each session is one run (id
 * `sessionRunId(appName, userId, sessionId)`) holding one `x.google_adk.event` record per event,
 * so `episodic runs list/show`, redaction, doctor and export see sessions like any run. The
 * `user:` state of each user and the `app:` state of each app are runs of their own.
 *
 * State follows ADK's `InMemorySessionService`: `temp:` keys are never stored, `user:` keys are
 * shared by the sessions of one user, `app:` keys by every session of the app, and the other keys
 * belong to the session.
 *
 * Every append is a compare-and-append at the position this service has read the run up to: when
 * another process appended first, it reads what was added and tries again, so several processes
 * may append to one session (or one user's or app's state) at once without losing anything. A
 * process reads each run whole once; after that it reads only what others appended.
 */
export class EpisodicSessionService extends BaseSessionService {
  private readonly runs: RunStore;
  private readonly scope: string | undefined;
  private readonly now: () => Date;
  private readonly states = new Map<string, RunState>();

  constructor(options: EpisodicSessionServiceOptions) {
    super();
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') ?? '';
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `new EpisodicSessionService: ${field === '' ? 'the options' : field} ${issue?.message ?? 'is invalid'}. Pass { runs: <an Episodic RunStore>, scope?: string, now?: () => Date }.`,
        details: { field, issues: parsed.error.issues },
      });
    }
    this.runs = parsed.data.runs;
    this.scope = parsed.data.scope;
    this.now = parsed.data.now ?? (() => new Date());
  }

  /**
   * Stores a new session (a new UUID when `sessionId` is not given) with its initial state minus
   * `temp:` keys, and returns it with the current `app:` and `user:` state merged in. An id
   * already stored is refused (`CONFLICT`).
   */
  override async createSession(request: CreateSessionRequest): Promise<Session> {
    const { appName, userId, sessionId, state } = parse('createSession', createSchema, request);
    const id = sessionId ?? randomUUID();
    const runId = sessionRunId(appName, userId, id);
    const meta: RunMeta = { app_name: appName, user_id: userId, session_id: id };
    const initial = copy(state === undefined ? bare() : trimTempState(state));
    await this.serialized(runId, async () => {
      const run = this.state(runId);
      await this.catchUp(runId, run, meta);
      if (run.session !== undefined) throw alreadyExists(appName, userId, id);
      // Listed before the run is created, so a listing never misses a stored session (a listed
      // session whose run is gone is skipped).
      await this.list(appRunId(appName), { app_name: appName }, USER_LISTED_RECORD_TYPE, userId);
      await this.list(
        userRunId(appName, userId),
        { app_name: appName, user_id: userId },
        SESSION_LISTED_RECORD_TYPE,
        id,
      );
      const now = this.now();
      const record: SessionRecord = {
        type: SESSION_RECORD_TYPE,
        run_id: runId,
        ts: now.toISOString(),
        summary: `session ${id} of ${userId} in ${appName}`,
        state: initial,
        create_time: now.getTime(),
      };
      try {
        const receipt = await this.runs.append(runId, [this.header(runId, meta), record], {
          expectedPosition: 0,
        });
        run.position = receipt.position ?? 2;
        this.learn(run, [record]);
      } catch (error) {
        if (EpisodicError.hasCode(error, 'CONFLICT')) throw alreadyExists(appName, userId, id);
        throw error;
      }
    });
    const created = await this.getSession({ appName, userId, sessionId: id });
    if (created === undefined) throw alreadyExists(appName, userId, id);
    return created;
  }

  /**
   * The stored session, or undefined: its events (`config.numRecentEvents`,
   * `config.afterTimestamp` as ADK's `InMemorySessionService` applies them) and its state with
   * the current `app:` and `user:` state merged in.
   */
  override async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    const { appName, userId, sessionId, config } = parse('getSession', getSchema, request);
    const runId = sessionRunId(appName, userId, sessionId);
    const run = this.state(runId);
    await this.catchUp(runId, run, { app_name: appName, user_id: userId, session_id: sessionId });
    const stored = run.session;
    if (stored === undefined) return undefined;
    let first = 0;
    if (config?.numRecentEvents) first = Math.max(0, stored.events.length - config.numRecentEvents);
    if (config?.afterTimestamp) {
      let index = stored.events.length - 1;
      while (index >= first) {
        if ((stored.events[index]?.timestamp as number) < config.afterTimestamp) break;
        index--;
      }
      if (index >= first) first = index + 1;
    }
    const events: Event[] = [];
    for (const [offset, event] of stored.events.slice(first).entries()) {
      events.push(withMark(copy(event), stored.marked[first + offset] === true));
    }
    const [app, user] = await Promise.all([
      this.appState(appName),
      this.userState(appName, userId),
    ]);
    return {
      id: sessionId,
      appName,
      userId,
      state: copy(mergeStates(app, user, stored.state)),
      events,
      lastUpdateTime: stored.lastUpdateTime,
    };
  }

  /** The sessions of one user, or of every user of the app, without events or state. */
  override async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    const { appName, userId, limit, offset, page, order } = parse(
      'listSessions',
      listSchema,
      request,
    );
    const users = userId === undefined ? await this.listedUsers(appName) : [userId];
    const all: Session[] = [];
    for (const user of users) {
      const runId = userRunId(appName, user);
      const run = this.state(runId);
      await this.catchUp(runId, run, { app_name: appName, user_id: user });
      for (const id of run.listed) {
        const lastUpdateTime = await this.lastUpdateTime(appName, user, id);
        if (lastUpdateTime === undefined) continue;
        all.push({ id, appName, userId: user, state: {}, events: [], lastUpdateTime });
      }
    }
    if (order === 'asc') {
      all.sort((a, b) => a.lastUpdateTime - b.lastUpdateTime || a.id.localeCompare(b.id));
    } else if (order === 'desc') {
      all.sort((a, b) => b.lastUpdateTime - a.lastUpdateTime || a.id.localeCompare(b.id));
    }
    const totalItems = all.length;
    if (limit === undefined) {
      return {
        sessions: offset ? all.slice(offset) : all,
        page: 1,
        limit: totalItems,
        totalItems,
        totalPages: totalItems === 0 ? 0 : 1,
      };
    }
    const start = page !== undefined ? (page - 1) * limit : (offset ?? 0);
    return {
      sessions: all.slice(start, start + limit),
      page: page ?? (limit === 0 ? 1 : Math.floor(start / limit) + 1),
      limit,
      totalItems,
      totalPages: limit === 0 ? 0 : Math.ceil(totalItems / limit),
    };
  }

  /** Deletes the session's run (a missing session is no error); user and app state stay. */
  override async deleteSession(request: DeleteSessionRequest): Promise<void> {
    const { appName, userId, sessionId } = parse('deleteSession', keySchema, request);
    const runId = sessionRunId(appName, userId, sessionId);
    await this.serialized(runId, async () => {
      const run = this.state(runId);
      await this.catchUp(runId, run, { app_name: appName, user_id: userId, session_id: sessionId });
      if (run.session === undefined) return;
      await this.runs.delete(runId);
      this.reset(run);
    });
  }

  /**
   * Applies the event to `session` as ADK's services do (`temp:` keys dropped, state delta
   * applied, the event added or, with a known id, replaced), then stores it, and its `app:` and
   * `user:` keys in the app's and the user's state. A `partial` event is returned untouched.
   */
  override async appendEvent(request: AppendEventRequest): Promise<Event> {
    const { session, event } = parse('appendEvent', appendSchema, request);
    if (event.partial) return event;
    // ADK's own bookkeeping on the caller's session: drops `temp:` keys from the delta, applies
    // the delta to `session.state` and adds (or replaces) the event in `session.events`.
    await super.appendEvent({ session, event });
    session.lastUpdateTime = event.timestamp;
    const { appName, userId, id: sessionId } = session;
    const runId = sessionRunId(appName, userId, sessionId);
    const meta: RunMeta = { app_name: appName, user_id: userId, session_id: sessionId };
    const stored = copy(event) as unknown as Record<string, unknown>;
    const marked = (event as unknown as Record<symbol, unknown>)[EVENT_MARK] === true;
    const appended = await this.serialized(runId, async () => {
      const run = this.state(runId);
      if (run.position === 0) await this.catchUp(runId, run, meta);
      if (run.session === undefined) return false;
      await this.appendAt(runId, meta, (current) => {
        if (current.session === undefined) return [];
        return [
          {
            type: EVENT_RECORD_TYPE,
            run_id: runId,
            ts: this.now().toISOString(),
            summary: describeEvent(stored),
            event: stored,
            ...(marked ? { adk_event: true } : {}),
          } satisfies EventRecord,
        ];
      });
      return this.state(runId).session !== undefined;
    });
    if (!appended) {
      getLogger().warn(
        `EpisodicSessionService: session ${sessionId} of user ${userId} in app ${appName} does not exist; the event ${event.id} was applied to the session object only, not stored.`,
      );
      return event;
    }
    const delta = event.actions?.stateDelta ?? {};
    const app = bare();
    const user = bare();
    for (const key of Object.keys(delta)) {
      if (key.startsWith(State.APP_PREFIX))
        put(app, key.slice(State.APP_PREFIX.length), delta[key]);
      else if (key.startsWith(State.USER_PREFIX)) {
        put(user, key.slice(State.USER_PREFIX.length), delta[key]);
      }
    }
    if (Object.keys(app).length > 0) {
      await this.appendShared(appRunId(appName), { app_name: appName }, APP_STATE_RECORD_TYPE, {
        delta: app,
        session_id: sessionId,
        event_id: event.id,
      });
    }
    if (Object.keys(user).length > 0) {
      await this.appendShared(
        userRunId(appName, userId),
        { app_name: appName, user_id: userId },
        USER_STATE_RECORD_TYPE,
        { delta: user, session_id: sessionId, event_id: event.id },
      );
    }
    return event;
  }

  /**
   * Drops what this service has read, so its next call reads each run afresh from the store. A
   * service reads a run whole once and then only what is appended after, so a redaction made
   * since (`episodic runs redact`, `RunStore.redact`, which rewrite stored lines in place) reaches
   * it after `forget()` (or in a fresh process).
   */
  forget(): void {
    this.states.clear();
  }

  private async appState(appName: string): Promise<Record<string, unknown>> {
    const runId = appRunId(appName);
    const run = this.state(runId);
    await this.catchUp(runId, run, { app_name: appName });
    return run.shared;
  }

  private async userState(appName: string, userId: string): Promise<Record<string, unknown>> {
    const runId = userRunId(appName, userId);
    const run = this.state(runId);
    await this.catchUp(runId, run, { app_name: appName, user_id: userId });
    return run.shared;
  }

  private async listedUsers(appName: string): Promise<string[]> {
    const runId = appRunId(appName);
    const run = this.state(runId);
    await this.catchUp(runId, run, { app_name: appName });
    return [...run.listed];
  }

  /** The session's last update time (its last event's timestamp); undefined when it is gone. */
  private async lastUpdateTime(
    appName: string,
    userId: string,
    sessionId: string,
  ): Promise<number | undefined> {
    const runId = sessionRunId(appName, userId, sessionId);
    const known = this.states.get(runId);
    if (known?.session !== undefined) {
      await this.catchUp(runId, known, {
        app_name: appName,
        user_id: userId,
        session_id: sessionId,
      });
      return known.session?.lastUpdateTime;
    }
    try {
      const tail = await this.runs.tail(runId, { count: 1 });
      const last = tail.records.at(-1);
      if (last?.type === EVENT_RECORD_TYPE) {
        const timestamp = (last as unknown as EventRecord).event?.timestamp;
        if (typeof timestamp === 'number') return timestamp;
      }
      if (last?.type === SESSION_RECORD_TYPE) return (last as SessionRecord).create_time;
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return undefined;
      throw error;
    }
    // Anything else last (a record another program added): read the run.
    const run = this.state(runId);
    await this.catchUp(runId, run, { app_name: appName, user_id: userId, session_id: sessionId });
    return run.session?.lastUpdateTime;
  }

  private async list(
    runId: string,
    meta: RunMeta,
    type: typeof USER_LISTED_RECORD_TYPE | typeof SESSION_LISTED_RECORD_TYPE,
    id: string,
  ): Promise<void> {
    await this.serialized(runId, async () => {
      const run = this.state(runId);
      await this.catchUp(runId, run, meta);
      await this.appendAt(runId, meta, (current) => {
        // A session is listed again when it is created again (after a delete), so it moves last.
        if (type === USER_LISTED_RECORD_TYPE && current.listed.has(id)) return [];
        const base = { run_id: runId, ts: this.now().toISOString() };
        return [
          type === USER_LISTED_RECORD_TYPE
            ? ({ type, ...base, summary: `user ${id}`, user_id: id } satisfies UserListedRecord)
            : ({
                type,
                ...base,
                summary: `session ${id}`,
                session_id: id,
              } satisfies SessionListedRecord),
        ];
      });
    });
  }

  private async appendShared(
    runId: string,
    meta: RunMeta,
    type: typeof APP_STATE_RECORD_TYPE | typeof USER_STATE_RECORD_TYPE,
    fields: Pick<StateRecord, 'delta' | 'session_id' | 'event_id'>,
  ): Promise<void> {
    const delta = copy(fields.delta);
    await this.serialized(runId, async () => {
      const run = this.state(runId);
      if (run.position === 0) await this.catchUp(runId, run, meta);
      await this.appendAt(runId, meta, () => [
        {
          type,
          run_id: runId,
          ts: this.now().toISOString(),
          summary: `${type === APP_STATE_RECORD_TYPE ? 'app' : 'user'} state: ${Object.keys(delta).join(', ')}`,
          ...fields,
          delta,
        } satisfies StateRecord,
      ]);
    });
  }

  private state(runId: string): RunState {
    let state = this.states.get(runId);
    if (state === undefined) {
      state = {
        position: 0,
        session: undefined,
        shared: bare(),
        listed: new Set(),
        queue: Promise.resolve(),
      };
      this.states.set(runId, state);
    }
    return state;
  }

  private reset(state: RunState): void {
    state.position = 0;
    state.session = undefined;
    for (const key of Object.keys(state.shared)) delete state.shared[key];
    state.listed.clear();
  }

  /** Runs `task` after this service's earlier writes to the run. */
  private serialized<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const state = this.state(runId);
    const result = state.queue.then(task, task);
    state.queue = result.catch(() => undefined);
    return result;
  }

  /** Applies records (read or appended) to what this process knows of their run. */
  private learn(state: RunState, records: readonly RunRecord[]): void {
    for (const record of records) {
      switch (record.type) {
        case SESSION_RECORD_TYPE: {
          const { state: initial, create_time } = record as SessionRecord;
          state.session = {
            state: Object.assign(bare(), copy(initial)),
            events: [],
            marked: [],
            indexes: new Map(),
            lastUpdateTime: create_time,
          };
          break;
        }
        case EVENT_RECORD_TYPE: {
          const session = state.session;
          if (session === undefined) break;
          const { event, adk_event } = record as unknown as EventRecord;
          const id = String(event.id);
          const index = session.indexes.get(id);
          if (index === undefined) {
            session.indexes.set(id, session.events.length);
            session.events.push(event);
            session.marked.push(adk_event === true);
          } else {
            session.events[index] = event;
            session.marked[index] = adk_event === true;
          }
          const delta = (event.actions as { stateDelta?: Record<string, unknown> } | undefined)
            ?.stateDelta;
          for (const key of Object.keys(delta ?? {})) {
            if (!key.startsWith(State.TEMP_PREFIX)) put(session.state, key, copy(delta?.[key]));
          }
          if (typeof event.timestamp === 'number') session.lastUpdateTime = event.timestamp;
          break;
        }
        case APP_STATE_RECORD_TYPE:
        case USER_STATE_RECORD_TYPE: {
          const { delta } = record as unknown as StateRecord;
          for (const key of Object.keys(delta ?? {})) put(state.shared, key, delta[key]);
          break;
        }
        case SESSION_LISTED_RECORD_TYPE: {
          const id = (record as unknown as SessionListedRecord).session_id;
          state.listed.delete(id);
          state.listed.add(id);
          break;
        }
        case USER_LISTED_RECORD_TYPE:
          state.listed.add((record as unknown as UserListedRecord).user_id);
          break;
      }
    }
  }

  /** Reads what was appended to the run since this service last read or wrote it. */
  private async catchUp(runId: string, state: RunState, meta: RunMeta): Promise<void> {
    const from = state.position;
    try {
      const after = await this.runs.readAfter(runId, from);
      // A run file another process has created but not yet given its header holds nothing to
      // check: the append that follows is checked at position 0 by the compare-and-append.
      if (from === 0 && after.position > 0) checkHeader(runId, after.records[0], meta);
      state.position = after.position;
      this.learn(state, after.records);
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) {
        this.reset(state);
        return;
      }
      // Shorter than this service knew: deleted and written again. Read it whole.
      if (EpisodicError.hasCode(error, 'CONFLICT') && from > 0) {
        this.reset(state);
        await this.catchUp(runId, state, meta);
        return;
      }
      throw error;
    }
  }

  /**
   * Appends what `build` gives (after the header when the run is new) at the position this
   * service knows; when another writer appended first, reads what it added and builds again.
   */
  private async appendAt(
    runId: string,
    meta: RunMeta,
    build: (state: RunState) => RunRecord[],
  ): Promise<void> {
    const state = this.state(runId);
    for (let attempt = 1; ; attempt++) {
      const records = build(state);
      if (records.length === 0) return;
      const batch = state.position === 0 ? [this.header(runId, meta), ...records] : records;
      try {
        const receipt = await this.runs.append(runId, batch, { expectedPosition: state.position });
        state.position = receipt.position ?? state.position + batch.length;
        this.learn(state, copy(records));
        return;
      } catch (error) {
        // NOT_FOUND: the run was deleted since this service read it (catchUp starts afresh).
        const gone = EpisodicError.hasCode(error, 'NOT_FOUND') && state.position > 0;
        if (!gone && !EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        if (attempt >= APPEND_ATTEMPTS) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `Run ${runId} (${describeMeta(meta)}) kept changing underneath this append: ${attempt} appends each lost the race to another writer. Nothing of this append was stored; call again later.`,
            details: { runId, attempts: attempt },
            cause: error,
          });
        }
        await this.catchUp(runId, state, meta);
        await pauseAfterLostRace(attempt);
      }
    }
  }

  private header(runId: string, meta: RunMeta): RunHeader {
    return {
      type: 'header',
      schema_version: RUN_RECORD_SCHEMA_VERSION,
      run_id: runId,
      started_at: this.now().toISOString(),
      client: { name: '@episodic/google-adk', version: VERSION },
      server: { name: 'episodic', version: CORE_VERSION },
      meta: { google_adk: meta },
      ...(this.scope === undefined ? {} : { scope: this.scope }),
    };
  }
}

function withMark(event: Record<string, unknown>, marked: boolean): Event {
  if (marked) (event as Record<symbol, unknown>)[EVENT_MARK] = true;
  return event as unknown as Event;
}

function alreadyExists(appName: string, userId: string, sessionId: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Session with id ${sessionId} already exists (user ${JSON.stringify(userId)}, app ${JSON.stringify(appName)}). Use getSession (or getOrCreateSession) to resume it, or deleteSession first.`,
    details: { appName, userId, sessionId },
  });
}

function checkHeader(runId: string, header: RunRecord | null | undefined, meta: RunMeta): void {
  const named = metaOf(header);
  if (
    named !== undefined &&
    named.app_name === meta.app_name &&
    named.user_id === meta.user_id &&
    named.session_id === meta.session_id
  ) {
    return;
  }
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId} does not hold the ADK ${describeMeta(meta)} (its header names ${JSON.stringify(named ?? null)}). Another program wrote a run with this id; move it away or use another Episodic home.`,
    details: { runId },
  });
}
