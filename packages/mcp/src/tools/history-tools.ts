import {
  type AccessPolicy,
  EpisodicError,
  type LedgerEvent,
  type LedgerPage,
  type LedgerSearchInput,
  type ReplayEvent,
  type RunReadResult,
  type RunRecord,
  type RunSearchPage,
  type RunSearchQuery,
  replaySession as replayRuns,
  type SearchPage,
} from '@episodic/core';
import { invalidField, stringifyJson } from '@episodic/core/adapter';
import { type LedgerDamagedRow, uuidSchema } from '@episodic/core/schemas';
import { verifyEpisodicHome } from '@episodic/home';
import type { z } from 'zod';
import { checkScopeArgument } from '../scope/bound-scope.js';
import type { VisibleRun } from '../scope/scoped-run-store.js';
import { toolUnsupported } from '../tool-error.js';
import { sanitizeJson } from '../tool-output.js';
import type {
  listRunsInputSchema,
  memoryEpisodesQueryInputSchema,
  replaySessionInputSchema,
  searchHistoryInputSchema,
  searchRunsInputSchema,
  verifyHistoryInputSchema,
} from './history-schemas.js';
import { allowedByPolicy, type ToolContext, type ToolHandler } from './tool-context.js';

/** Room kept for the fields around the event list when fitting a result into its size limit. */
const ENVELOPE_RESERVE = 600;

/** A ledger event as the tools return it. */
function eventOutput(event: LedgerEvent, includePayload: boolean) {
  return {
    event_id: event.event_id,
    ts_ms: event.ts_ms,
    ts: new Date(event.ts_ms).toISOString(),
    session_id: event.session_id,
    agent_id: event.agent_id,
    type: event.type,
    summary: event.summary,
    refs: event.refs,
    redacted: event.redacted,
    position: event.position,
    ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
    ...(includePayload && event.payload !== undefined ? { payload: event.payload } : {}),
  };
}

interface CollectedEvents {
  events: LedgerEvent[];
  next: string | null;
  /** Rows that could not be read (reported only without an access policy: see below). */
  damaged: LedgerDamagedRow[];
}

/**
 * Reads one ledger page. Under the context's access policy the ledger itself skips hidden events
 * (filling the page from later rows) and answers a hidden `afterId` exactly like an unknown one, so
 * every cursor returned is a visible event and nothing tells a client a hidden event exists.
 */
async function collectEvents(
  context: ToolContext,
  afterId: string | undefined,
  readPage: (options: { afterId?: string; policy?: AccessPolicy }) => Promise<LedgerPage>,
): Promise<CollectedEvents> {
  const page = await readPage({
    ...(afterId === undefined ? {} : { afterId }),
    ...(context.policy === undefined ? {} : { policy: context.policy }),
  });
  const damaged: LedgerDamagedRow[] = [];
  // A damaged row's metadata cannot be read, so a policy-bound client is never told about it.
  for (const row of page.damaged ?? []) {
    if (context.policy === undefined) damaged.push(row);
    else context.logger?.({ level: 'warn', message: `skipped damaged ledger row: ${row.error}` });
  }
  // The ledger applied the policy; this is a second wall, not the filter.
  const events = page.events.filter((event) => allowedByPolicy(context, event.metadata));
  return { events, next: page.next_after_id, damaged };
}

/**
 * Keeps as many events as fit in the result size limit, so a page is never cut in the middle of
 * an event: when some are left out, `next_after_id` points after the last one returned.
 */
function fitEvents(
  context: ToolContext,
  events: LedgerEvent[],
  next: string | null,
  includePayload: boolean,
) {
  const budget = context.maxResultChars - ENVELOPE_RESERVE;
  const kept: unknown[] = [];
  let used = 0;
  for (const event of events) {
    const output = sanitizeJson(eventOutput(event, includePayload), context.maxResultChars);
    const size = stringifyJson(output).length + 1;
    if (kept.length > 0 && used + size > budget) {
      const last = events[kept.length - 1] as LedgerEvent;
      return { events: kept, next_after_id: last.event_id, truncated: true };
    }
    kept.push(output);
    used += size;
  }
  return { events: kept, next_after_id: next, truncated: false };
}

