import {
  type AccessPredicate,
  effectiveMetadata,
  type RunHeader,
  type RunListQuery,
  type RunReadResult,
  type RunRecord,
  type RunStore,
  type RunSummary,
} from '@episodic/core';
import { parseRunId, runHeaderScope, runNotFound } from '@episodic/core/adapter';
import { DEFAULT_SCOPE } from './bound-scope.js';

/** The header field that records the scope a run belongs to. */
export const RUN_SCOPE_FIELD = 'scope';

/** How many runs' visibility a view remembers (headers and `run.start` never change). */
const VISIBILITY_CACHE_SIZE = 10_000;

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

/** A task run's metadata (from its `run.start` record), or null for any other run. */
export function metadataOfRun(records: readonly RunRecord[]): unknown {
  const start = records.find((record) => record.type === 'run.start') as
    | { task?: { metadata?: unknown } }
    | undefined;
  return start?.task?.metadata ?? null;
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
 * Restricts a run store to one scope. A run belongs to the scope named in its header's `scope`
 * field (the server stamps it on every task it creates); a run recorded without one belongs to
 * the default scope. Under an access policy only task runs whose metadata satisfies it are visible.
 */
export function createScopedRunView(options: ScopedRunViewOptions): ScopedRunView {
  const { runs, scope, visible } = options;
  const known = new Map<string, boolean>();

  const decide = (read: RunReadResult): boolean => {
    if (scopeOfRun(read) !== scope) return false;
    if (visible === undefined) return true;
    return visible(effectiveMetadata([metadataOfRun(read.records)]));
  };

  const remember = (runId: string, read: RunReadResult, result: boolean): void => {
    // Only a run whose start has been recorded is final: its header and run.start never change.
    if (!read.records.some((record) => record.type === 'run.start')) return;
    if (known.size >= VISIBILITY_CACHE_SIZE) known.delete(known.keys().next().value as string);
    known.set(runId, result);
  };

  const readVisible = async (runId: string): Promise<RunReadResult | null> => {
    const id = parseRunId(runId);
    if (known.get(id) === false) return null;
    let read: RunReadResult;
    try {
      read = await runs.read(id);
    } catch (error) {
      // A run that cannot be read at all (e.g. a FIFO in place of its file) has no known scope or
      // metadata: it is not shown, and answers exactly like a run that does not exist.
      const code = (error as { code?: unknown }).code;
      if (code === 'NOT_FOUND' || code === 'CORRUPT_DATA') return null;
      throw error;
    }
    const result = decide(read);
    remember(id, read, result);
    return result ? read : null;
  };

  /** Visibility, from the cache when the run's start is known; reads the run otherwise. */
  const isVisible = async (id: string): Promise<boolean> =>
    known.get(id) ?? (await readVisible(id)) !== null;

  const stamp = (records: readonly RunRecord[]): RunRecord[] =>
    records.map((record) =>
      record.type === 'header' ? ({ ...record, [RUN_SCOPE_FIELD]: scope } as RunRecord) : record,
    );

  const scopedRuns: RunStore = {
    name: runs.name,
    capabilities: runs.capabilities,
    async append(runId, records, appendOptions) {
      const id = parseRunId(runId);
      const startsRun = records[0]?.type === 'header';
      // Appending to an existing run needs that run to be visible; a new run is created in scope.
      if (!startsRun && !(await isVisible(id))) throw runNotFound(id, 'append');
      return runs.append(id, stamp(records), appendOptions);
    },
    async readAfter(runId, position) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.readAfter(id, position);
    },
    async read(runId) {
      const id = parseRunId(runId);
      const read = await readVisible(id);
      if (read === null) throw runNotFound(id);
      return read;
    },
    async tail(runId, tailOptions) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.tail(id, tailOptions);
    },
    async list(query) {
      const { limit, ...rest } = query ?? {};
      const found = await listVisible(rest, limit ?? Number.POSITIVE_INFINITY);
      return { runs: found.map((run) => run.summary), errors: [] };
    },
    async delete(runId) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) return false;
      known.delete(id);
      return runs.delete(id);
    },
    async redact(runId, redactOptions) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.redact(id, redactOptions);
    },
    // A prefix resolves only among this scope's visible runs: others are never named or counted.
    resolveRunId: (reference, resolveOptions = {}) =>
      runs.resolveRunId(reference, {
        ...resolveOptions,
        visible: async (runId) =>
          (await isVisible(runId)) &&
          (resolveOptions.visible === undefined || (await resolveOptions.visible(runId))),
      }),
    close: () => runs.close(),
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
