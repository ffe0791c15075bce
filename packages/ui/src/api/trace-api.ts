import type { RunReadResult, RunStore, RunSummary, SessionStore } from '@episodic/core';
import { compareRunSummaries } from '@episodic/core/adapter';
import * as z from 'zod';
import { parseQuery } from './query-params.js';
import { buildRunTrace, totalsOf } from './run-trace.js';
import { isTaskRun } from './run-view.js';
import { parseSessionId } from './session-id.js';
import { readSession, runsNamedBy } from './session-runs.js';
import type { RunTraceResponse, SessionTraceResponse, SessionTraceTurn } from './trace-types.js';

/** The most runs of one session the charts read (the newest): each is read whole. */
export const SESSION_TRACE_MAX_RUNS = 200;

/** How many runs the session charts read at once. */
const READ_CONCURRENCY = 8;

const querySchema = z.strictObject({ turn: z.string().trim().min(1).max(200).optional() });
const sessionQuerySchema = z.strictObject({ runs: z.enum(['named', 'all']).default('named') });

/** `GET /api/runs/:id/trace[?turn=ID]`: the run's model and tool calls as a tree of timed spans. */
export async function runTrace(
  runs: RunStore,
  rawRunId: string,
  rawQuery: Record<string, string>,
): Promise<RunTraceResponse> {
  const runId = await runs.resolveRunId(rawRunId, { subject: 'run id' });
  const query = parseQuery(querySchema, rawQuery, 'trace query');
  return buildRunTrace(await runs.read(runId), query.turn ?? null);
}

async function readAll(runs: RunStore, runIds: readonly string[]): Promise<RunReadResult[]> {
  const read: RunReadResult[] = new Array(runIds.length);
  let next = 0;
  const worker = async () => {
    while (next < runIds.length) {
      const index = next++;
      read[index] = await runs.read(runIds[index] as string);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, runIds.length) }, worker));
  return read;
}

/**
 * `GET /api/sessions/:id/trace[?runs=all]`: each turn of the session with its tokens (in, out,
 * cached) and latency (the turn's wall-clock time, the time in model calls and in tool calls),
 * oldest first, for the charts. By default the runs are those the session's commits name, so the
 * cost follows the session, as the timeline's; `runs=all` adds the runs only their headers tie to
 * the session (failed turns, runs still going), found as `GET /api/sessions/:id/runs` finds them
 * (on run files, every header of the home): the browser asks for it once the charts show. Each
 * run is read whole, the newest `SESSION_TRACE_MAX_RUNS`. A run whose records name several turns
 * gives one entry per turn; task episodes are not turns.
 */
export async function sessionTrace(
  deps: { sessions: SessionStore; runs: RunStore },
  rawSessionId: string,
  rawQuery: Record<string, string> = {},
): Promise<SessionTraceResponse> {
  const sessionId = await parseSessionId(deps.sessions, rawSessionId);
  const query = parseQuery(sessionQuerySchema, rawQuery, 'session trace query');
  const read = await readSession(deps.sessions, sessionId);
  const commits = runsNamedBy(read.stored);
  const [ofSession, ofCommits] = await Promise.all([
    query.runs === 'all' ? deps.runs.list({ sessionId }) : { runs: [] },
    commits.named.length === 0 ? { runs: [] } : deps.runs.list({ runIds: commits.named }),
  ]);
  const byId = new Map<string, RunSummary>();
  for (const summary of [...ofSession.runs, ...ofCommits.runs]) byId.set(summary.runId, summary);
  // Newest first, as the runs list sorts them; the charts read the newest and show them oldest first.
  const summaries = [...byId.values()].sort(compareRunSummaries);
  const kept = summaries.slice(0, SESSION_TRACE_MAX_RUNS).reverse();
  const named = new Set(commits.named);
  const turns: SessionTraceTurn[] = [];
  let taskRuns = 0;
  for (const run of await readAll(
    deps.runs,
    kept.map((summary) => summary.runId),
  )) {
    if (isTaskRun(run.records)) {
      taskRuns++;
      continue;
    }
    const trace = buildRunTrace(run);
    const failedTurn =
      (trace.status === 'failed' || trace.status === 'cancelled') && !named.has(run.runId);
    const base = {
      run_id: run.runId,
      status: trace.status,
      failed_turn: failedTurn,
      missing: trace.missing,
    };
    const startedAt = (offset: number | null) =>
      trace.origin === null || offset === null
        ? trace.origin
        : new Date(Date.parse(trace.origin) + offset).toISOString();
    const turnSpans = trace.root.children.filter((child) => child.kind === 'turn');
    if (turnSpans.length === 0) {
      turns.push({
        ...base,
        number: 0,
        turn_id: trace.turns[0]?.turn_id ?? null,
        started_at: startedAt(trace.root.start_ms),
        duration_ms: trace.root.duration_ms,
        totals: trace.totals,
      });
      continue;
    }
    for (const turn of turnSpans) {
      turns.push({
        ...base,
        number: 0,
        turn_id: turn.detail,
        started_at: startedAt(turn.start_ms),
        duration_ms: turn.duration_ms,
        totals: totalsOf([turn]),
      });
    }
  }
  turns.forEach((turn, index) => {
    turn.number = index + 1;
  });
  const missing: string[] = [];
  if (summaries.length > kept.length) {
    missing.push(
      `Only the newest ${kept.length} of the session's ${summaries.length} runs are charted.`,
    );
  }
  const unmeasured = turns.filter(
    (turn) => turn.totals.model_ms === null && turn.totals.model_calls > 0,
  );
  if (unmeasured.length > 0) {
    missing.push(
      `${unmeasured.length} turn${unmeasured.length === 1 ? ' has' : 's have'} model calls without recorded request times (imported transcripts keep none): their model latency is not charted.`,
    );
  }
  const unused = turns.filter((turn) => turn.totals.calls_without_usage > 0);
  if (unused.length > 0) {
    missing.push(
      `${unused.length} turn${unused.length === 1 ? ' has' : 's have'} model calls that report no token usage: their tokens are charted as far as they are known.`,
    );
  }
  return {
    session_id: sessionId,
    runs: query.runs,
    turns,
    task_runs: taskRuns,
    total_runs: summaries.length,
    missing,
  };
}
