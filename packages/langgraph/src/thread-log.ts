import {
  VERSION as CORE_VERSION,
  EpisodicError,
  RUN_RECORD_SCHEMA_VERSION,
  type RunHeader,
  type RunRecord,
  type RunStore,
} from '@episodic/core';
import { VERSION } from './version.js';

/** The `meta` a thread's run header carries. */
export interface ThreadRunMeta {
  langgraph: { thread_id: string };
}

/** What reading a thread's run gave. */
export interface ThreadRead {
  /** The records after the header, in stored order. */
  readonly records: RunRecord[];
  /** False when the thread has no run yet. */
  readonly exists: boolean;
}

/** The thread id a run header names, if it is a LangGraph thread's run. */
export function threadIdOf(header: RunHeader | null): string | undefined {
  const meta = header?.meta as Partial<ThreadRunMeta> | undefined;
  const threadId = meta?.langgraph?.thread_id;
  return typeof threadId === 'string' ? threadId : undefined;
}

/**
 * The run of one LangGraph thread in a `RunStore`: created with its header on the first append,
 * read whole, and checked for records other writers appended around this process's own (the run's
 * tail is compared with the records this process read or appended last). When the run store gains
 * reads from a known position, `changed` + `read` become one read of what follows it.
 */
export class ThreadLog {
  /**
   * The last records this process knows, as JSON: the one before its latest append, then the ones
   * it appended. Another writer's records anywhere around them make the run's tail differ.
   */
  private expectedTail: string[] = [];
  private created = false;
  /** Set when records this process has not read are known to exist. */
  private stale = false;

  constructor(
    private readonly runs: RunStore,
    readonly threadId: string,
    readonly runId: string,
    private readonly now: () => Date,
  ) {}

  /** The whole run; no records when it does not exist. */
  async read(): Promise<ThreadRead> {
    let run: Awaited<ReturnType<RunStore['read']>>;
    try {
      run = await this.runs.read(this.runId);
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) {
        this.expectedTail = [];
        this.created = false;
        return { records: [], exists: false };
      }
      throw error;
    }
    const named = threadIdOf(run.header);
    if (run.header !== null && named !== this.threadId) {
      throw new EpisodicError({
        code: 'CONFLICT',
        message: `Run ${this.runId} does not hold LangGraph thread ${JSON.stringify(this.threadId)} (its header names ${JSON.stringify(named ?? null)}). Another program wrote a run with this id; move it away or use another Episodic home.`,
        details: { runId: this.runId, threadId: this.threadId },
      });
    }
    this.created = true;
    this.stale = false;
    const records = run.records.filter((record) => record.type !== 'header');
    const lastRecord = run.records.at(-1);
    this.expectedTail = lastRecord === undefined ? [] : [JSON.stringify(lastRecord)];
    return { records, exists: true };
  }

  /** True when the run holds records this process has not read or written. */
  async changed(): Promise<boolean> {
    if (this.stale) return true;
    let tail: Awaited<ReturnType<RunStore['tail']>>;
    try {
      tail = await this.runs.tail(this.runId, { count: Math.max(1, this.expectedTail.length) });
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return this.expectedTail.length > 0;
      throw error;
    }
    const actual = tail.records.map((record) => JSON.stringify(record));
    return (
      actual.length !== this.expectedTail.length ||
      actual.some((json, index) => json !== this.expectedTail[index])
    );
  }

  private appended(previous: string | undefined, records: readonly RunRecord[]): void {
    this.expectedTail = [
      ...(previous === undefined ? [] : [previous]),
      ...records.map((record) => JSON.stringify(record)),
    ];
  }

  /** Appends records, creating the run (its header first) when it does not exist. */
  async append(records: RunRecord[]): Promise<void> {
    if (!this.created) {
      const header: RunHeader = {
        type: 'header',
        schema_version: RUN_RECORD_SCHEMA_VERSION,
        run_id: this.runId,
        started_at: this.now().toISOString(),
        client: { name: '@episodic/langgraph', version: VERSION },
        server: { name: 'episodic', version: CORE_VERSION },
        meta: { langgraph: { thread_id: this.threadId } } satisfies ThreadRunMeta,
      };
      try {
        await this.runs.append(this.runId, [header, ...records]);
        this.created = true;
        this.appended(JSON.stringify(header), records);
        return;
      } catch (error) {
        // Another saver created the run first: append after its header.
        if (!EpisodicError.hasCode(error, 'CONFLICT')) throw error;
        this.created = true;
        this.stale = true;
      }
    }
    const previous = this.expectedTail.at(-1);
    await this.runs.append(this.runId, records);
    this.appended(previous, records);
  }

  /** Deletes the run; false when there was none. */
  async delete(): Promise<boolean> {
    const deleted = await this.runs.delete(this.runId);
    this.created = false;
    this.expectedTail = [];
    return deleted;
  }
}
