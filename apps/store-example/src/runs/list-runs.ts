import type { RunListFilter, RunListPage, RunListRow } from '../core-kit.js';
import type { KeyValueStore } from '../kv/key-value-store.js';
import { firstLine } from './run-entries.js';
import { RUN_PREFIX } from './run-keys.js';

/**
 * `RunStoreAdapter.list`: every run's first stored line, as it is. The wrapper parses the headers,
 * reports an unreadable one, filters, sorts and limits; the filter is a hint, used here only to
 * skip runs outside `filter.runIds` before they are read.
 */
export async function listRuns(kv: KeyValueStore, filter: RunListFilter): Promise<RunListPage> {
  const rows: RunListRow[] = [];
  for (const key of await kv.keys(RUN_PREFIX)) {
    const runId = key.slice(RUN_PREFIX.length);
    if (filter.runIds !== undefined && !filter.runIds.has(runId)) continue;
    const text = await kv.get(key);
    if (text === undefined) continue; // Deleted since the listing.
    rows.push({ runId, header: firstLine(text) });
  }
  return { rows };
}
