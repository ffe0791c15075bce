import {
  foldSessionSummary,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
  type SessionSummaryEntry,
} from '@anthropic-ai/claude-agent-sdk';
import {
  VERSION as CORE_VERSION,
  EpisodicError,
  normalizeScope,
  type RunHeader,
  type RunRecord,
  type RunStore,
} from '@episodic/core';
import { pauseAfterLostRace } from '@episodic/core/adapter';
import { RUN_RECORD_SCHEMA_VERSION } from '@episodic/core/schemas';
import * as z from 'zod';
import {
  describeEntry,
  ENTRY_RECORD_TYPE,
  type EntryRecord,
  KEY_RECORD_TYPE,
  type KeyMeta,
  type KeyRecord,
  metaOf,
  projectRunId,
  SUMMARY_RECORD_TYPE,
  type SummaryRecord,
  sessionRunId,
} from './session-records.js';
import { VERSION } from './version.js';

/** Options of `EpisodicSessionStore`. */
export interface EpisodicSessionStoreOptions {
  /**
   * Where the sessions are kept: any Episodic run store (`createFsStore(…).runs`,
   * `createSqliteStore(…).runs`, `(await createPostgresStore(…)).runs`, `createMemoryRunStore()`).
   * Each session key (main transcript or subagent transcript) is one run.
   */
  runs: RunStore;
  /**
   * The Episodic scope (project, tenant or team) the sessions belong to, normalized as Episodic
   * scopes are (`"My Project"` → `my-project`): stamped in the header's `scope` of every run this
   * store creates (the session runs and the project's index run, as the MCP server's scoped run
   * stores stamp it) and part of their run ids, so one session key in two scopes is two histories.
   * @default no scope (the runs are in the default scope, with the ids of earlier versions)
   */
  scope?: string;
  /**
   * The clock for record timestamps and summary `mtime`s.
   * @default () => new Date()
   */
  now?: () => Date;
}

/**
 * How often an append re-reads and retries when other writers keep appending first (each lost
 * race means another writer's append landed; from the third on the retry waits a short pause).
 */
const APPEND_ATTEMPTS = 1000;

const optionsSchema = z.strictObject({
  runs: z.custom<RunStore>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as RunStore).append === 'function' &&
      typeof (value as RunStore).readAfter === 'function',
    'must be an Episodic RunStore (createFsStore(…).runs, createSqliteStore(…).runs, createMemoryRunStore())',
  ),
  scope: z.string().min(1, 'must be a non-empty string').optional(),
  now: z
    .custom<() => Date>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});

const text = z.string().min(1, 'must be a non-empty string');
const keySchema = z.looseObject({
  projectKey: text,
  sessionId: text,
  subpath: text.optional(),
});
const projectSchema = z.looseObject({ projectKey: text, sessionId: text });
const entriesSchema = z.array(
  z.looseObject({
    type: z.string({ error: 'must be a string (the transcript line type)' }),
    uuid: z.string({ error: 'must be a string when present' }).optional(),
  }),
);

function invalid(method: string, error: z.ZodError, value: unknown, root?: string): EpisodicError {
  const issue = error.issues[0];
  const path = [...(root === undefined ? [] : [root]), ...(issue?.path ?? [])];
  const field = path.join('.');
  let got: unknown = root === undefined ? value : { [root]: value };
  for (const part of path) got = (got as Record<PropertyKey, unknown>)?.[part];
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `EpisodicSessionStore.${method}: ${field === '' ? 'the argument' : field} ${issue?.message ?? 'is invalid'} (got ${JSON.stringify(got) ?? String(got)}). Pass a SessionKey { projectKey, sessionId, subpath? } with non-empty strings, and entries as JSON objects with a string "type".`,
    details: { field, issues: error.issues },
  });
}

function parse<T>(method: string, schema: z.ZodType<T>, value: unknown, root: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalid(method, result.error, value, root);
}

/** What this process knows of one run: read up to `position`. */
interface RunState {
  position: number;
  /** Session runs: the uuids stored. */
  readonly uuids: Set<string>;
  /** Session runs: the last summary stored. */
  summary: SessionSummaryEntry | undefined;
  /** Project runs: the keys listed (`JSON.stringify([sessionId, subpath])`). */
  readonly keys: Set<string>;
  /** Appends of this process to this run, one after the other. */
  queue: Promise<unknown>;
}

