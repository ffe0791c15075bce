import {
  VERSION as CORE_VERSION,
  EpisodicError,
  type RunHeader,
  type RunRecord,
  type RunStore,
} from '@episodic/core';
import { pauseAfterLostRace } from '@episodic/core/adapter';
import { RUN_RECORD_SCHEMA_VERSION } from '@episodic/core/schemas';
import { VERSION } from './version.js';

/** The `meta` a thread's run header carries. */
export interface ThreadRunMeta {
  langgraph: { thread_id: string };
}

/** The thread id a run header names, if it is a LangGraph thread's run. */
export function threadIdOf(header: RunHeader | null | undefined): string | undefined {
  const meta = header?.meta as Partial<ThreadRunMeta> | undefined;
  const threadId = meta?.langgraph?.thread_id;
  return typeof threadId === 'string' ? threadId : undefined;
}

/** What a read of the thread's run gave: records this process had not seen yet. */
export interface ThreadRecords {
  /** The records (the header left out), in stored order. */
  readonly records: RunRecord[];
  /** True when the run was gone or started again: what was known before no longer holds. */
  readonly reset: boolean;
}

/**
 * How often an append re-reads and retries when other writers keep appending first. Each lost
 * race means another writer's append landed, and from the third on the retry waits a short random
 * pause, so a writer slower than the others (a busy machine, a far database) still finds a gap:
 * with a fixed 100 immediate retries, one of three processes on two busy cores once lost every
 * race and failed.
 */
export const APPEND_ATTEMPTS = 1000;

/**
 * The run of one LangGraph thread in a `RunStore`, read and appended by position: this process
 * knows the run up to `position` and reads only what follows it (`readAfter`); every append is a
 * compare-and-append at that position, so a record lands only after everything this process has
 * seen. When another saver appended first, the append reads what it added (handing it to
 * `onOthers`) and retries: no write is lost and none lands before records its writer had not seen.
 */
export class ThreadLog {
  private position = 0;

  constructor(
    private readonly runs: RunStore,
    readonly threadId: string,
    readonly runId: string,
    private readonly now: () => Date,
    private readonly attempts = APPEND_ATTEMPTS,
  ) {}

  private checkHeader(header: RunRecord | null | undefined): void {
    const named = threadIdOf(header as RunHeader | null | undefined);
    if (header?.type === 'header' && named === this.threadId) return;
    throw new EpisodicError({
      code: 'CONFLICT',
      message: `Run ${this.runId} does not hold LangGraph thread ${JSON.stringify(this.threadId)} (its header names ${JSON.stringify(named ?? null)}). Another program wrote a run with this id; move it away or use another Episodic home.`,
      details: { runId: this.runId, threadId: this.threadId },
    });
  }

  /** The whole run (no records when it does not exist). */
  async readAll(): Promise<RunRecord[]> {
    try {
      const run = await this.runs.read(this.runId);
      this.checkHeader(run.header ?? run.records[0]);
      this.position = run.position;
      return run.records.filter((record) => record.type !== 'header');
    } catch (error) {
      if (!EpisodicError.hasCode(error, 'NOT_FOUND')) throw error;
      this.position = 0;
      return [];
    }
  }

  /** The records appended since this process last read or wrote. */
  async readNew(): Promise<ThreadRecords> {
    const from = this.position;
    try {
      const after = await this.runs.readAfter(this.runId, from);
      // A run file another process has created but not yet given its header holds nothing to
      // check: the append that follows is checked at position 0 by the compare-and-append.
      if (from === 0 && after.position > 0) this.checkHeader(after.records[0]);
      this.position = after.position;
      return { records: after.records.filter((record) => record.type !== 'header'), reset: false };
    } catch (error) {
      // Gone (deleted), or shorter than what this process knew (deleted and started again).
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) {
        this.position = 0;
        return { records: [], reset: from > 0 };
      }
      if (EpisodicError.hasCode(error, 'CONFLICT') && from > 0) {
        return { records: await this.readAll(), reset: true };
      }
      throw error;
    }
  }

  /**
   * Appends the records `build` gives at the position this process knows (creating the run,
   * header first, when it does not exist). When another writer appended first, what it added is
   * read and given to `onOthers`, and `build` is called again (records may refer to others, which
   * must be in the run before them). Resolves with the records stored.
   */
  async append<T extends RunRecord>(
    build: () => T[] | Promise<T[]>,
    onOthers: (found: ThreadRecords) => void,
  ): Promise<T[]> {
    for (let attempt = 1; ; attempt++) {
      const header = this.position === 0 ? [this.header()] : [];
      const records = await build();
      const batch = [...header, ...records];
      try {
        const receipt = await this.runs.append(this.runId, batch, {
          expectedPosition: this.position,
        });
        this.position = receipt.position ?? this.position + batch.length;
        return records;
      } catch (error) {
        if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        if (attempt >= this.attempts) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `LangGraph thread ${JSON.stringify(this.threadId)} kept changing underneath this write: ${attempt} appends each lost the race to another writer. Nothing of this write was stored; call again later.`,
            details: { runId: this.runId, threadId: this.threadId, attempts: attempt },
            cause: error,
          });
        }
        onOthers(await this.readNew());
        await pauseAfterLostRace(attempt);
      }
    }
  }

  /** Deletes the run; false when there was none. */
  async delete(): Promise<boolean> {
    const deleted = await this.runs.delete(this.runId);
    this.position = 0;
    return deleted;
  }

  private header(): RunHeader {
    return {
      type: 'header',
      schema_version: RUN_RECORD_SCHEMA_VERSION,
      run_id: this.runId,
      started_at: this.now().toISOString(),
      client: { name: '@episodic/langgraph', version: VERSION },
      server: { name: 'episodic', version: CORE_VERSION },
      meta: { langgraph: { thread_id: this.threadId } } satisfies ThreadRunMeta,
    };
  }
}
