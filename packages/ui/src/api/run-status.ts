import type { RunRecord, RunStore } from '@episodic/core';
import type { RunStatusName } from './api-types.js';

/** How a run stands, from its last records. */
export interface RunStanding {
  status: RunStatusName;
  endedAt: string | null;
  /** The message of the error that ended it, when it failed. */
  error: string | null;
}

/**
 * The status of a run from its records (the last one decides): a `run.end` gives its outcome
 * (`error` shown as `failed`); without one the run is still `running` (or its writer stopped
 * before `run.end`: the UI cannot tell the two apart, and says so where it shows the run).
 */
export function standingOf(records: readonly RunRecord[]): RunStanding {
  let error: string | null = null;
  let end: (RunRecord & Record<string, unknown>) | undefined;
  for (const raw of records) {
    const record = raw as RunRecord & Record<string, unknown>;
    if (record.type === 'run.error') {
      const value = record.error as { message?: unknown } | undefined;
      error = typeof value?.message === 'string' ? value.message : 'run.error';
    } else if (record.type === 'run.status' && record.status === 'error' && error === null) {
      error = typeof record.message === 'string' ? record.message : null;
    } else if (record.type === 'run.end') {
      end = record;
    }
  }
  if (end === undefined) return { status: 'running', endedAt: null, error };
  const outcome = String(end.outcome);
  return {
    status: outcome === 'error' ? 'failed' : outcome,
    endedAt: typeof end.ts === 'string' ? end.ts : null,
    error,
  };
}

/** How many records from the end a status read looks at (`run.end`, and the `run.error` before it). */
const STATUS_TAIL = 3;

/**
 * Looks up run statuses with a tail read of each run (never the whole file). A run that has ended
 * cannot change status, so its standing is remembered; a running one is read again every time.
 */
export function createRunStatusCache(runs: RunStore, capacity = 100_000) {
  const ended = new Map<string, RunStanding>();
  return {
    async get(runId: string): Promise<RunStanding> {
      const known = ended.get(runId);
      if (known !== undefined) return known;
      const tail = await runs.tail(runId, { count: STATUS_TAIL });
      const standing = standingOf(tail.records);
      if (standing.endedAt !== null) {
        if (ended.size >= capacity) ended.delete(ended.keys().next().value as string);
        ended.set(runId, standing);
      }
      return standing;
    },
  };
}

export type RunStatusCache = ReturnType<typeof createRunStatusCache>;
