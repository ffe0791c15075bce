import { EpisodicError, type RunRecord } from '@episodic/core';
import { compareWritesSortKeys, writesSortKey } from '@langchain/langgraph-checkpoint';
import {
  CHECKPOINT_RECORD_TYPE,
  type CheckpointRecord,
  checkpointRecordSchema,
  type ValueEntry,
  WRITES_RECORD_TYPE,
  type WritesRecord,
  writesRecordSchema,
} from './langgraph-records.js';
import { type SerializedValue, type StoredValue, storedText } from './stored-value.js';
import { applyAppended } from './value-delta.js';

/** One pending write as the index keeps it. */
export interface IndexedWrite {
  readonly taskId: string;
  readonly taskPath: string;
  readonly idx: number;
  readonly channel: string;
  readonly value: StoredValue;
}

/** How many resolved channel values the index keeps (texts of the newest values, mostly). */
const VALUE_CACHE_ENTRIES = 256;

function serializedOf(stored: StoredValue): SerializedValue {
  if ('base64' in stored) return { type: stored.type, text: null, base64: stored.base64 };
  return { type: stored.type, text: storedText(stored) };
}

function versionKey(namespace: string, channel: string, version: string | number): string {
  return `${namespace}\u0000${channel}\u0000${typeof version}:${String(version)}`;
}

function corrupt(threadId: string, message: string): EpisodicError {
  return new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `LangGraph thread ${threadId}: ${message} The thread's run file or rows were changed or damaged; run "episodic doctor" and restore them from a backup.`,
    details: { threadId },
  });
}

/**
 * Everything the saver knows about one thread, built from its run records: the checkpoints of
 * every namespace, the pending writes of each checkpoint, and the channel values, resolved on
 * demand from the record that holds them (following `same` and `base` references) and cached.
 */
export class ThreadIndex {
  private readonly byNamespace = new Map<string, Map<string, CheckpointRecord>>();
  private readonly byKey = new Map<string, CheckpointRecord>();
  private readonly writesByCheckpoint = new Map<string, Map<string, IndexedWrite>>();
  private readonly texts = new Map<string, SerializedValue>();
  /** `namespace, channel, version` → the key of the record that stored that version's value. */
  private readonly versions = new Map<string, string>();
  /** Records that did not match their schema (skipped). */
  damaged = 0;

  constructor(readonly threadId: string) {}

  /** Adds a record read from the store (checked against its schema; a bad one is skipped). */
  add(record: RunRecord): void {
    if (record.type === CHECKPOINT_RECORD_TYPE) {
      const parsed = checkpointRecordSchema.safeParse(record);
      if (parsed.success) this.addCheckpoint(parsed.data);
      else this.damaged += 1;
      return;
    }
    if (record.type === WRITES_RECORD_TYPE) {
      const parsed = writesRecordSchema.safeParse(record);
      if (parsed.success) this.addWrites(parsed.data);
      else this.damaged += 1;
    }
  }

  /** Adds a checkpoint record this process built (already well-formed). */
  addCheckpoint(checkpoint: CheckpointRecord): void {
    let namespace = this.byNamespace.get(checkpoint.checkpoint_ns);
    if (namespace === undefined) {
      namespace = new Map();
      this.byNamespace.set(checkpoint.checkpoint_ns, namespace);
    }
    // A checkpoint put again replaces the earlier one (as in LangGraph's own savers); records
    // that refer to the earlier one by its key still find it.
    namespace.set(checkpoint.checkpoint_id, checkpoint);
    this.byKey.set(checkpoint.key, checkpoint);
    for (const [channel, entry] of Object.entries(checkpoint.values)) {
      const version = checkpoint.channel_versions[channel];
      if ('same' in entry || version === undefined) continue;
      this.versions.set(versionKey(checkpoint.checkpoint_ns, channel, version), checkpoint.key);
    }
  }

  /** Adds a writes record this process built (already well-formed). */
  addWrites(writes: WritesRecord): void {
    const key = `${writes.checkpoint_ns}\u0000${writes.checkpoint_id}`;
    let stored = this.writesByCheckpoint.get(key);
    if (stored === undefined) {
      stored = new Map();
      this.writesByCheckpoint.set(key, stored);
    }
    for (const write of writes.writes) {
      const writeKey = `${writes.task_id}\u0000${write.idx}`;
      // A regular write is kept once (a retried task writes the same); a special one
      // (error, interrupt, resume, scheduled) takes the latest value.
      if (write.idx >= 0 && stored.has(writeKey)) continue;
      stored.set(writeKey, {
        taskId: writes.task_id,
        taskPath: writes.task_path,
        idx: write.idx,
        channel: write.channel,
        value: write.value,
      });
    }
  }