/** Logs (for the operator) a run that could not be listed; the client is told nothing about it. */
function skipLogger(context: ToolContext) {
  return (runId: string | undefined, error: unknown) =>
    context.logger?.({ level: 'warn', message: `skipped unreadable run ${runId ?? ''}`, error });
}

/** Epoch milliseconds of a `fromTs` / `toTs` argument (already validated). */
function toMs(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : Date.parse(value);
}

async function memoryEpisodesQuery(
  args: z.output<typeof memoryEpisodesQueryInputSchema>,
  context: ToolContext,
) {
  checkScopeArgument(args.scope, context.scope, 'memory_episodes_query');
  const fromTsMs = toMs(args.fromTs);
  const toTsMs = toMs(args.toTs);
  if (fromTsMs !== undefined && toTsMs !== undefined && fromTsMs > toTsMs) {
    throw invalidField(
      'memory_episodes_query arguments',
      'fromTs',
      args.fromTs,
      'must not be after toTs',
    );
  }
  const { events, next, damaged } = await collectEvents(context, args.afterId, (page) =>
    context.ledger.query({
      scope: context.scope,
      ...(args.sessionId === undefined ? {} : { sessionId: args.sessionId }),
      ...(fromTsMs === undefined ? {} : { fromTsMs }),
      ...(toTsMs === undefined ? {} : { toTsMs }),
      ...(args.types === undefined ? {} : { types: args.types }),
      ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
      ...page,
      limit: args.limit,
      includePayload: args.includePayload,
    }),
  );
  const fitted = fitEvents(context, events, next, args.includePayload);
  return {
    success: true,
    scope: context.scope,
    count: fitted.events.length,
    events: fitted.events,
    next_after_id: fitted.next_after_id,
    ...(fitted.truncated ? { truncated: true } : {}),
    ...(damaged.length === 0 ? {} : { damaged }),
  };
}

function replayEventOutput(event: ReplayEvent) {
  return event.kind === 'user_message'
    ? {
        kind: event.kind,
        run_id: event.runId,
        seq: event.seq,
        ts: event.ts,
        hidden: event.hidden,
        message: event.message,
      }
    : { kind: event.kind, run_id: event.runId, seq: event.seq, ts: event.ts, event: event.event };
}

async function replaySession(
  args: z.output<typeof replaySessionInputSchema>,
  context: ToolContext,
) {
  checkScopeArgument(args.scope, context.scope, 'replay_session');
  if (args.source === 'runs') {
    if (!uuidSchema.safeParse(args.session_id).success) {
      throw invalidField(
        'replay_session arguments',
        'session_id',
        args.session_id,
        'must be the session UUID the runs were recorded with when source is "runs"',
      );
    }
    const runs = await context.runs.listVisible({ sessionId: args.session_id }, args.max_runs + 1, {
      onSkip: skipLogger(context),
    });
    // Oldest first, as replay expects; one more than max_runs so `truncated` can say so.
    const records = runs.map((run) => run.read.records).reverse();
    const replay = replayRuns(records, { maxRuns: args.max_runs, maxEvents: args.max_events });
    return {
      success: true,
      session_id: args.session_id.toLowerCase(),
      source: 'runs',
      run_ids: replay.runIds,
      count: replay.events.length,
      events: replay.events.map(replayEventOutput),
      truncated: replay.truncated,
    };
  }
  const { events, next, damaged } = await collectEvents(context, args.after_id, (page) =>
    context.ledger.replay(args.session_id, {
      scope: context.scope,
      limit: args.limit,
      includePayload: args.include_payload,
      ...page,
    }),
  );
  const fitted = fitEvents(context, events, next, args.include_payload);
  return {
    success: true,
    session_id: args.session_id,
    source: 'ledger',
    count: fitted.events.length,
    events: fitted.events,
    next_after_id: fitted.next_after_id,
    ...(fitted.truncated ? { truncated: true } : {}),
    ...(damaged.length === 0 ? {} : { damaged }),
  };
}

const DESCRIPTION_PREVIEW = 200;

