import { EpisodicError, type RunRecord, type RunStore } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  getCheckpointId,
  JsonPlusSerializer,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  uuid5,
  WRITES_IDX_MAP,
} from '@langchain/langgraph-checkpoint';
import * as z from 'zod';
import {
  CHECKPOINT_RECORD_TYPE,
  type CheckpointRecord,
  type ValueEntry,
  WRITES_RECORD_TYPE,
  type WritesRecord,
} from './langgraph-records.js';
import {
  canonicalJson,
  deserialize,
  deserializeText,
  type SerializedValue,
  serialize,
  toStoredValue,
} from './stored-value.js';
import { ThreadIndex } from './thread-index.js';
import { ThreadLog, type ThreadRecords, threadIdOf } from './thread-log.js';
import { appendedTo } from './value-delta.js';

/** Options of `EpisodicSaver`. */
export interface EpisodicSaverOptions {
  /**
   * Where the threads are kept: any Episodic run store (`createFsStore(…).runs`,
   * `createSqliteStore(…).runs`, `createMemoryRunStore()`). Each thread is one run.
   */
  runs: RunStore;
  /**
   * Serializes checkpoints, metadata and writes.
   * @default LangGraph's JsonPlusSerializer
   */
  serde?: SerializerProtocol;
  /**
   * The clock for record timestamps.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Generates the keys that records refer to each other by.
   * @default () => globalThis.crypto.randomUUID()
   */
  generateId?: () => string;
}

/** The namespace of the UUIDv5 run id of a thread: `uuid5(thread_id, LANGGRAPH_RUN_NAMESPACE)`. */
export const LANGGRAPH_RUN_NAMESPACE = '6f0c3b7e-2a51-4a9c-9f3e-5d7b1c2e8a40';

/** The run id a thread is kept under: a UUIDv5 of the thread id, the same in every process. */
export function threadRunId(threadId: string): string {
  return uuid5(threadId, LANGGRAPH_RUN_NAMESPACE);
}

interface ThreadState {
  readonly log: ThreadLog;
  index: ThreadIndex;
  loaded: boolean;
  queue: Promise<unknown>;
}

const optionsSchema = z.strictObject({
  runs: z.custom<RunStore>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as RunStore).append === 'function' &&
      typeof (value as RunStore).readAfter === 'function',
    'must be an Episodic RunStore (createFsStore(…).runs, createSqliteStore(…).runs, createMemoryRunStore())',
  ),
  serde: z
    .custom<SerializerProtocol>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as SerializerProtocol).dumpsTyped === 'function' &&
        typeof (value as SerializerProtocol).loadsTyped === 'function',
      'must be a LangGraph SerializerProtocol (dumpsTyped and loadsTyped)',
    )
    .optional(),
  now: z
    .custom<() => Date>((value) => typeof value === 'function', 'must be a function')
    .optional(),
  generateId: z
    .custom<() => string>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});

function invalid(method: string, field: string, value: unknown, fix: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `EpisodicSaver.${method}: config.configurable.${field} ${fix} (got ${JSON.stringify(value) ?? String(value)}). Pass it as { configurable: { thread_id: "…" } }, the way graph.invoke(input, config) does.`,
    details: { field: `configurable.${field}` },
  });
}

function threadIdFrom(method: string, config: RunnableConfig): string {
  const configurable = config?.configurable;
  if (typeof configurable !== 'object' || configurable === null) {
    throw invalid(
      method,
      '(root)',
      configurable,
      'is missing: the config has no "configurable" object',
    );
  }
  const threadId: unknown = configurable.thread_id;
  if (typeof threadId === 'number' && Number.isFinite(threadId)) return String(threadId);
  if (typeof threadId !== 'string' || threadId === '') {
    throw invalid(method, 'thread_id', threadId, 'must be a non-empty string');
  }
  return threadId;
}

function namespaceFrom(config: RunnableConfig): string {
  const namespace: unknown = config?.configurable?.checkpoint_ns;
  return typeof namespace === 'string' ? namespace : '';
}

function matchesFilter(metadata: unknown, filter: Record<string, unknown>): boolean {
  const values = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, expected]) => {
    if (expected === undefined) return true;
    const actual = values[key];
    return actual === expected || JSON.stringify(actual) === JSON.stringify(expected);
  });
}

