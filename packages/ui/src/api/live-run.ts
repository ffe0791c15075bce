import type { RunRecord, RunStore } from '@episodic/core';
import { parseRunId } from '@episodic/core/adapter';
import * as z from 'zod';
import type { LiveBatch } from './api-types.js';
import { parseQuery } from './query-params.js';
import { pairToolCalls, recordItem } from './run-records.js';

const querySchema = z.strictObject({
  /** The run's position the page was read at (`RunViewResponse.position`). */
  position: z.coerce.number().int().min(0).optional(),
});

/**
 * Follows a run for `GET /api/runs/:id/live`: each `poll()` returns what the run wrote since the
 * last one, listed as the run view lists it, and whether the run has ended. The first poll reads
 * the run once (its calls pair the outputs that follow); later polls read only what follows the
 * last known position (`RunStore.readAfter`), so a poll costs what was appended, not the run's size.
 */
export function createRunFollower(
  runs: RunStore,
  rawRunId: string,
  rawQuery: Record<string, string>,
) {
  const runId = parseRunId(rawRunId, 'run id');
  const { position: from } = parseQuery(querySchema, rawQuery, 'live query');
  let records: RunRecord[] | undefined;
  let position = 0;
  let ended = false;
  return {
    runId,
    async poll(): Promise<LiveBatch> {
      let fresh: RunRecord[];
      let damaged: number;
      if (records === undefined) {
        const run = await runs.read(runId);
        // Where the page stopped: records after `from` are new to it (all of them when it gave none).
        const seen = from === undefined ? run.records.length : Math.min(from, run.position);
        const after =
          seen === run.position ? { records: [], errors: [] } : await runs.readAfter(runId, seen);
        records = run.records.slice(0, run.records.length - after.records.length);
        fresh = after.records;
        damaged = after.errors.length;
        position = run.position;
        ended = run.ended;
      } else {
        const after = await runs.readAfter(runId, position);
        fresh = after.records;
        damaged = after.errors.length;
        position = after.position;
        ended ||= fresh.some((record) => record.type === 'run.end');
      }
      const first = records.length;
      records.push(...fresh);
      const byCall = new Map(pairToolCalls(records).map((pair) => [pair.call_id, pair]));
      return {
        records: fresh.map((record, offset) => recordItem(record, first + offset, byCall)),
        damaged,
        ended,
        position,
      };
    },
  };
}