function keyId(sessionId: string, subpath: string | undefined): string {
  return JSON.stringify([sessionId, subpath ?? null]);
}

/**
 * A Claude Agent SDK `SessionStore` over an Episodic run store. Each `SessionKey` is one run
 * (id `sessionRunId(key, scope)`) holding one `x.claude_agent_sdk.entry` record per transcript line, so
 * `episodic runs list/show`, redaction, doctor and export see the sessions like any run.
 *
 * Every append is a compare-and-append at the position this store has read the run up to: when
 * another process (or store) appended first, it reads what was added and tries again. So several
 * processes may append to one session at once: no entry is lost, an entry whose `uuid` is already
 * stored in that key is not stored again, and each append's entries stay in order. The session
 * summary (`foldSessionSummary`) is stored in the same append as the entries it folds.
 */
export class EpisodicSessionStore implements SessionStore {
  private readonly runs: RunStore;
  private readonly now: () => Date;
  private readonly scope: string | undefined;
  private readonly states = new Map<string, RunState>();

  constructor(options: EpisodicSessionStoreOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) throw invalid('constructor', parsed.error, options);
    this.runs = parsed.data.runs;
    this.now = parsed.data.now ?? (() => new Date());
    this.scope = parsed.data.scope === undefined ? undefined : normalizeScope(parsed.data.scope);
  }

  /** The run id of a session key in this store's scope. */
  private sessionRunId(key: SessionKey): string {
    return sessionRunId(key, this.scope);
  }

  /** The run id of a project's index run in this store's scope. */
  private projectRunId(projectKey: string): string {
    return projectRunId(projectKey, this.scope);
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const parsedKey = parse('append', keySchema, key, 'key') as SessionKey;
    const parsedEntries = parse('append', entriesSchema, entries, 'entries');
    if (parsedEntries.length === 0) return;
    const copies = structuredClone(entries);
    const runId = this.sessionRunId(parsedKey);
    await this.serialized(runId, () => this.appendEntries(parsedKey, runId, copies));
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const parsedKey = parse('load', keySchema, key, 'key') as SessionKey;
    const records = await this.readRun(this.sessionRunId(parsedKey), keyMeta(parsedKey));
    if (records === null) return null;
    return records
      .filter((record) => record.type === ENTRY_RECORD_TYPE)
      .map((record) => (record as unknown as EntryRecord).entry);
  }

  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    const summaries = await this.listSessionSummaries(projectKey);
    return summaries.map(({ sessionId, mtime }) => ({ sessionId, mtime }));
  }

  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    parse('listSessionSummaries', text, projectKey, 'projectKey');
    const listed = await this.listedKeys(projectKey);
    const summaries: SessionSummaryEntry[] = [];
    for (const { sessionId, subpath } of listed) {
      if (subpath !== undefined) continue;
      const summary = await this.lastSummary({ projectKey, sessionId });
      if (summary !== undefined) summaries.push(summary);
    }
    return summaries;
  }

  async delete(key: SessionKey): Promise<void> {
    const parsedKey = parse('delete', keySchema, key, 'key') as SessionKey;
    const doomed = [parsedKey];
    if (parsedKey.subpath === undefined) {
      for (const listed of await this.listedKeys(parsedKey.projectKey)) {
        if (listed.sessionId === parsedKey.sessionId && listed.subpath !== undefined) {
          doomed.push({ ...parsedKey, subpath: listed.subpath });
        }
      }
    }
    for (const doomedKey of doomed) {
      const runId = this.sessionRunId(doomedKey);
      await this.serialized(runId, async () => {
        await this.runs.delete(runId);
        const state = this.states.get(runId);
        if (state !== undefined) this.reset(state);
      });
    }
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const parsedKey = parse('listSubkeys', projectSchema, key, 'key');
    const subpaths: string[] = [];
    for (const listed of await this.listedKeys(parsedKey.projectKey)) {
      if (listed.sessionId !== parsedKey.sessionId || listed.subpath === undefined) continue;
      if (await this.exists(this.sessionRunId({ ...parsedKey, subpath: listed.subpath }))) {
        subpaths.push(listed.subpath);
      }
    }
    return subpaths;
  }

  private state(runId: string): RunState {
    let state = this.states.get(runId);
    if (state === undefined) {
      state = {
        position: 0,
        uuids: new Set(),
        summary: undefined,
        keys: new Set(),
        queue: Promise.resolve(),
      };
      this.states.set(runId, state);
    }
    return state;
  }

  private reset(state: RunState): void {
    state.position = 0;
    state.uuids.clear();
    state.keys.clear();
    state.summary = undefined;
  }

  /** Runs `task` after this store's earlier writes to the run. */
  private serialized<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const state = this.state(runId);
    const result = state.queue.then(task, task);
    state.queue = result.catch(() => undefined);
    return result;
  }

  private learn(state: RunState, records: readonly RunRecord[]): void {
    for (const record of records) {
      if (record.type === ENTRY_RECORD_TYPE) {
        const uuid = (record as unknown as EntryRecord).entry?.uuid;
        if (typeof uuid === 'string') state.uuids.add(uuid);
      } else if (record.type === SUMMARY_RECORD_TYPE) {
        state.summary = (record as unknown as SummaryRecord).session_summary;
      } else if (record.type === KEY_RECORD_TYPE) {
        const listed = record as unknown as KeyRecord;
        state.keys.add(keyId(listed.session_id, listed.subpath));
      }
    }
  }

  /** Reads what was appended to the run since this store last read or wrote it. */
  private async catchUp(runId: string, state: RunState, meta: KeyMeta): Promise<void> {
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
      // Shorter than this store knew: deleted and written again. Read it whole.
      if (EpisodicError.hasCode(error, 'CONFLICT') && from > 0) {
        this.reset(state);
        await this.catchUp(runId, state, meta);
        return;
      }
      throw error;
    }
  }

  /**
   * Appends what `build` gives (after the header when the run is new) at the position this store
   * knows; when another writer appended first, reads what it added and builds again.
   */
  private async appendAt(
    runId: string,
    meta: KeyMeta,
    build: (state: RunState) => RunRecord[],
  ): Promise<void> {
    const state = this.state(runId);
    // Optimistic: a run this store has read is appended at the position it knows (a lost race
    // reads what was added and tries again), so an uncontended append costs one write.
    if (state.position === 0) await this.catchUp(runId, state, meta);
    for (let attempt = 1; ; attempt++) {
      const records = build(state);
      if (records.length === 0) return;
      const batch = state.position === 0 ? [this.header(runId, meta), ...records] : records;
      try {
        const receipt = await this.runs.append(runId, batch, { expectedPosition: state.position });
        state.position = receipt.position ?? state.position + batch.length;
        this.learn(state, records);
        return;
      } catch (error) {
        // NOT_FOUND: the run was deleted since this store read it (catchUp starts it afresh).
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

  private async appendEntries(
    key: SessionKey,
    runId: string,
    entries: SessionStoreEntry[],
  ): Promise<void> {
    const state = this.state(runId);
    if (state.position === 0) await this.catchUp(runId, state, keyMeta(key));
    // A key is listed in its project's run before its run is created, so a listing never misses
    // a stored key (a listed key whose run is gone is skipped).
    if (state.position === 0) await this.listKey(key);
    await this.appendAt(runId, keyMeta(key), (current) => {
      const seen = new Set<string>();
      const fresh = entries.filter((entry) => {
        if (typeof entry.uuid !== 'string') return true;
        if (current.uuids.has(entry.uuid) || seen.has(entry.uuid)) return false;
        seen.add(entry.uuid);
        return true;
      });
      if (fresh.length === 0) return [];
      const now = this.now();
      const ts = now.toISOString();
      const records: RunRecord[] = fresh.map(
        (entry) =>
          ({
            type: ENTRY_RECORD_TYPE,
            run_id: runId,
            ts,
            summary: describeEntry(entry),
            entry,
          }) satisfies EntryRecord,
      );
      if (key.subpath === undefined) {
        const mtime = Math.max(Math.floor(now.getTime()), (current.summary?.mtime ?? 0) + 1);
        const summary = foldSessionSummary(current.summary, key, fresh, { mtime });
        records.push({
          type: SUMMARY_RECORD_TYPE,
          run_id: runId,
          ts,
          summary: `summary after ${fresh.length} ${fresh.length === 1 ? 'entry' : 'entries'}`,
          session_summary: summary,
        } satisfies SummaryRecord);
      }
      return records;
    });
  }

  private async listKey(key: SessionKey): Promise<void> {
    const runId = this.projectRunId(key.projectKey);
    const meta: KeyMeta = { project_key: key.projectKey };
    await this.serialized(runId, () =>
      this.appendAt(runId, meta, (state) => {
        if (state.keys.has(keyId(key.sessionId, key.subpath))) return [];
        return [
          {
            type: KEY_RECORD_TYPE,
            run_id: runId,
            ts: this.now().toISOString(),
            summary: `${key.sessionId}${key.subpath === undefined ? '' : `/${key.subpath}`}`,
            session_id: key.sessionId,
            ...(key.subpath === undefined ? {} : { subpath: key.subpath }),
          } satisfies KeyRecord,
        ];
      }),
    );
  }

  /** The keys ever written in the project (their runs may be gone since). */
  private async listedKeys(
    projectKey: string,
  ): Promise<Array<{ sessionId: string; subpath?: string }>> {
    const records = await this.readRun(this.projectRunId(projectKey), { project_key: projectKey });
    const listed = new Map<string, { sessionId: string; subpath?: string }>();
    for (const record of records ?? []) {
      if (record.type !== KEY_RECORD_TYPE) continue;
      const { session_id: sessionId, subpath } = record as KeyRecord;
      listed.set(
        keyId(sessionId, subpath),
        subpath === undefined ? { sessionId } : { sessionId, subpath },
      );
    }
    return [...listed.values()];
  }

  /** The summary stored last in the session's run; undefined when the run is gone. */
  private async lastSummary(key: SessionKey): Promise<SessionSummaryEntry | undefined> {
    const runId = this.sessionRunId(key);
    try {
      // Every append of the main transcript ends with its summary: the last record is one.
      const tail = await this.runs.tail(runId, { count: 1 });
      const last = tail.records.at(-1);
      if (last?.type === SUMMARY_RECORD_TYPE)
        return (last as unknown as SummaryRecord).session_summary;
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return undefined;
      throw error;
    }
    const records = await this.readRun(runId, keyMeta(key));
    const summaries = (records ?? []).filter((record) => record.type === SUMMARY_RECORD_TYPE);
    return (summaries.at(-1) as unknown as SummaryRecord | undefined)?.session_summary;
  }

  private async exists(runId: string): Promise<boolean> {
    try {
      await this.runs.tail(runId, { count: 1 });
      return true;
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return false;
      throw error;
    }
  }

  /** The run's records after its header; null when it does not exist. */
  private async readRun(runId: string, meta: KeyMeta): Promise<RunRecord[] | null> {
    try {
      const run = await this.runs.read(runId);
      checkHeader(runId, run.header ?? run.records[0], meta);
      return run.records.filter((record) => record.type !== 'header');
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return null;
      throw error;
    }
  }

  private header(runId: string, meta: KeyMeta): RunHeader {
    return {
      type: 'header',
      schema_version: RUN_RECORD_SCHEMA_VERSION,
      run_id: runId,
      started_at: this.now().toISOString(),
      client: { name: '@episodic/claude-agent-sdk', version: VERSION },
      server: { name: 'episodic', version: CORE_VERSION },
      meta: { claude_agent_sdk: meta },
      ...(this.scope === undefined ? {} : { scope: this.scope }),
    } as RunHeader;
  }
}

function keyMeta(key: SessionKey): KeyMeta {
  return {
    project_key: key.projectKey,
    session_id: key.sessionId,
    ...(key.subpath === undefined ? {} : { subpath: key.subpath }),
  };
}

function describeMeta(meta: KeyMeta): string {
  return meta.session_id === undefined
    ? `project ${JSON.stringify(meta.project_key)}`
    : `session ${JSON.stringify(meta.session_id)} of project ${JSON.stringify(meta.project_key)}${meta.subpath === undefined ? '' : `, ${meta.subpath}`}`;
}

function checkHeader(runId: string, header: RunRecord | null | undefined, meta: KeyMeta): void {
  const named = metaOf(header);
  if (
    named !== undefined &&
    named.project_key === meta.project_key &&
    named.session_id === meta.session_id &&
    named.subpath === meta.subpath
  ) {
    return;
  }
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId} does not hold the Claude Agent SDK ${describeMeta(meta)} (its header names ${JSON.stringify(named ?? null)}). Another program wrote a run with this id; move it away or use another Episodic home.`,
    details: { runId },
  });
}
