import {
  finishRunList,
  matchesRunListFilter,
  type RunListError,
  type RunListFilter,
  type RunListResult,
  type RunSummary,
  readRunHeaderLine,
  summarizeRun,
} from '../core-kit.js';
import type { KeyValueStore } from '../kv/key-value-store.js';
import { firstLine } from './run-entries.js';
import { RUN_PREFIX } from './run-keys.js';

/**
 * `RunStoreAdapter.list`: a summary of every run whose header matches the filter (read from the
 * header line alone), one error per run without a readable header; `finishRunList` sorts and
 * limits. Runs outside `filter.runIds` are skipped before they are read.
 */
export async function listRuns(kv: KeyValueStore, filter: RunListFilter): Promise<RunListResult> {
  const summaries: RunSummary[] = [];
  const errors: RunListError[] = [];
  for (const key of await kv.keys(RUN_PREFIX)) {
    const runId = key.slice(RUN_PREFIX.length);
    if (filter.runIds !== undefined && !filter.runIds.has(runId)) continue;
    const text = await kv.get(key);
    if (text === undefined) continue; // Deleted since the listing.
    const header = readRunHeaderLine(firstLine(text));
    if (header === null) {
      errors.push({
        runId,
        location: `run ${runId}`,
        message: 'the first line is not a readable run header',
      });
      continue;
    }
    const summary = summarizeRun(runId, header);
    if (matchesRunListFilter(summary, filter)) summaries.push(summary);
  }
  return finishRunList(summaries, errors, filter);
}