function describeChange(channel: string, entry: ValueEntry): string | null {
  if ('same' in entry) return null;
  if ('value' in entry) return channel;
  const appended = 'json' in entry.append ? entry.append.json : undefined;
  if (Array.isArray(appended)) return `${channel} +${appended.length}`;
  if (typeof appended === 'string') return `${channel} +${appended.length} chars`;
  return `${channel} +`;
}

/** The one line `episodic runs show` prints for a checkpoint: what changed first, the id last. */
function checkpointSummary(
  checkpointId: string,
  metadata: CheckpointMetadata | undefined,
  namespace: string,
  changes: readonly string[],
): string {
  const step = typeof metadata?.step === 'number' ? `step ${metadata.step}` : 'checkpoint';
  const source = typeof metadata?.source === 'string' ? ` (${metadata.source})` : '';
  const where = namespace === '' ? '' : ` in ${namespace}`;
  const changed = changes.length === 0 ? 'no channel changed' : changes.join(', ');
  return `${step}${source}${where}: ${changed} [checkpoint ${checkpointId}]`;
}

/**
 * A LangGraph.js checkpoint saver on Episodic's stores. Each thread is one run of the run store
 * (`uuid5(thread_id)`), so its checkpoints and pending writes sit in the same home as everything
 * else and `episodic runs list/show` display them: an `x.langgraph.checkpoint` record per `put`,
 * an `x.langgraph.writes` record per `putWrites`, appended, never rewritten.
 *
 * Per-step deltas: a checkpoint stores only the channel values that changed (those in
 * `newVersions`), a value that grew at the end (a `messages` list, a text) as what was appended
 * (kept only when it rebuilds exactly what the serializer wrote), and for unchanged channels a
 * reference to the record that holds them. So the bytes stored per step do not grow with the state.
 *
 * Several savers (processes) may share a thread: each appends with compare-and-append at the
 * position it has read up to and reads what others added (`readAfter`) before answering.
 */
export class EpisodicSaver extends BaseCheckpointSaver {
  private readonly runs: RunStore;
  private readonly now: () => Date;
  private readonly generateId: () => string;
  private readonly threads = new Map<string, ThreadState>();
  /** LangGraph's own serializer writes JSON with `JSON.stringify`: its text need not be re-checked. */
  private readonly trusted: boolean;

  constructor(options: EpisodicSaverOptions) {
    const checked = parseInput(optionsSchema, options, 'EpisodicSaver options');
    super(checked.serde);
    this.runs = options.runs;
    this.now = (checked.now as (() => Date) | undefined) ?? (() => new Date());
    this.generateId =
      (checked.generateId as (() => string) | undefined) ?? (() => globalThis.crypto.randomUUID());
    this.trusted = this.serde instanceof JsonPlusSerializer;
  }

  private thread(threadId: string): ThreadState {
    let state = this.threads.get(threadId);
    if (state === undefined) {
      state = {
        log: new ThreadLog(this.runs, threadId, threadRunId(threadId), this.now),
        index: new ThreadIndex(threadId),
        loaded: false,
        queue: Promise.resolve(),
      };
      this.threads.set(threadId, state);
    }
    return state;
  }

