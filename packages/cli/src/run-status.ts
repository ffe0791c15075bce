import type { RunRecord } from '@episodic/core';
import type { Styles } from './output.js';

/** Where a run stands, from its last record. */
export interface RunStatus {
  /**
   * The `run.end` outcome (`completed`, `cancelled`, `error`, or a newer value a writer used), the
   * last `run.status` of a run that has not ended, `error` for a run whose last record is a
   * `run.error`, or `unfinished` (no end yet: running, or its writer stopped).
   */
  readonly status: string;
  /** When the run ended (its `run.end` time); null when it has not. */
  readonly endedAt: string | null;
}

/** The status of a run whose last record is `last` (undefined for an empty run). */
export function runStatusOf(last: RunRecord | undefined): RunStatus {
  const record = (last ?? {}) as {
    type?: string;
    outcome?: unknown;
    status?: unknown;
    ts?: unknown;
  };
  if (record.type === 'run.end') {
    return {
      status:
        typeof record.outcome === 'string' && record.outcome !== '' ? record.outcome : 'ended',
      endedAt: typeof record.ts === 'string' ? record.ts : null,
    };
  }
  if (record.type === 'run.error') return { status: 'error', endedAt: null };
  if (record.type === 'run.status' && typeof record.status === 'string' && record.status !== '') {
    return { status: record.status, endedAt: null };
  }
  return { status: 'unfinished', endedAt: null };
}

/** Colours a status so failed and cancelled runs stand out (only when colour is on). */
export function styleStatus(styles: Styles, status: string): string {
  if (status === 'completed' || status === 'success') return styles.green(status);
  if (status === 'error' || status === 'failed' || status === 'failure') return styles.red(status);
  if (status === 'cancelled' || status === 'partial_success') return styles.yellow(status);
  return styles.cyan(status);
}