function lastOf(records: readonly RunRecord[], type: string): Record<string, unknown> | undefined {
  for (let index = records.length - 1; index >= 0; index--) {
    if (records[index]?.type === type) return records[index] as Record<string, unknown>;
  }
  return undefined;
}

/** A run as `list_runs` shows it: from its summary and its records. */
function runOutput({ summary, read }: VisibleRun) {
  const start = read.records.find((record) => record.type === 'run.start') as
    | { input?: { text?: unknown }; task?: { task_type?: unknown } }
    | undefined;
  const isTask = typeof start?.task === 'object' && start.task !== null;
  const text = typeof start?.input?.text === 'string' ? start.input.text : undefined;
  const status = lastOf(read.records, 'run.status')?.status;
  const end = lastOf(read.records, 'run.end');
  return {
    run_id: summary.runId,
    ...(summary.sessionId === undefined ? {} : { session_id: summary.sessionId }),
    started_at: summary.startedAt,
    kind: isTask ? 'task' : 'run',
    ...(isTask && typeof start?.task?.task_type === 'string'
      ? { task_type: start.task.task_type }
      : {}),
    ...(text === undefined
      ? {}
      : {
          [isTask ? 'task_description' : 'input']:
            text.length > DESCRIPTION_PREVIEW ? `${text.slice(0, DESCRIPTION_PREVIEW)}…` : text,
        }),
    status: typeof status === 'string' ? status : null,
    ended: read.ended,
    ...(end === undefined ? {} : { outcome: end.outcome ?? null }),
    record_count: read.records.length,
    ...(read.errors.length === 0 ? {} : { damaged_lines: read.errors.length }),
  };
}

async function listRuns(args: z.output<typeof listRunsInputSchema>, context: ToolContext) {
  checkScopeArgument(args.scope, context.scope, 'list_runs');
  const isTask = (read: RunReadResult) =>
    read.records.some(
      (record) =>
        record.type === 'run.start' && typeof (record as { task?: unknown }).task === 'object',
    );
  const query = {
    ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
    ...(args.from === undefined ? {} : { from: args.from }),
    ...(args.to === undefined ? {} : { to: args.to }),
  };
  const found = await context.runs.listVisible(query, args.limit, {
    accept: args.tasks_only ? isTask : undefined,
    onSkip: skipLogger(context),
  });
  return {
    success: true,
    scope: context.scope,
    count: found.length,
    runs: found.map(runOutput),
  };
}

/** `Ledger.search`, with a store that keeps no search index named as the model can act on it. */
async function searchLedger(context: ToolContext, query: LedgerSearchInput): Promise<SearchPage> {
  try {
    return await context.ledger.search(query);
  } catch (error) {
    if (
      EpisodicError.isInstance(error) &&
      error.code === 'UNSUPPORTED' &&
      error.details.pending === undefined
    ) {
      throw toolUnsupported(
        "This server's ledger keeps no search index, so search_history cannot run here. Use memory_episodes_query with sessionId, types, fromTs/toTs and metadata filters instead.",
        error,
      );
    }
    throw error;
  }
}

/**
 * `search_history`: one page of the scope's ledger events holding every word of `query`, best
 * first. The scope is the server's; the access policy is a condition of the search itself, so a
 * hidden event is never found, counted nor used as a cursor.
 */
async function searchHistory(
  args: z.output<typeof searchHistoryInputSchema>,
  context: ToolContext,
) {
  checkScopeArgument(args.scope, context.scope, 'search_history');
  const fromTsMs = toMs(args.since);
  const toTsMs = toMs(args.until);
  if (fromTsMs !== undefined && toTsMs !== undefined && fromTsMs > toTsMs) {
    throw invalidField('search_history arguments', 'since', args.since, 'must not be after until');
  }
  const page = await searchLedger(context, {
    text: args.query,
    scope: context.scope,
    ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
    ...(args.agent_id === undefined ? {} : { agentId: args.agent_id }),
    ...(args.types === undefined ? {} : { types: args.types }),
    ...(fromTsMs === undefined ? {} : { fromTsMs }),
    ...(toTsMs === undefined ? {} : { toTsMs }),
    ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    ...(context.policy === undefined ? {} : { policy: context.policy }),
    limit: args.limit,
  });
  return {
    success: true,
    scope: context.scope,
    query: args.query,
    count: page.hits.length,
    hits: page.hits.map((hit) => ({ ...hit, ts: new Date(hit.ts_ms).toISOString() })),
    next_cursor: page.nextCursor,
  };
}

