import {
  type AccessPredicate,
  EpisodicError,
  type RunHeader,
  type RunListQuery,
  type RunReadResult,
  type RunStore,
  type RunSummary,
  scopeRunStore,
} from '@episodic/core';
import { runHeaderScope } from '@episodic/core/adapter';
import { DEFAULT_SCOPE } from './bound-scope.js';

/** The header field that records the scope a run belongs to. */
export const RUN_SCOPE_FIELD = 'scope';

/** A run store restricted to one scope (and an optional access policy), as the tools see it. */
export interface ScopedRunView {
  /**
   * The run store handed to the task lifecycle: headers it appends are stamped with the scope;
   * reading a run outside the scope (or hidden by the policy) is `NOT_FOUND`, exactly like a run
   * that does not exist.
   */
  readonly runs: RunStore;
  /** Reads a run that is visible in the scope, or null when it is not (or does not exist). */
  readVisible(runId: string): Promise<RunReadResult | null>;
  /**
   * The visible runs matching `query` (and `options.accept`), newest first, at most `limit`. A run
   * that cannot be read is skipped (its scope is unknown, so nothing about it is reported to the
   * client) and passed to `options.onSkip`.
   */
  listVisible(
    query: Omit<RunListQuery, 'limit'>,
    limit: number,
    options?: ListVisibleOptions,
  ): Promise<VisibleRun[]>;
}

/** Options of `ScopedRunView.listVisible`. */
export interface ListVisibleOptions {
  /** Only runs for which this returns true. */
  accept?: ((read: RunReadResult) => boolean) | undefined;
  /** Called for each run that could not be listed or read. */
  onSkip?: ((runId: string | undefined, error: unknown) => void) | undefined;
}

/** A run listed by `listVisible`. */
export interface VisibleRun {
  summary: RunSummary;
  /** The run read in full (the header and `run.start` decided its visibility). */
  read: RunReadResult;
}

/** The scope a run belongs to: its header's `scope`, or the default scope when it has none. */
export function scopeOfRun(read: Pick<RunReadResult, 'header' | 'records'>): string {
  const header = read.header ?? read.records.find((record) => record.type === 'header');
  return header === undefined ? DEFAULT_SCOPE : runHeaderScope(header as RunHeader);
}

/** Options of `createScopedRunView`. */
export interface ScopedRunViewOptions {
  /** The underlying run store (every scope's runs). */
  runs: RunStore;
  /** The bound scope (normalized). */
  scope: string;
  /** The compiled access policy, tested against a run's task metadata; none when unrestricted. */
  visible?: AccessPredicate | undefined;
}

/**
 * Restricts a run store to one scope (core's `scopeRunStore` decides what is visible). A run
 * belongs to the scope named in its header's `scope` field (the server stamps it on every task it
 * creates); a run recorded without one belongs to the default scope. Under an access policy only
 * task runs whose metadata satisfies it are visible.
 */
export function createScopedRunView(options: ScopedRunViewOptions): ScopedRunView {
  const { runs, scope, visible } = options;
  const scopedRuns = scopeRunStore(runs, { scope, visible });

  const readVisible = async (runId: string): Promise<RunReadResult | null> => {
    try {
      return await scopedRuns.read(runId);
    } catch (error) {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return null;
      throw error;
    }
  };

  const listVisible: ScopedRunView['listVisible'] = async (query, limit, options = {}) => {
    const { accept, onSkip } = options;
    // The store lists this scope's runs only: another scope's runs are never read.
    const listed = await runs.list({ ...query, scope });
    for (const error of listed.errors) onSkip?.(error.runId, error);
    const found: VisibleRun[] = [];
    for (const summary of listed.runs) {
      if (found.length >= limit) break;
      let read: RunReadResult | null;
      try {
        read = await readVisible(summary.runId);
      } catch (error) {
        onSkip?.(summary.runId, error);
        continue;
      }
      if (read !== null && (accept === undefined || accept(read))) found.push({ summary, read });
    }
    return found;
  };

  return { runs: scopedRuns, readVisible, listVisible };
}
