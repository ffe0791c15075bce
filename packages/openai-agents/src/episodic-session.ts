import { randomUUID } from 'node:crypto';
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
import {
  type AgentInputItem,
  applySessionHistoryMutations,
  getLogger,
  type SessionHistoryMutation,
  type SessionHistoryRewriteArgs,
  type SessionHistoryRewriteAwareSession,
  type SessionHistoryTransactionArgs,
  type SessionHistoryTransactionAwareSession,
  UserError,
} from '@openai/agents-core';
import * as z from 'zod';

/** The Agents SDK's logger (what `getLogger` returns). */
type Logger = ReturnType<typeof getLogger>;

import {
  type CheckedTransaction,
  canonicalValue,
  checkTransaction,
  copyItem,
  endsWith,
  fromStored,
  type StoredTransaction,
  sameValue,
  toStored,
  UnsupportedValue,
} from './history-values.js';
import {
  CLEAR_RECORD_TYPE,
  describeItem,
  ITEM_RECORD_TYPE,
  type ItemRecord,
  MUTATIONS_RECORD_TYPE,
  type MutationsRecord,
  metaOf,
  POP_RECORD_TYPE,
  type SessionRecord,
  sessionRunId,
  TRANSACTION_RECORD_TYPE,
  type TransactionRecord,
} from './session-records.js';
import { VERSION } from './version.js';

/** Options of `EpisodicSession`. */
export interface EpisodicSessionOptions {
  /**
   * Where the session is kept: any Episodic run store (`createFsStore(…).runs`,
   * `createSqliteStore(…).runs`, `(await createPostgresStore(…)).runs`, `createMemoryRunStore()`).
   * The session is one run (id `sessionRunId(sessionId, scope)`).
   */
  runs: RunStore;
  /**
   * The session's id, as `getSessionId()` returns it: the same id in another process (or after a
   * restart) resumes the same history.
   * @default a random UUID (a new session)
   */
  sessionId?: string;
  /**
   * The Episodic scope (project, tenant or team) the session belongs to, normalized as Episodic
   * scopes are (`"My Project"` → `my-project`): stamped in the run header's `scope` (as the MCP
   * server's scoped run stores stamp it) and part of the run id, so the same session id in two
   * scopes is two histories.
   * @default no scope (the run is in the default scope)
   */
  scope?: string;
  /**
   * Where debug lines go (as the SDK's `MemorySession` logs them: items only when neither
   * `dontLogModelData` nor `dontLogToolData` is set).
   * @default getLogger('openai-agents:episodic')
   */
  logger?: ReturnType<typeof getLogger>;
  /**
   * The clock for record timestamps.
   * @default () => new Date()
   */
  now?: () => Date;
}

/**
 * How often a write re-reads and retries when other writers keep appending first (each lost race
 * means another writer's append landed; from the third on the retry waits a short pause).
 */
const APPEND_ATTEMPTS = 1000;

const runStoreSchema = z.custom<RunStore>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as RunStore).append === 'function' &&
    typeof (value as RunStore).readAfter === 'function',
  'must be an Episodic RunStore (createFsStore(…).runs, createSqliteStore(…).runs, createMemoryRunStore())',
);

const optionsSchema = z.strictObject({
  runs: runStoreSchema,
  sessionId: z.string().min(1, 'must be a non-empty string').optional(),
  scope: z.string().min(1, 'must be a non-empty string').optional(),
  logger: z
    .custom<Logger>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as Logger).debug === 'function',
      'must be an Agents SDK Logger (getLogger(…))',
    )
    .optional(),
  now: z
    .custom<() => Date>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});

const limitSchema = z
  .number({ error: 'must be a number (how many of the latest items to return)' })
  .int('must be an integer')
  .optional();