/** `RunStore.search`, with a run store that keeps no search index named as the model can act on it. */
async function searchRunStore(context: ToolContext, query: RunSearchQuery): Promise<RunSearchPage> {
  try {
    return await context.runs.runs.search(query);
  } catch (error) {
    if (
      EpisodicError.isInstance(error) &&
      error.code === 'UNSUPPORTED' &&
      error.details.pending === undefined
    ) {
      throw toolUnsupported(
        'This server\'s run store keeps no search index (run files do not yet), so search_runs cannot run here. Use list_runs (filter by session_id, time, tasks_only) and get_episode or replay_session with source "runs" instead.',
        error,
      );
    }
    throw error;
  }
}

/** An instant argument (epoch milliseconds or ISO 8601, already validated) as ISO 8601. */
function toIso(value: number | string | undefined): string | undefined {
  const ms = toMs(value);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/**
 * `search_runs`: one page of the records of the scope's runs and task episodes holding every word
 * of `query`, best first. The scoped run store puts the bound scope into the search itself (a run
 * of another scope is never read, found nor counted) and, under an access policy, drops the runs
 * it hides before the page is cut.
 */
async function searchRuns(args: z.output<typeof searchRunsInputSchema>, context: ToolContext) {
  checkScopeArgument(args.scope, context.scope, 'search_runs');
  const from = toIso(args.since);
  const to = toIso(args.until);
  if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) {
    throw invalidField('search_runs arguments', 'since', args.since, 'must not be after until');
  }
  const page = await searchRunStore(context, {
    text: args.query,
    scope: context.scope,
    ...(args.run_id === undefined ? {} : { runId: args.run_id }),
    ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
    ...(args.types === undefined ? {} : { types: args.types }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    limit: args.limit,
  });
  return {
    success: true,
    scope: context.scope,
    query: args.query,
    count: page.hits.length,
    hits: page.hits.map((hit) => ({ ...hit })),
    next_cursor: page.nextCursor,
  };
}

/** The most findings `verify_history` returns (the counts are never capped). */
const VERIFY_MAX_FINDINGS = 100;

/**
 * `verify_history`: the chains of the scope's visible runs (the scoped run store verifies those
 * only, with their own erasure entries) and of the scope's ledger sessions. Under an access policy
 * the ledger is not verified: a session may hold events the policy hides, and its findings would
 * tell of them.
 */
async function verifyHistory(
  args: z.output<typeof verifyHistoryInputSchema>,
  context: ToolContext,
) {
  checkScopeArgument(args.scope, context.scope, 'verify_history');
  const restricted = context.visible !== undefined;
  const { report, parts, notes } = await verifyEpisodicHome(
    { runs: context.runs.runs, ledger: context.ledger },
    {
      maxFindings: VERIFY_MAX_FINDINGS,
      ...(restricted
        ? {}
        : {
            ledger: { scope: context.scope },
            ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
          }),
    },
  );
  return {
    success: true,
    scope: context.scope,
    ok: report.ok,
    verified: report.verified,
    streams: report.streams,
    findings: report.findings,
    counts: report.counts,
    findings_truncated: report.truncated,
    parts,
    notes: notes.map((note) =>
      note.startsWith('ledger: not verified')
        ? "ledger: not verified under this server's access policy (a session may hold events it hides)"
        : note,
    ),
  };
}

/** The read-only history tools over the ledger and the runs. */
export const historyHandlers = {
  memory_episodes_query: memoryEpisodesQuery as ToolHandler,
  replay_session: replaySession as ToolHandler,
  list_runs: listRuns as ToolHandler,
  search_history: searchHistory as ToolHandler,
  search_runs: searchRuns as ToolHandler,
  verify_history: verifyHistory as ToolHandler,
};