  /** The namespaces that have checkpoints. */
  namespaces(): string[] {
    return [...this.byNamespace.keys()];
  }

  checkpoint(namespace: string, checkpointId: string): CheckpointRecord | undefined {
    return this.byNamespace.get(namespace)?.get(checkpointId);
  }

  /** The newest checkpoint of a namespace (checkpoint ids are time-ordered uuid6). */
  latest(namespace: string): CheckpointRecord | undefined {
    let latest: CheckpointRecord | undefined;
    for (const checkpoint of this.byNamespace.get(namespace)?.values() ?? []) {
      if (latest === undefined || checkpoint.checkpoint_id > latest.checkpoint_id)
        latest = checkpoint;
    }
    return latest;
  }

  /** Every checkpoint of a namespace. */
  checkpoints(namespace: string): CheckpointRecord[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  /** The pending writes of a checkpoint, in `writesSortKey` order (the order LangGraph applies them). */
  writes(namespace: string, checkpointId: string): IndexedWrite[] {
    const stored = this.writesByCheckpoint.get(`${namespace}\u0000${checkpointId}`);
    if (stored === undefined) return [];
    return [...stored.values()].sort((left, right) =>
      compareWritesSortKeys(
        writesSortKey(left.taskPath, left.taskId, left.idx),
        writesSortKey(right.taskPath, right.taskId, right.idx),
      ),
    );
  }

  /** The record that stored a channel's value at a version, if any. */
  holderOfVersion(
    namespace: string,
    channel: string,
    version: string | number,
  ): CheckpointRecord | undefined {
    const key = this.versions.get(versionKey(namespace, channel, version));
    return key === undefined ? undefined : this.byKey.get(key);
  }

  /** The record that holds a channel's value for `checkpoint` (itself, or the one `same` names). */
  holderOf(checkpoint: CheckpointRecord, channel: string): CheckpointRecord {
    const entry = checkpoint.values[channel] as ValueEntry | undefined;
    if (entry === undefined) {
      throw corrupt(
        this.threadId,
        `checkpoint ${checkpoint.checkpoint_id} has no value for channel "${channel}".`,
      );
    }
    if (!('same' in entry)) return checkpoint;
    const holder = this.byKey.get(entry.same);
    const held = holder?.values[channel] as ValueEntry | undefined;
    if (holder === undefined || held === undefined || 'same' in held) {
      throw corrupt(
        this.threadId,
        `checkpoint ${checkpoint.checkpoint_id} refers to record ${entry.same} for channel "${channel}", which does not hold it.`,
      );
    }
    return holder;
  }

  /** The serialized value of a channel at a checkpoint, resolved through appends and cached. */
  valueOf(checkpoint: CheckpointRecord, channel: string): SerializedValue {
    const holder = this.holderOf(checkpoint, channel);
    const appended: string[] = [];
    let current = holder;
    let base: SerializedValue | undefined;
    for (let hops = 0; base === undefined; hops++) {
      if (hops > this.byKey.size) {
        throw corrupt(
          this.threadId,
          `the value of channel "${channel}" refers to itself in a loop.`,
        );
      }
      const cached = this.cachedText(current.key, channel);
      if (cached !== undefined) {
        base = cached;
        break;
      }
      const entry = current.values[channel] as ValueEntry | undefined;
      if (entry === undefined || 'same' in entry) {
        throw corrupt(this.threadId, `record ${current.key} does not hold channel "${channel}".`);
      }
      if ('value' in entry) {
        base = serializedOf(entry.value);
        break;
      }
      const text = storedText(entry.append);
      const next = this.byKey.get(entry.base);
      if (text === null || next === undefined) {
        throw corrupt(
          this.threadId,
          `an append to channel "${channel}" refers to record ${entry.base}, which is missing.`,
        );
      }
      appended.push(text);
      current = next;
    }
    const value: SerializedValue =
      appended.length === 0 || base.text === null
        ? base
        : { type: base.type, text: applyAppended(base.text, appended.reverse()) };
    this.rememberText(holder.key, channel, value);
    return value;
  }

  /** Keeps a value's text for `valueOf` and later deltas. */
  rememberText(key: string, channel: string, value: SerializedValue): void {
    const cacheKey = `${key}\u0000${channel}`;
    this.texts.delete(cacheKey);
    this.texts.set(cacheKey, value);
    if (this.texts.size > VALUE_CACHE_ENTRIES) {
      const oldest = this.texts.keys().next().value as string;
      this.texts.delete(oldest);
    }
  }

  private cachedText(key: string, channel: string): SerializedValue | undefined {
    const cacheKey = `${key}\u0000${channel}`;
    const value = this.texts.get(cacheKey);
    if (value !== undefined) {
      this.texts.delete(cacheKey);
      this.texts.set(cacheKey, value);
    }
    return value;
  }
}