const itemsSchema = z.array(
  z.custom<AgentInputItem>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'must be an object (an AgentInputItem)',
  ),
  { error: 'must be an array of AgentInputItems' },
);
const mutationsSchema = z.looseObject({
  mutations: z.array(
    z.looseObject({
      type: z.literal('replace_function_call', { error: 'must be "replace_function_call"' }),
      callId: z.string({ error: 'must be a string' }),
      replacement: z.looseObject({
        type: z.literal('function_call', { error: 'must be "function_call"' }),
      }),
    }),
  ),
});

function invalid(
  method: string,
  issue: { path: PropertyKey[]; message: string },
  got: unknown,
  hint: string,
): EpisodicError {
  const field = issue.path.map(String).join('.');
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `EpisodicSession.${method}: ${field === '' ? 'the argument' : field} ${issue.message} (got ${describeGot(got)}). ${hint}`,
    details: { field },
  });
}

function describeGot(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return String(value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const part of path) current = (current as Record<PropertyKey, unknown> | undefined)?.[part];
  return current;
}

function parse<T>(
  method: string,
  schema: z.ZodType<T>,
  value: unknown,
  root: string,
  hint: string,
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0] ?? { path: [], message: 'is invalid' };
  return throwInvalid(
    method,
    { path: [root, ...issue.path], message: issue.message },
    at(value, issue.path),
    hint,
  );
}

function throwInvalid(
  method: string,
  issue: { path: PropertyKey[]; message: string },
  got: unknown,
  hint: string,
): never {
  throw invalid(method, issue, got, hint);
}

/** Canonical copies of items (see `canonicalValue`), or a VALIDATION_ERROR naming the value. */
function canonicalItems(
  method: string,
  items: readonly AgentInputItem[],
  root: string,
): AgentInputItem[] {
  const copies: AgentInputItem[] = [];
  for (const [index, item] of items.entries()) {
    try {
      copies.push(canonicalValue(item, [index]) as AgentInputItem);
    } catch (error) {
      if (!(error instanceof UnsupportedValue)) throw error;
      throwInvalid(
        method,
        { path: [root, ...error.path], message: `is ${error.reason}` },
        at(items, error.path),
        'Items are stored as JSON: pass JSON values (bytes as Uint8Array), e.g. a date as its ISO string.',
      );
    }
  }
  return copies;
}

/** What this process knows of the session's run: folded up to `position`. */
interface Folded {
  position: number;
  items: AgentInputItem[];
  /** The transactions applied since the last clear, by operation id. */
  transactions: Map<string, StoredTransaction>;
}

/**
 * An OpenAI Agents SDK `Session` over an Episodic run store: pass it as `session` to `run()` or a
 * `Runner`. The session is one run (id `sessionRunId(sessionId, scope)`) of `x.openai_agents.*`
 * records, so `episodic runs list/show`, redaction, doctor and export see it like any run.
 *
 * History is append-only: `addItems` appends one record per item, and `popItem`, `clearSession`,
 * `applyHistoryMutations` and `applyHistoryTransaction` append a record that says so; reads fold
 * them, so `getItems` returns exactly what the SDK's `MemorySession` would. The folded history is
 * kept in this process: a call reads only what other processes appended since. Every write is a
 * compare-and-append at the position this session has read: when another process wrote first, it
 * reads what was added, decides again (which item a pop removes, whether a transaction applies)
 * and retries; so several processes may share one session without losing or duplicating a change.
 */
