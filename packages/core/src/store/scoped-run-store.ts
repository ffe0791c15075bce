import * as z from 'zod';
import { SCOPE_MAX_LENGTH } from '../ledger/scope.js';
import type { AccessPredicate } from '../provenance/access-policy.js';
import { effectiveMetadata } from '../provenance/effective-metadata.js';
import type { RunHeader, RunRecord } from '../schema/run-record.js';
import { parseInput } from '../validation/parse-input.js';
import {
  parseRunId,
  type RunReadResult,
  type RunStore,
  type RunSummary,
  runHeaderScope,
  runNotFound,
} from './run-store.js';

/** Options of `scopeRunStore`. */
export interface ScopeRunStoreOptions {
  /**
   * The scope the store is bound to: a run belongs to the scope its header names in `scope`
   * (`DEFAULT_RUN_SCOPE` when it names none). Compared exactly; pass it normalized.
   */
  scope: string;
  /**
   * An access predicate (e.g. `compileAccessPolicy(policy)`) tested against a run's effective task
   * metadata (its `run.start` record's `task.metadata`; `{}` for a run without one): a run it
   * rejects is hidden like another scope's. @default every run of the scope is visible
   */
  visible?: AccessPredicate | undefined;
}

const optionsSchema = z.strictObject({
  scope: z.string().min(1).max(SCOPE_MAX_LENGTH),
  visible: z.function().optional(),
});

/** How many runs' access decisions a scoped store with a predicate remembers. */
const DECISION_CACHE_SIZE = 10_000;

/** A task run's metadata (from its `run.start` record), or null for any other run. */
function taskMetadataOf(records: readonly RunRecord[]): unknown {
  const start = records.find((record) => record.type === 'run.start') as
    | { task?: { metadata?: unknown } }
    | undefined;
  return start?.task?.metadata ?? null;
}

/** The scope of a run read in full: its header's, or the default scope when it has none. */
function scopeOfRead(read: RunReadResult): string {
  const header = read.header ?? read.records.find((record) => record.type === 'header');
  return runHeaderScope((header ?? {}) as RunHeader);
}

/**
 * What tells one run with a given id from another created later with the same id: the header
 * fields a `list()` summary reports (a header is never rewritten while the run exists).
 */
function headerFingerprint(summary: RunSummary): string {
  return JSON.stringify([
    summary.startedAt,
    summary.sessionId,
    summary.schemaVersion,
    summary.model,
    summary.runtime,
  ]);
}

/** The same fingerprint, from a header read in full. */
function fingerprintOfHeader(header: RunHeader): string {
  return JSON.stringify([
    header.started_at,
    header.session_id,
    header.schema_version,
    header.model,
    header.runtime,
  ]);
}

/**
 * A run store bound to one scope (and optionally an access predicate), over any run store:
 * - `list` asks the store for the scope's runs only (`RunListQuery.scope`); with a predicate, the
 *   runs it hides are dropped before `limit`. Errors about runs that could not be summarized are
 *   not reported (their scope is unknown).
 * - `read`, `readAfter`, `tail`, `redact` and an `append` without a header of a run outside the
 *   scope (or hidden, or unreadable) are `NOT_FOUND` with exactly the message of a missing run;
 *   `delete` answers false; `resolveRunId` never resolves, names or counts such a run.
 * - A header appended through it is stamped with the scope (`scope` field).
 * Every call checks the run's header as stored now (a `list` of that one run, by id and scope), so
 * a run deleted behind this store (by another process or store object) and created again with the
 * same id in another scope is never served. With a predicate, the decision on a run's `run.start`
 * (which needs the whole run read) is remembered for the header it was made on.
 */
