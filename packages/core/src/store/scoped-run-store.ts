import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { SCOPE_MAX_LENGTH } from '../ledger/scope.js';
import type { AccessPredicate } from '../provenance/access-policy.js';
import { effectiveMetadata } from '../provenance/effective-metadata.js';
import type { RunHeader, RunRecord } from '../schema/run-record.js';
import {
  type RunSearchHit,
  type RunSearchQuery,
  runSearchQuerySchema,
} from '../search/run-search-query.js';
import { SEARCH_MAX_LIMIT } from '../search/search-query.js';
import { parseInput } from '../validation/parse-input.js';
import {
  parseRunId,
  type RunReadAfterResult,
  type RunReadResult,
  type RunStore,
  type RunSummary,
  type RunVerifyChainOptions,
  readRunHeaderLine,
  runHeaderScope,
  runNotFound,
  runSearchPageOf,
} from './run-store.js';

function scopedImport(): EpisodicError {
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message:
      "A scoped run store does not import proofs: import through the home's own run store (episodic import).",
  });
}

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
 * What tells one run with a given id from another created later with the same id, as far as a
 * `list()` summary shows it: the header fields it reports (a header is never rewritten while the
 * run exists). Takes a summary, or a header read in full (through `summaryFieldsOf`).
 */
function fingerprint(fields: RunSummary): string {
  return JSON.stringify([
    fields.startedAt,
    fields.sessionId,
    fields.schemaVersion,
    fields.model,
    fields.runtime,
  ]);
}

