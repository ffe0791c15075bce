import type { RunListQuery, RunStore, RunSummary } from '@episodic/core';
import { compareRunSummaries } from '@episodic/core/adapter';
import { uuidSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import type { StoreAccess } from '../stores/ui-stores.js';
import type { RunListItem, RunListResponse } from './api-types.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { dateParam, limitParam, listParam, parseQuery } from './query-params.js';
import type { RunDigestCache } from './run-digests.js';
import type { RunStatusCache } from './run-status.js';

/** The statuses a filter can ask for. */
export const RUN_STATUS_FILTERS = ['completed', 'failed', 'cancelled', 'running'] as const;

const querySchema = z.strictObject({
  status: listParam.pipe(z.array(z.enum(RUN_STATUS_FILTERS)).optional()),
  from: dateParam('start'),
  to: dateParam('end'),
  session: uuidSchema.transform((id) => id.toLowerCase()).optional(),
  cursor: z.string().max(500).optional(),
  limit: limitParam(50, 200),
});

/** How many run statuses one page may look up when a status filter skips runs. */
export const STATUS_SCAN_LIMIT = 1000;
/** How many runs a status filter lists at a time (headers read per step of the scan). */
const STATUS_CHUNK = 200;

interface RunCursor {
  s: string;
  r: string;
}

const isRunCursor = (value: unknown): value is RunCursor =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RunCursor).s === 'string' &&
  typeof (value as RunCursor).r === 'string';

/** `provider/name` of a run's model, from its header; null when it names none. */
export function modelName(summary: Pick<RunSummary, 'model'>): string | null {
  const model = summary.model;
  if (model === undefined) return null;
  return [model.provider, model.name].filter((part) => typeof part === 'string').join('/') || null;
}

/**
 * Lists runs after `cursor`, newest first, from their headers only (`RunStore.list`), asking the
 * store for just enough of them: a page needs `wanted` runs after the cursor, and runs that
 * started at the cursor's instant may come before it.
 */
async function summariesAfter(
  runs: RunStore,
  query: RunListQuery,
  cursor: RunCursor | undefined,
  wanted: number | undefined,
): Promise<{ summaries: RunSummary[]; complete: boolean; errors: RunListResponse['errors'] }> {
  const bound =
    cursor === undefined ? undefined : ({ runId: cursor.r, startedAt: cursor.s } as RunSummary);
  const to =
    cursor === undefined
      ? query.to
      : query.to !== undefined && Date.parse(query.to) < Date.parse(cursor.s)
        ? query.to
        : cursor.s;
  let limit = wanted === undefined ? undefined : wanted + 1;
  for (;;) {
    const listed = await runs.list({
      ...query,
      ...(to === undefined || Number.isNaN(Date.parse(to)) ? {} : { to }),
      ...(limit === undefined ? {} : { limit }),
    });
    const after =
      bound === undefined
        ? listed.runs
        : listed.runs.filter((summary) => compareRunSummaries(summary, bound) > 0);
    const exhausted = limit === undefined || listed.runs.length < limit;
    if (exhausted || wanted === undefined || after.length > wanted) {
      return {
        summaries: after,
        complete: exhausted,
        errors: listed.errors.map((error) => ({
          run_id: error.runId ?? null,
          location: error.location,
          message: error.message,
        })),
      };
    }
    limit = (limit as number) * 2;
  }
}

/**
 * `GET /api/runs`: one page of runs with their title, status, model, start, end, duration, tokens
 * and size. Statuses come from tail reads (a status filter scans up to `STATUS_SCAN_LIMIT` runs);
 * titles and tokens are read only for the runs on the page.
 */
export async function listRunsPage(
  deps: {
    runs: RunStore;
    statuses: RunStatusCache;
    /** Title, duration and tokens of the runs on the page (read only for them). */
    digests: RunDigestCache;
    access: StoreAccess;
    /** Runs read per step of a status scan. @default 200 */
    statusChunk?: number;
  },
  rawQuery: Record<string, string>,
): Promise<RunListResponse> {
  const query = parseQuery(querySchema, rawQuery, 'runs query');
  const cursor =
    query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'cursor', isRunCursor);
  const statuses = query.status === undefined ? undefined : new Set<string>(query.status);
  const listQuery: RunListQuery = {
    ...(query.session === undefined ? {} : { sessionId: query.session }),
    ...(query.from === undefined ? {} : { from: query.from }),
    ...(query.to === undefined ? {} : { to: query.to }),
  };
  // A page is the next `limit` runs; with a status filter, runs are read a chunk at a time (their
  // headers, then their tails) until the page is full, so a scan reads only the days it needs.
  const page: Array<RunListItem & { summary: RunSummary }> = [];
  const errors: RunListResponse['errors'] = [];
  let scanned = 0;
  let last: RunSummary | undefined;
  let scanLimited = false;
  let more = false;
  let bound = cursor;
  const wanted = statuses === undefined ? query.limit : (deps.statusChunk ?? STATUS_CHUNK);
  for (;;) {
    const chunk = await summariesAfter(deps.runs, listQuery, bound, wanted);
    if (bound === undefined) errors.push(...chunk.errors);
    const taken = chunk.summaries.slice(0, wanted);
    let processed = 0;
    for (const summary of taken) {
      if (page.length === query.limit) break;
      if (scanned === STATUS_SCAN_LIMIT) {
        scanLimited = true;
        break;
      }
      scanned++;
      processed++;
      last = summary;
      const standing = await deps.statuses.get(summary.runId);
      if (statuses !== undefined && !statuses.has(standing.status)) continue;
      const digest = await deps.digests.get(summary.runId);
      const tokensKnown = digest.usageResponses > 0;
      page.push({
        run_id: summary.runId,
        session_id: summary.sessionId ?? null,
        started_at: summary.startedAt,
        model: modelName(summary),
        status: standing.status,
        ended_at: standing.endedAt,
        bytes: null,
        best_effort: summary.bestEffort,
        title: digest.title,
        duration_ms: digest.durationMs,
        input_tokens: tokensKnown ? digest.inputTokens : null,
        output_tokens: tokensKnown ? digest.outputTokens : null,
        model_responses: digest.responses,
        summary,
      });
    }
    const leftInStore = processed < chunk.summaries.length || !chunk.complete;
    if (page.length === query.limit || scanLimited || statuses === undefined || !leftInStore) {
      more = leftInStore;
      break;
    }
    // A status filter with room on the page: read the next chunk after the last run looked at.
    bound = last === undefined ? bound : { s: last.startedAt, r: last.runId };
  }
  const sizes = await deps.access.runBytes(page.map((item) => item.summary));
  return {
    runs: page.map(({ summary: _summary, ...item }) => ({
      ...item,
      bytes: sizes.get(item.run_id) ?? null,
    })),
    next_cursor:
      more && last !== undefined ? encodeCursor({ s: last.startedAt, r: last.runId }) : null,
    scanned,
    scan_limited: scanLimited,
    errors,
  };
}