export function scopeRunStore(runs: RunStore, options: ScopeRunStoreOptions): RunStore {
  const { scope, visible } = parseInput(optionsSchema, options, 'run store scope options') as {
    scope: string;
    visible?: ScopeRunStoreOptions['visible'];
  };
  /** Under a predicate: run id -> the header fingerprint decided on, and the decision. */
  const decided = new Map<string, { fingerprint: string; visible: boolean }>();
  const remember = (runId: string, fingerprint: string, result: boolean): void => {
    decided.delete(runId);
    if (decided.size >= DECISION_CACHE_SIZE) {
      decided.delete(decided.keys().next().value as string);
    }
    decided.set(runId, { fingerprint, visible: result });
  };

  /** The whole run when it is visible, null when it is not (or does not exist, or is unreadable). */
  const readVisible = async (runId: string): Promise<RunReadResult | null> => {
    let read: RunReadResult;
    try {
      read = await runs.read(runId);
    } catch (error) {
      // A run that cannot be read at all (e.g. a FIFO in place of its file) has no known scope.
      const code = (error as { code?: unknown }).code;
      if (code === 'NOT_FOUND' || code === 'CORRUPT_DATA') return null;
      throw error;
    }
    if (scopeOfRead(read) !== scope) return null;
    if (visible === undefined) return read;
    const result = visible(effectiveMetadata([taskMetadataOf(read.records)]));
    // Final once the header is read and the run's start too.
    if (read.header !== null && read.records.some((record) => record.type === 'run.start')) {
      remember(runId, fingerprintOfHeader(read.header), result);
    }
    return result ? read : null;
  };

  /** The predicate's decision on a listed run of the scope (remembered for its header). */
  const allowed = async (summary: RunSummary): Promise<boolean> => {
    const known = decided.get(summary.runId);
    if (known !== undefined && known.fingerprint === headerFingerprint(summary)) {
      return known.visible;
    }
    return (await readVisible(summary.runId)) !== null;
  };

  const isVisible = async (runId: string): Promise<boolean> => {
    // The header as stored now decides the scope: the store lists this one run by id and scope.
    const listed = await runs.list({ runIds: [runId], scope });
    const summary = listed.runs[0];
    if (summary !== undefined) return visible === undefined || allowed(summary);
    // Missing or another scope's; unless its header is unreadable: then the run itself decides.
    if (!listed.errors.some((error) => error.runId === runId)) return false;
    return (await readVisible(runId)) !== null;
  };

  const stamp = (records: readonly RunRecord[]): RunRecord[] =>
    records.map((record) =>
      record.type === 'header' ? ({ ...record, scope } as RunRecord) : record,
    );

  return {
    name: runs.name,
    capabilities: runs.capabilities,
    async append(runId, records, appendOptions) {
      const id = parseRunId(runId);
      // A new run is created in the scope; appending to an existing one needs it visible.
      if (records?.[0]?.type !== 'header' && !(await isVisible(id))) {
        throw runNotFound(id, 'append');
      }
      return runs.append(id, Array.isArray(records) ? stamp(records) : records, appendOptions);
    },
    async read(runId) {
      const id = parseRunId(runId);
      const read = await readVisible(id);
      if (read === null) throw runNotFound(id);
      return read;
    },
    async readAfter(runId, position) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.readAfter(id, position);
    },
    async tail(runId, tailOptions) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.tail(id, tailOptions);
    },
    async list(query) {
      if (visible === undefined) {
        const listed = await runs.list({ ...query, scope });
        return { runs: listed.runs, errors: [] };
      }
      const { limit, ...rest } = query ?? {};
      const listed = await runs.list({ ...rest, scope });
      const found = [];
      for (const summary of listed.runs) {
        if (limit !== undefined && found.length >= limit) break;
        if (await allowed(summary)) found.push(summary);
      }
      return { runs: found, errors: [] };
    },
    async delete(runId) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) return false;
      decided.delete(id);
      return runs.delete(id);
    },
    async redact(runId, redactOptions) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.redact(id, redactOptions);
    },
    resolveRunId: (reference, resolveOptions = {}) =>
      runs.resolveRunId(reference, {
        ...resolveOptions,
        visible: async (runId) =>
          (await isVisible(runId)) &&
          (resolveOptions.visible === undefined || (await resolveOptions.visible(runId))),
      }),
    close: () => runs.close(),
  };
}