/** A header's fields as a summary names them, for `fingerprint`. */
function summaryFieldsOf(runId: string, header: RunHeader): RunSummary {
  return {
    runId,
    startedAt: header.started_at,
    sessionId: header.session_id,
    schemaVersion: header.schema_version,
    bestEffort: false,
    model: header.model,
    runtime: header.runtime,
  } as RunSummary;
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
 * Every call checks the run's header as stored now, so a run deleted behind this store (by another
 * process or store object) and created again with the same id in another scope is never served:
 * `readAfter` and `tail` take the header line the backend read with the entries
 * (`RunReadAfterResult.headerLine`); the scope decided on a line is remembered for that very
 * line, so a run read again costs no second look-up. A compare-and-append to a run decided on
 * passes that line as `expectedHeaderLine` (on stores with the `headerLine` capability: checked
 * with the position, atomically); otherwise it first reads after its expected position for the
 * line. When the backend reports no header line (and for `delete`,
 * `redact`, `resolveRunId` and a plain `append`), the store lists that one run by id and scope.
 * With a predicate, the decision on a run's `run.start` (which needs the whole run read) is
 * remembered for the header it was made on.
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
      remember(runId, fingerprint(summaryFieldsOf(runId, read.header)), result);
    }
    return result ? read : null;
  };

  /** The predicate's decision on a listed run of the scope (remembered for its header). */
  const allowed = async (summary: RunSummary): Promise<boolean> => {
    const known = decided.get(summary.runId);
    if (known !== undefined && known.fingerprint === fingerprint(summary)) {
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

  /** Run id -> the header line (`headerLine`) last decided on, and the decision. */
  const byLine = new Map<string, { line: string; visible: boolean }>();
  const rememberLine = (runId: string, line: string, result: boolean): void => {
    byLine.delete(runId);
    if (byLine.size >= DECISION_CACHE_SIZE) byLine.delete(byLine.keys().next().value as string);
    byLine.set(runId, { line, visible: result });
  };

  /**
   * Whether the run whose stored first line is `line` (read by the backend with the entries it
   * returned) is visible; `undefined` (a backend that does not report it) or an unreadable line
   * falls back to `isVisible`.
   */
  const isLineVisible = async (runId: string, line: string | undefined): Promise<boolean> => {
    if (line === undefined) return isVisible(runId);
    const known = byLine.get(runId);
    if (known !== undefined && known.line === line) return known.visible;
    const header = readRunHeaderLine(line);
    if (header === null) return isVisible(runId);
    let result = runHeaderScope(header) === scope;
    if (result && visible !== undefined) {
      result = await allowed(summaryFieldsOf(runId, header));
    }
    rememberLine(runId, line, result);
    return result;
  };

  /**
   * A read that failed other than with `NOT_FOUND` (e.g. a position beyond the end of another
   * scope's run) must not tell that the run exists: `NOT_FOUND` unless the run is visible.
   */
  const hideFailure = async (runId: string, error: unknown, action: 'read' | 'append') => {
    if ((error as { code?: unknown }).code === 'NOT_FOUND' || !(await isVisible(runId))) {
      return runNotFound(runId, action);
    }
    return error;
  };

  /** The backend's answer to a read of `runId` when the scope may see the run; else `NOT_FOUND`. */
  const visibleRead = async <Result extends { headerLine?: string }>(
    runId: string,
    read: () => Promise<Result>,
  ): Promise<Result> => {
    let result: Result;
    try {
      result = await read();
    } catch (error) {
      throw await hideFailure(runId, error, 'read');
    }
    if (!(await isLineVisible(runId, result.headerLine))) throw runNotFound(runId);
    return result;
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
      if (records?.[0]?.type !== 'header') {
        const expected = appendOptions?.expectedPosition;
        const compare = typeof expected === 'number' && Number.isSafeInteger(expected);
        const known = byLine.get(id);
        if (
          compare &&
          known?.visible === true &&
          runs.capabilities.headerLine === true &&
          appendOptions?.expectedHeaderLine === undefined
        ) {
          // The store checks the header line decided on in the append's own atomic step.
          try {
            return await runs.append(id, records, {
              ...appendOptions,
              expectedHeaderLine: known.line,
            });
          } catch (error) {
            const reason = (error as { details?: { reason?: unknown } }).details?.reason;
            if ((error as { code?: unknown }).code !== 'CONFLICT' || reason !== 'header') {
              throw error;
            }
            // Deleted and maybe created again: another scope's run is missing from here.
            byLine.delete(id);
            if (!(await isVisible(id))) throw runNotFound(id, 'append');
            throw error;
          }
        }
        if (compare && (expected as number) > 0) {
          // A compare-and-append: what follows the expected position (usually nothing) comes
          // with the header line the run has now.
          let probe: RunReadAfterResult;
          try {
            probe = await runs.readAfter(id, expected);
          } catch (error) {
            const hidden = await hideFailure(id, error, 'append');
            if (hidden !== error || (error as { code?: unknown }).code !== 'CONFLICT') throw hidden;
            // Visible, but not at that position: the append itself answers (a CONFLICT).
            return runs.append(id, records, appendOptions);
          }
          if (!(await isLineVisible(id, probe.headerLine))) throw runNotFound(id, 'append');
        } else if (!(await isVisible(id))) {
          throw runNotFound(id, 'append');
        }
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
      return visibleRead(id, () => runs.readAfter(id, position));
    },
    async tail(runId, tailOptions) {
      const id = parseRunId(runId);
      return visibleRead(id, () => runs.tail(id, tailOptions));
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
    async delete(runId, deleteOptions) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) return false;
      decided.delete(id);
      byLine.delete(id);
      return runs.delete(id, deleteOptions);
    },
    async redact(runId, redactOptions) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.redact(id, redactOptions);
    },
    async verifyChain(verifyOptions) {
      // Only the scope's visible runs; the store's erasure log is the home's (it names streams by
      // their random key only).
      const { runId, runIds, ...rest } = verifyOptions ?? ({} as RunVerifyChainOptions);
      if (runId !== undefined) {
        const id = parseRunId(runId);
        if (!(await isVisible(id))) throw runNotFound(id);
        return runs.verifyChain({ ...rest, runId: id });
      }
      const wanted =
        runIds === undefined ? undefined : new Set(runIds.map((id) => String(id).toLowerCase()));
      const ids: string[] = [];
      for (const summary of (await runs.list({ scope })).runs) {
        if (wanted !== undefined && !wanted.has(summary.runId)) continue;
        if (visible === undefined || (await allowed(summary))) ids.push(summary.runId);
      }
      return runs.verifyChain({ ...rest, runIds: ids });
    },
    async readChain(runId) {
      const id = parseRunId(runId);
      if (!(await isVisible(id))) throw runNotFound(id);
      return runs.readChain(id);
    },
    async readErasures() {
      // The erasure log is the home's: a scoped store names no other scope's erasures.
      return [];
    },
    async importChained() {
      throw scopedImport();
    },
    async importErasures() {
      throw scopedImport();
    },
    resolveRunId: (reference, resolveOptions = {}) =>
      runs.resolveRunId(reference, {
        ...resolveOptions,
        visible: async (runId) =>
          (await isVisible(runId)) &&
          (resolveOptions.visible === undefined || (await resolveOptions.visible(runId))),
      }),
    async search(query) {
      // The bound scope replaces any other, as in `list`.
      const bound = { ...(query ?? {}), scope } as RunSearchQuery;
      if (visible === undefined) return runs.search(bound);
      // Hidden runs are dropped page by page until this page is full: never found nor counted.
      const { limit } = parseInput(runSearchQuerySchema, bound, 'run search');
      const found: RunSearchHit[] = [];
      const decisions = new Map<string, boolean>();
      let cursor = bound.cursor;
      for (;;) {
        const page = await runs.search({
          ...bound,
          limit: SEARCH_MAX_LIMIT,
          ...(cursor === undefined ? {} : { cursor }),
        });
        for (const hit of page.hits) {
          let shown = decisions.get(hit.run_id);
          if (shown === undefined) {
            shown = await isVisible(hit.run_id);
            decisions.set(hit.run_id, shown);
          }
          if (shown) found.push(hit);
          if (found.length > limit) break;
        }
        if (found.length > limit || page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      return runSearchPageOf(found, limit);
    },
    close: () => runs.close(),
  };
}