export class EpisodicSession
  implements SessionHistoryRewriteAwareSession, SessionHistoryTransactionAwareSession
{
  /** The run the session is kept in: pass it to `runs.read`, `runs redact`, `runs show`. */
  readonly runId: string;
  private readonly runs: RunStore;
  private readonly sessionId: string;
  private readonly scope: string | undefined;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly folded: Folded = { position: 0, items: [], transactions: new Map() };
  /** The calls of this session, one after the other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: EpisodicSessionOptions) {
    const parsed = parse(
      'constructor',
      optionsSchema,
      options,
      'options',
      'Pass { runs, sessionId?, scope?, logger?, now? } with runs an Episodic RunStore.',
    );
    this.runs = parsed.runs;
    this.sessionId = parsed.sessionId ?? randomUUID();
    this.scope = parsed.scope === undefined ? undefined : normalizeScope(parsed.scope);
    this.logger = parsed.logger ?? getLogger('openai-agents:episodic');
    this.now = parsed.now ?? (() => new Date());
    this.runId = sessionRunId(this.sessionId, this.scope);
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const checked = parse(
      'getItems',
      limitSchema,
      limit,
      'limit',
      'Pass an integer, or nothing for every item.',
    );
    return this.serialized(async () => {
      await this.catchUp();
      const { items } = this.folded;
      if (checked !== undefined && checked <= 0) return [];
      const chosen =
        checked === undefined ? items : items.slice(Math.max(items.length - checked, 0));
      const copies = chosen.map(copyItem);
      this.debug(`Getting items from Episodic session (${this.sessionId})`, copies);
      return copies;
    });
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    const hint = 'Pass an array of AgentInputItems (what getItems returns).';
    const checked = parse('addItems', itemsSchema, items, 'items', hint);
    if (checked.length === 0) return;
    const copies = canonicalItems('addItems', checked, 'items');
    this.debug(`Adding items to Episodic session (${this.sessionId})`, copies);
    await this.serialized(() => this.write(() => copies.map((item) => this.itemRecord(item))));
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    return this.serialized(async () => {
      let popped: AgentInputItem | undefined;
      await this.write((folded) => {
        popped = folded.items.at(-1);
        if (popped === undefined) return [];
        return [this.record(POP_RECORD_TYPE, `pop ${describeItem(popped)}`, {})];
      });
      if (popped === undefined) return undefined;
      const copy = copyItem(popped);
      this.debug(`Popping item from Episodic session (${this.sessionId})`, [copy]);
      return copy;
    });
  }

  async clearSession(): Promise<void> {
    this.logger.debug(`Clearing Episodic session (${this.sessionId})`);
    await this.serialized(() =>
      this.write((folded) =>
        folded.items.length === 0 && folded.transactions.size === 0
          ? []
          : [this.record(CLEAR_RECORD_TYPE, `clear ${folded.items.length} items`, {})],
      ),
    );
  }

  /** Replaces function calls in the stored history (the SDK's `SessionHistoryRewriteAwareSession`). */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    const checked = parse(
      'applyHistoryMutations',
      mutationsSchema,
      args,
      'args',
      'Pass { mutations: [{ type: "replace_function_call", callId, replacement }] }.',
    );
    if (checked.mutations.length === 0) return;
    const replacements = canonicalItems(
      'applyHistoryMutations',
      checked.mutations.map((mutation) => mutation.replacement as AgentInputItem),
      'args.mutations',
    );
    const mutations = checked.mutations.map((mutation, index) => ({
      type: 'replace_function_call',
      callId: mutation.callId,
      replacement: replacements[index],
    })) as SessionHistoryMutation[];
    await this.serialized(() =>
      this.write(() => {
        const stored = toStored(mutations);
        return [
          this.record(
            MUTATIONS_RECORD_TYPE,
            `replace function call ${mutations.map((mutation) => mutation.callId).join(', ')}`,
            {
              mutations: stored.value,
              ...(stored.binary.length > 0 ? { binary: stored.binary } : {}),
            },
          ),
        ];
      }),
    );
  }

  /**
   * Applies an idempotent history change (the SDK's `SessionHistoryTransactionAwareSession`),
   * exactly as `MemorySession` does: an operation id is applied once (repeating it with the same
   * transaction does nothing; with another one throws), a suffix replacement whose expected suffix
   * is not the history's end throws and records nothing. Invalid arguments throw the SDK's
   * `UserError`s.
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const checked = checkTransaction(args);
    await this.serialized(() =>
      this.write((folded) => {
        const existing = folded.transactions.get(checked.operationId);
        if (existing !== undefined) {
          if (!sameValue(existing, checked.transaction)) {
            throw new UserError(
              'Session history operation was already applied with a different transaction.',
            );
          }
          return [];
        }
        if (
          checked.transaction.type === 'replace_suffix' &&
          !endsWith(folded.items, checked.transaction.expectedSuffix)
        ) {
          throw new UserError(
            'Session history suffix no longer matches the transaction precondition.',
          );
        }
        return [this.transactionRecord(checked)];
      }),
    );
  }

  private debug(message: string, items: AgentInputItem[]): void {
    if (this.logger.dontLogModelData || this.logger.dontLogToolData) this.logger.debug(message);
    else this.logger.debug(`${message}: ${JSON.stringify(items)}`);
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private record(type: string, summary: string, fields: Record<string, unknown>): RunRecord {
    return {
      type,
      run_id: this.runId,
      ts: this.now().toISOString(),
      summary,
      ...fields,
    } as RunRecord;
  }

  private itemRecord(item: AgentInputItem): RunRecord {
    const stored = toStored(item);
    return this.record(ITEM_RECORD_TYPE, describeItem(item), {
      item: stored.value,
      ...(stored.binary.length > 0 ? { binary: stored.binary } : {}),
    });
  }

  private transactionRecord({ operationId, transaction }: CheckedTransaction): RunRecord {
    const stored = toStored(transaction);
    const summary =
      transaction.type === 'append_items'
        ? `append ${transaction.items.length} items [${operationId}]`
        : `replace the last ${transaction.expectedSuffix.length} items with ${transaction.replacement.length} [${operationId}]`;
    return this.record(TRANSACTION_RECORD_TYPE, summary, {
      operation_id: operationId,
      transaction: stored.value,
      ...(stored.binary.length > 0 ? { binary: stored.binary } : {}),
    });
  }

  private reset(): void {
    this.folded.position = 0;
    this.folded.items = [];
    this.folded.transactions = new Map();
  }

  /** Folds records (read back from the store, or just appended) into the history. */
  private fold(records: readonly RunRecord[]): void {
    const folded = this.folded;
    for (const record of records as unknown as SessionRecord[]) {
      switch (record.type) {
        case ITEM_RECORD_TYPE:
          folded.items.push(
            fromStored(structuredClone((record as ItemRecord).item), record.binary),
          );
          break;
        case POP_RECORD_TYPE:
          folded.items.pop();
          break;
        case CLEAR_RECORD_TYPE:
          folded.items = [];
          folded.transactions = new Map();
          break;
        case MUTATIONS_RECORD_TYPE: {
          const mutations = fromStored(
            structuredClone((record as MutationsRecord).mutations),
            record.binary,
          );
          folded.items = applySessionHistoryMutations(folded.items, mutations);
          break;
        }
        case TRANSACTION_RECORD_TYPE: {
          const { operation_id: operationId } = record as TransactionRecord;
          const transaction = fromStored(
            structuredClone((record as TransactionRecord).transaction),
            record.binary,
          );
          if (transaction.type === 'append_items') {
            folded.items.push(...transaction.items.map(copyItem));
          } else {
            const kept = Math.max(folded.items.length - transaction.expectedSuffix.length, 0);
            folded.items = [
              ...folded.items.slice(0, kept),
              ...transaction.replacement.map(copyItem),
            ];
          }
          folded.transactions.set(operationId, transaction);
          break;
        }
        default:
          // A record type of a later version (or another writer): not part of the history.
          break;
      }
    }
  }

  /**
   * Reads what was appended to the run since this session last read or wrote it; false when the
   * run is missing (or hidden from this run store).
   */
  private async catchUp(): Promise<boolean> {
    const from = this.folded.position;
    try {
      const after = await this.runs.readAfter(this.runId, from);
      // A run file another process has created but not yet given its header holds nothing to
      // check: the append that follows is checked at position 0 by the compare-and-append.
      if (from === 0 && after.position > 0) this.checkHeader(after.records[0]);
      this.folded.position = after.position;
      this.fold(from === 0 ? after.records.slice(1) : after.records);
      return true;
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) {
        this.reset();
        return false;
      }
      // Shorter than this session knew: deleted and written again. Read it whole.
      if (EpisodicError.hasCode(error, 'CONFLICT') && from > 0) {
        this.reset();
        return this.catchUp();
      }
      throw error;
    }
  }

  /**
   * Appends what `build` decides from the history as this session knows it (after the header when
   * the run is new) at the position it knows; when another writer appended first, reads what it
   * added and builds again. `build` may throw to refuse (nothing is written).
   */
  private async write(build: (folded: Folded) => RunRecord[]): Promise<void> {
    // Optimistic: decided on the history this session knows, so an uncontended write costs one
    // append. A decision to write nothing (or to refuse) is only taken on a fresh read.
    let fresh = false;
    let hidden = 0;
    if (this.folded.position === 0) {
      await this.catchUp();
      fresh = true;
    }
    for (let attempt = 1; ; attempt++) {
      let records: RunRecord[];
      try {
        records = build(this.folded);
      } catch (error) {
        if (fresh) throw error;
        await this.catchUp();
        fresh = true;
        attempt--;
        continue;
      }
      if (records.length === 0) {
        if (fresh) return;
        await this.catchUp();
        fresh = true;
        attempt--;
        continue;
      }
      const position = this.folded.position;
      const batch = position === 0 ? [this.header(), ...records] : records;
      try {
        const receipt = await this.runs.append(this.runId, batch, { expectedPosition: position });
        this.folded.position = receipt.position ?? position + batch.length;
        this.fold(records);
        return;
      } catch (error) {
        // NOT_FOUND: the run was deleted since this session read it (catchUp starts it afresh).
        const gone = EpisodicError.hasCode(error, 'NOT_FOUND') && position > 0;
        if (!gone && !EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        if (attempt >= APPEND_ATTEMPTS) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `Run ${this.runId} (session ${JSON.stringify(this.sessionId)}) kept changing underneath this write: ${attempt} appends each lost the race to another writer. Nothing of this call was stored; call again later.`,
            details: { runId: this.runId, attempts: attempt },
            cause: error,
          });
        }
        const found = await this.catchUp();
        fresh = true;
        // The run exists (creating it lost) yet cannot be read: a scoped run view of another
        // scope, or an access policy, hides it. Retrying cannot help.
        hidden = position === 0 && !found ? hidden + 1 : 0;
        if (hidden >= 3) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `Run ${this.runId} (session ${JSON.stringify(this.sessionId)}) exists but this run store cannot read it: it belongs to another scope (a scoped run view hides it) or an access policy hides it. Pass the scope the session was written in (the \`scope\` option, which is part of the run id), or use another session id.`,
            details: { runId: this.runId },
            cause: error,
          });
        }
        await pauseAfterLostRace(attempt);
      }
    }
  }

  private checkHeader(header: RunRecord | undefined): void {
    const named = metaOf(header);
    if (named?.session_id === this.sessionId) return;
    throw new EpisodicError({
      code: 'CONFLICT',
      message: `Run ${this.runId} does not hold the OpenAI Agents session ${JSON.stringify(this.sessionId)} (its header names ${JSON.stringify(named ?? null)}). Another program wrote a run with this id; move it away or use another Episodic home.`,
      details: { runId: this.runId },
    });
  }

  private header(): RunHeader {
    return {
      type: 'header',
      schema_version: RUN_RECORD_SCHEMA_VERSION,
      run_id: this.runId,
      started_at: this.now().toISOString(),
      client: { name: '@episodic/openai-agents', version: VERSION },
      server: { name: 'episodic', version: CORE_VERSION },
      meta: { openai_agents: { session_id: this.sessionId } },
      ...(this.scope === undefined ? {} : { scope: this.scope }),
    } as RunHeader;
  }
}