  /** Runs `task` after every earlier operation on the thread (read-your-writes, in call order). */
  private exclusive<T>(state: ThreadState, task: () => Promise<T>): Promise<T> {
    const result = state.queue.then(task);
    state.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async load(state: ThreadState): Promise<void> {
    const records = await state.log.readAll();
    state.index = this.indexOf(state.log.threadId, records);
    state.loaded = true;
  }

  private indexOf(threadId: string, records: readonly RunRecord[]): ThreadIndex {
    const index = new ThreadIndex(threadId);
    for (const record of records) index.add(record);
    return index;
  }

  /** Adds records other writers appended (or starts over when the run was deleted or replaced). */
  private apply(state: ThreadState, found: ThreadRecords): void {
    if (found.reset) {
      state.index = this.indexOf(state.log.threadId, found.records);
      return;
    }
    for (const record of found.records) state.index.add(record);
  }

  /** Makes the index current: loads the thread, or reads only what was appended since. */
  private async sync(state: ThreadState): Promise<void> {
    if (!state.loaded) await this.load(state);
    else this.apply(state, await state.log.readNew());
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config?.configurable?.thread_id;
    if (threadId === undefined || threadId === null) return undefined;
    const state = this.thread(threadIdFrom('getTuple', config));
    const namespace = namespaceFrom(config);
    const checkpointId = getCheckpointId(config);
    return this.exclusive(state, async () => {
      await this.sync(state);
      const record = checkpointId
        ? state.index.checkpoint(namespace, checkpointId)
        : state.index.latest(namespace);
      if (record === undefined) return undefined;
      return this.toTuple(state, record, checkpointId ? config : undefined);
    });
  }

  async *list(
    config: RunnableConfig,
    options?: CheckpointListOptions,
  ): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options ?? {};
    const configurable = config?.configurable ?? {};
    const threadIds =
      configurable.thread_id === undefined || configurable.thread_id === null
        ? await this.threadIds()
        : [threadIdFrom('list', config)];
    const namespace: unknown = configurable.checkpoint_ns;
    const onlyId: unknown = configurable.checkpoint_id;
    const beforeId: unknown = before?.configurable?.checkpoint_id;
    const found: Array<{ state: ThreadState; record: CheckpointRecord }> = [];
    for (const threadId of threadIds) {
      const state = this.thread(threadId);
      const records = await this.exclusive(state, async () => {
        await this.sync(state);
        const namespaces = typeof namespace === 'string' ? [namespace] : state.index.namespaces();
        const matching: CheckpointRecord[] = [];
        for (const name of namespaces) {
          for (const record of state.index.checkpoints(name)) {
            if (typeof onlyId === 'string' && onlyId !== '' && record.checkpoint_id !== onlyId)
              continue;
            if (typeof beforeId === 'string' && record.checkpoint_id >= beforeId) continue;
            if (filter !== undefined && Object.keys(filter).length > 0) {
              const metadata = await deserialize(this.serde, record.metadata);
              if (!matchesFilter(metadata, filter)) continue;
            }
            matching.push(record);
          }
        }
        return matching;
      });
      for (const record of records) found.push({ state, record });
    }
    found.sort((left, right) =>
      left.record.checkpoint_id === right.record.checkpoint_id
        ? 0
        : left.record.checkpoint_id > right.record.checkpoint_id
          ? -1
          : 1,
    );
    const limited =
      typeof limit === 'number' && limit >= 0 ? found.slice(0, Math.floor(limit)) : found;
    for (const { state, record } of limited) {
      yield await this.exclusive(state, () => this.toTuple(state, record, undefined));
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadIdFrom('put', config);
    if (typeof checkpoint?.id !== 'string' || checkpoint.id === '') {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `EpisodicSaver.put: checkpoint.id must be a non-empty string (got ${JSON.stringify(checkpoint?.id)}); pass the checkpoint LangGraph created.`,
        details: { field: 'checkpoint.id' },
      });
    }
    const namespace = namespaceFrom(config);
    const parentId: unknown = config.configurable?.checkpoint_id;
    const state = this.thread(threadId);
    const key = this.generateId();
    const storedMetadata = toStoredValue(await serialize(this.serde, metadata), this.trusted);
    const { channel_values: channelValues = {}, ...skeleton } = checkpoint;
    const storedSkeleton = toStoredValue(await serialize(this.serde, skeleton), this.trusted);
    const versions = (checkpoint.channel_versions ?? {}) as Record<string, string | number>;
    const changed = new Set(Object.keys(newVersions ?? {}));
    const parentKnown = typeof parentId === 'string' && parentId !== '';
    /** The record, built from what the index holds now (again after other writers' records). */
    const build = async (): Promise<CheckpointRecord> => {
      const parent = parentKnown ? state.index.checkpoint(namespace, parentId) : undefined;
      const values: Record<string, ValueEntry> = {};
      for (const [channel, value] of Object.entries(channelValues)) {
        if (!changed.has(channel)) {
          // LangGraph names every changed channel in newVersions; any other holds the value
          // stored at its version (as in LangGraph's own savers, nothing when none was). It is
          // looked up in the checkpoint this one follows first: another branch (a fork) may
          // have stored a different value at the same version.
          const version = versions[channel];
          const holder =
            version === undefined
              ? undefined
              : parent !== undefined &&
                  parent.values[channel] !== undefined &&
                  parent.channel_versions[channel] === version
                ? state.index.holderOf(parent, channel)
                : state.index.holderOfVersion(namespace, channel, version);
          if (holder !== undefined) values[channel] = { same: holder.key };
          continue;
        }
        values[channel] = await this.entryFor(state.index, key, parent, channel, value);
      }
      const changes = Object.entries(values)
        .map(([channel, entry]) => describeChange(channel, entry))
        .filter((change): change is string => change !== null);
      return {
        type: CHECKPOINT_RECORD_TYPE,
        run_id: state.log.runId,
        ts: this.now().toISOString(),
        summary: checkpointSummary(checkpoint.id, metadata, namespace, changes),
        key,
        thread_id: threadId,
        checkpoint_ns: namespace,
        checkpoint_id: checkpoint.id,
        ...(parentKnown ? { parent_checkpoint_id: parentId } : {}),
        checkpoint: storedSkeleton,
        channel_versions: versions,
        metadata: storedMetadata,
        values,
      };
    };
    await this.exclusive(state, async () => {
      if (!state.loaded) await this.load(state);
      // A parent this process has not seen yet was put by another saver: read what it added.
      if (parentKnown && state.index.checkpoint(namespace, parentId) === undefined) {
        await this.sync(state);
      }
      const [record] = await state.log.append(
        async () => [await build()],
        (found) => this.apply(state, found),
      );
      state.index.addCheckpoint(record as CheckpointRecord);
    });
    return {
      configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id },
    };
  }

  /**
   * How the new checkpoint holds a channel that changed: when it serializes to the same text as in
   * the checkpoint it follows, a reference to the record that holds it; when it grew at the end,
   * what was appended (kept only when it rebuilds the serializer's text exactly); else the whole
   * value.
   */
  private async entryFor(
    index: ThreadIndex,
    key: string,
    parent: CheckpointRecord | undefined,
    channel: string,
    value: unknown,
  ): Promise<ValueEntry> {
    const serialized = await serialize(this.serde, value);
    if (parent !== undefined && parent.values[channel] !== undefined && serialized.text !== null) {
      const holder = index.holderOf(parent, channel);
      const previous: SerializedValue = index.valueOf(parent, channel);
      if (previous.type === serialized.type && previous.text !== null) {
        if (previous.text === serialized.text) return { same: holder.key };
        if (serialized.type === 'json') {
          // `appendedTo` only answers when the new text is the previous one with `appended` joined
          // on (property-tested), and the previous text is what a reader rebuilds for the base;
          // so the value is stored exactly once the appended part itself is canonical JSON.
          const appended = appendedTo(previous.text, serialized.text);
          const parsed = appended === null ? undefined : canonicalJson(appended.text, this.trusted);
          if (appended !== null && parsed !== undefined) {
            index.rememberText(key, channel, serialized);
            return { base: holder.key, append: { type: 'json', json: parsed.value } };
          }
        }
      }
    }
    index.rememberText(key, channel, serialized);
    return { value: toStoredValue(serialized, this.trusted) };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = threadIdFrom('putWrites', config);
    const checkpointId: unknown = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== 'string' || checkpointId === '') {
      throw invalid(
        'putWrites',
        'checkpoint_id',
        checkpointId,
        'must name the checkpoint the writes belong to',
      );
    }
    if (!Array.isArray(writes)) {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `EpisodicSaver.putWrites: writes must be an array of [channel, value] pairs (got ${typeof writes}).`,
        details: { field: 'writes' },
      });
    }
    if (writes.length === 0) return;
    const namespace = namespaceFrom(config);
    const state = this.thread(threadId);
    const stored = await Promise.all(
      writes.map(async ([channel, value], position) => ({
        idx: WRITES_IDX_MAP[channel] ?? position,
        channel,
        value: toStoredValue(await serialize(this.serde, value), this.trusted),
      })),
    );
    await this.exclusive(state, async () => {
      if (!state.loaded) await this.load(state);
      const record: WritesRecord = {
        type: WRITES_RECORD_TYPE,
        run_id: state.log.runId,
        ts: this.now().toISOString(),
        summary: `${stored.map((write) => write.channel).join(', ')} ← task ${typeof taskPath === 'string' && taskPath !== '' ? taskPath : taskId}${namespace === '' ? '' : ` in ${namespace}`} [checkpoint ${checkpointId}]`,
        thread_id: threadId,
        checkpoint_ns: namespace,
        checkpoint_id: checkpointId,
        task_id: String(taskId),
        task_path: typeof taskPath === 'string' ? taskPath : '',
        writes: stored,
      };
      await state.log.append(
        () => [record],
        (found) => this.apply(state, found),
      );
      state.index.addWrites(record);
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    const id = threadIdFrom('deleteThread', { configurable: { thread_id: threadId } });
    const state = this.thread(id);
    await this.exclusive(state, async () => {
      await state.log.delete();
      state.index = new ThreadIndex(id);
      state.loaded = true;
    });
  }

  /** The ids of every LangGraph thread in the run store (each run's header names its thread). */
  private async threadIds(): Promise<string[]> {
    const { runs } = await this.runs.list();
    const ids: string[] = [];
    for (const summary of runs) {
      // Thread runs have UUIDv5 ids; others are not read.
      if (summary.runId[14] !== '5') continue;
      const run = await this.runs.read(summary.runId).catch(() => null);
      const threadId = threadIdOf(run?.header ?? null);
      if (threadId !== undefined && threadRunId(threadId) === summary.runId) ids.push(threadId);
    }
    return ids;
  }

  private async toTuple(
    state: ThreadState,
    record: CheckpointRecord,
    requested: RunnableConfig | undefined,
  ): Promise<CheckpointTuple> {
    const { index } = state;
    const skeleton = (await deserialize(this.serde, record.checkpoint)) as Omit<
      Checkpoint,
      'channel_values'
    >;
    const channelValues: Record<string, unknown> = {};
    for (const channel of Object.keys(record.values)) {
      const serialized = index.valueOf(record, channel);
      const value =
        serialized.text === null
          ? await deserialize(this.serde, {
              type: serialized.type,
              base64: serialized.base64 ?? '',
            })
          : await deserializeText(this.serde, serialized.type, serialized.text);
      channelValues[channel] = value;
    }
    const checkpoint = { ...skeleton, channel_values: channelValues } as Checkpoint;
    const parentId = record.parent_checkpoint_id;
    if (checkpoint.v < 4 && parentId !== undefined) {
      await this.migratePendingSends(state, checkpoint, record.checkpoint_ns, parentId);
    }
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      index
        .writes(record.checkpoint_ns, record.checkpoint_id)
        .map(async (write) => [
          write.taskId,
          write.channel,
          await deserialize(this.serde, write.value),
        ]),
    );
    const threadId = state.log.threadId;
    return {
      config: requested ?? {
        configurable: {
          thread_id: threadId,
          checkpoint_ns: record.checkpoint_ns,
          checkpoint_id: record.checkpoint_id,
        },
      },
      checkpoint,
      metadata: (await deserialize(this.serde, record.metadata)) as CheckpointMetadata,
      pendingWrites,
      ...(parentId === undefined
        ? {}
        : {
            parentConfig: {
              configurable: {
                thread_id: threadId,
                checkpoint_ns: record.checkpoint_ns,
                checkpoint_id: parentId,
              },
            },
          }),
    };
  }

  /** Checkpoints before format 4 kept pending sends as writes of the parent (as LangGraph's savers do). */
  private async migratePendingSends(
    state: ThreadState,
    checkpoint: Checkpoint,
    namespace: string,
    parentId: string,
  ): Promise<void> {
    const sends = await Promise.all(
      state.index
        .writes(namespace, parentId)
        .filter((write) => write.channel === TASKS)
        .map((write) => deserialize(this.serde, write.value)),
    );
    checkpoint.channel_values[TASKS] = sends;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}
