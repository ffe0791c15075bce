import { parseRunId, type RunStore } from '@episodic/core';
import * as z from 'zod';
import type { LiveBatch } from './api-types.js';
import { parseQuery } from './query-params.js';
import { pairToolCalls, recordItem } from './run-records.js';

const querySchema = z.strictObject({ from: z.coerce.number().int().min(0).default(0) });

/**
 * Follows a run for `GET /api/runs/:id/live`: each `poll()` returns the records appended since
 * the last one (from record `from` on), listed as the run view lists them, and whether the run
 * has ended. It reads the run through `RunStore.read` and keeps only what is new.
 */
export function createRunFollower(
  runs: RunStore,
  rawRunId: string,
  rawQuery: Record<string, string>,
) {
  const runId = parseRunId(rawRunId, 'run id');
  let seen = parseQuery(querySchema, rawQuery, 'live query').from;
  let damagedSeen = 0;
  return {
    runId,
    async poll(): Promise<LiveBatch> {
      const run = await runs.read(runId);
      // A repair (doctor) can rewrite a run shorter: start over from its new end.
      if (run.records.length < seen) seen = run.records.length;
      const byCall = new Map(pairToolCalls(run.records).map((pair) => [pair.call_id, pair]));
      const fresh = run.records
        .slice(seen)
        .map((record, offset) => recordItem(record, seen + offset, byCall));
      seen = run.records.length;
      const damaged = Math.max(0, run.errors.length - damagedSeen);
      damagedSeen = run.errors.length;
      return { records: fresh, damaged, ended: run.ended };
    },
  };
}
