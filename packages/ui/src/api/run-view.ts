import type { RunReadResult, RunRecord, RunStore } from '@episodic/core';
import * as z from 'zod';
import type { StoreAccess } from '../stores/ui-stores.js';
import { notFound } from './api-error.js';
import type { RunRecordResponse, RunViewResponse, ToolOutputResponse } from './api-types.js';
import { limitParam, parseQuery } from './query-params.js';
import { pairToolCalls, recordItem } from './run-records.js';
import { standingOf } from './run-status.js';

const querySchema = z.strictObject({
  from: z.coerce.number().int().min(0).default(0),
  limit: limitParam(200, 1000),
  /** A run position (the header is 1), as run search hits name records: the page holding it. */
  at: z.coerce.number().int().min(1).optional(),
});

/**
 * The index in `records` of the record stored at run position `at` (positions count damaged lines
 * too; records do not), or null when that position is a damaged line or past the end.
 */
export function recordIndexAt(
  run: Pick<RunReadResult, 'records' | 'errors'>,
  at: number,
): number | null {
  let damagedBefore = 0;
  for (const error of run.errors) {
    if (error.line === at) return null;
    if (error.line !== undefined && error.line < at) damagedBefore++;
  }
  const index = at - 1 - damagedBefore;
  return index < run.records.length ? index : null;
}

/** Whether a run is a task episode: its `run.start` carries a `task`. */
export function isTaskRun(records: readonly RunRecord[]): boolean {
  const start = records.find((record) => record.type === 'run.start') as
    | { task?: unknown }
    | undefined;
  return typeof start?.task === 'object' && start.task !== null;
}

/** `GET /api/runs/:id`: a page of a run's records, its tool calls paired, its damage listed. */
export async function runView(
  runs: RunStore,
  rawRunId: string,
  rawQuery: Record<string, string>,
): Promise<RunViewResponse> {
  const runId = await runs.resolveRunId(rawRunId, { subject: 'run id' });
  const query = parseQuery(querySchema, rawQuery, 'run query');
  const run = await runs.read(runId);
  const pairs = pairToolCalls(run.records);
  const byCall = new Map(pairs.map((pair) => [pair.call_id, pair]));
  const atIndex = query.at === undefined ? null : recordIndexAt(run, query.at);
  // The page that holds the record asked for by position, else the one asked for by `from`.
  const from = atIndex === null ? query.from : atIndex - (atIndex % query.limit);
  const page = run.records.slice(from, from + query.limit);
  const end = from + page.length;
  const header = run.header as Record<string, unknown> | null;
  return {
    run_id: run.runId,
    header,
    session_id: typeof header?.session_id === 'string' ? header.session_id : null,
    status: standingOf(run.records).status,
    ended: run.ended,
    best_effort: run.bestEffortReason ?? null,
    record_count: run.records.length,
    position: run.position,
    task: isTaskRun(run.records),
    errors: run.errors.map((error) => ({
      line: error.line ?? null,
      message: error.message,
      excerpt: error.excerpt,
    })),
    tool_calls: pairs,
    model_inputs: run.records.filter((record) => record.type === 'llm.request').length,
    from,
    next_from: end < run.records.length ? end : null,
    records: page.map((record, offset) => recordItem(record, from + offset, byCall)),
    at_index: atIndex,
  };
}

/** `GET /api/runs/:id/records/:index`: one record, whole (payloads are shown on demand). */
export async function runRecord(
  runs: RunStore,
  rawRunId: string,
  rawIndex: string,
): Promise<RunRecordResponse> {
  const runId = await runs.resolveRunId(rawRunId, { subject: 'run id' });
  const { index } = parseQuery(
    z.strictObject({ index: z.coerce.number().int().min(0) }),
    { index: rawIndex },
    'record index',
  );
  const run = await runs.read(runId);
  const record = run.records[index];
  if (record === undefined) {
    throw notFound(
      'Record',
      `${index} of run ${runId}`,
      `The run has ${run.records.length} readable records (0 to ${run.records.length - 1}).`,
    );
  }
  return { index, record };
}

/**
 * `GET /api/runs/:id/tool-outputs/:callId`: the full text of a tool output, from the store's
 * tool-output cache when the record points there (`output_ref`), else from the record itself.
 */
export async function toolOutput(
  deps: { runs: RunStore; access: StoreAccess },
  rawRunId: string,
  callId: string,
): Promise<ToolOutputResponse> {
  const runId = await deps.runs.resolveRunId(rawRunId, { subject: 'run id' });
  const run: RunReadResult = await deps.runs.read(runId);
  const record = run.records.find(
    (candidate) =>
      candidate.type === 'tool.output' &&
      (candidate as { tool_call_id?: unknown }).tool_call_id === callId,
  ) as (RunRecord & { result_raw: string; output_ref?: { id?: unknown } }) | undefined;
  if (record === undefined) {
    throw notFound(
      'Tool output',
      `${JSON.stringify(callId.slice(0, 100))} in run ${runId}`,
      'Open the run to see its tool calls.',
    );
  }
  const cacheId = typeof record.output_ref?.id === 'string' ? record.output_ref.id : null;
  if (cacheId !== null) {
    const cached = await deps.access.readToolOutput(cacheId).catch(() => null);
    if (cached !== null) return { call_id: callId, source: 'cache', text: cached };
  }
  return { call_id: callId, source: 'record', text: record.result_raw };
}
