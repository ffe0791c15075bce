import type { RunHeader, RunRecord } from '@episodic/core';
import { notFound } from './api-error.js';
import { preview } from './episode-text.js';
import { standingOf } from './run-status.js';
import type {
  RunTraceResponse,
  TraceSpan,
  TraceTokens,
  TraceTotals,
  TraceTurnRef,
} from './trace-types.js';

type AnyRecord = RunRecord & Record<string, unknown>;

/** The client name of runs `@episodic/interop` converted from a transcript. */
const IMPORT_CLIENT_NAME = 'episodic-import';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A record time in milliseconds since the epoch, or null when it has none or it is unreadable. */
function timeOf(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

function span(
  fields: Pick<TraceSpan, 'id' | 'kind' | 'name'> & Partial<TraceSpan>,
): TraceSpan & { turn: string | null; startAt: number | null; endAt: number | null } {
  return {
    detail: null,
    start_ms: null,
    end_ms: null,
    duration_ms: null,
    status: 'ok',
    error: null,
    tokens: null,
    record_index: null,
    requested_by: null,
    missing: [],
    children: [],
    ...fields,
    turn: null,
    startAt: null,
    endAt: null,
  };
}

type Building = ReturnType<typeof span>;

function usageOf(record: AnyRecord): TraceTokens | null {
  const usage = (record.output as { usage?: Record<string, unknown> | null } | undefined)?.usage;
  if (typeof usage?.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') {
    return null;
  }
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cached: typeof usage.input_cached_tokens === 'number' ? usage.input_cached_tokens : null,
  };
}

/** The tool calls a model answer asked for: `{ id, name, arguments }` from its messages. */
function proposedCalls(record: AnyRecord): Array<{ id: string; name: string; args: string }> {
  const messages = ((record.output as { messages?: unknown[] } | undefined)?.messages ??
    []) as Array<Record<string, unknown>>;
  return messages.flatMap((message) =>
    (
      (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Array<
        Record<string, unknown>
      >
    )
      .filter((call) => typeof call.id === 'string')
      .map((call) => {
        const fn = (call.function ?? {}) as Record<string, unknown>;
        return {
          id: call.id as string,
          name: text(fn.name) ?? '?',
          args: text(fn.arguments) ?? '',
        };
      }),
  );
}

function argsOf(event: Record<string, unknown>): string {
  if (typeof event.raw_args === 'string') return event.raw_args;
  if (typeof event.args === 'string') return event.args;
  return event.args === undefined ? '' : JSON.stringify(event.args);
}

/** Sums over the model, tool and error spans of a list (nested ones included). */
export function totalsOf(spans: readonly TraceSpan[]): TraceTotals {
  const totals: TraceTotals = {
    model_calls: 0,
    tool_calls: 0,
    errors: 0,
    tokens: null,
    calls_without_usage: 0,
    model_ms: null,
    tool_ms: null,
  };
  const visit = (node: TraceSpan) => {
    if (node.kind === 'model') {
      totals.model_calls++;
      if (node.tokens === null) totals.calls_without_usage++;
      else {
        totals.tokens ??= { input: 0, output: 0, cached: null };
        const sum = totals.tokens;
        sum.input += node.tokens.input;
        sum.output += node.tokens.output;
        if (node.tokens.cached !== null) sum.cached = (sum.cached ?? 0) + node.tokens.cached;
      }
      if (node.duration_ms !== null) totals.model_ms = (totals.model_ms ?? 0) + node.duration_ms;
    } else if (node.kind === 'tool') {
      totals.tool_calls++;
      if (node.duration_ms !== null) totals.tool_ms = (totals.tool_ms ?? 0) + node.duration_ms;
    }
    if ((node.kind === 'tool' || node.kind === 'error') && node.status === 'error') totals.errors++;
    for (const child of node.children) visit(child);
  };
  for (const node of spans) visit(node);
  return totals;
}

/** The span's offsets from `origin` (null when the trace has no usable times). */
function place(node: Building, origin: number | null): void {
  node.start_ms = origin === null || node.startAt === null ? null : node.startAt - origin;
  node.end_ms = origin === null || node.endAt === null ? null : node.endAt - origin;
  node.duration_ms =
    node.start_ms === null || node.end_ms === null ? null : node.end_ms - node.start_ms;
  for (const child of node.children) place(child as Building, origin);
}

function extentOf(node: TraceSpan): number {
  return Math.max(
    0,
    node.start_ms ?? 0,
    node.end_ms ?? 0,
    ...node.children.map((child) => extentOf(child)),
  );
}

/** Strips the builder's own fields so the answer is exactly a `TraceSpan`. */
function finish(node: Building): TraceSpan {
  const { turn: _turn, startAt: _start, endAt: _end, ...rest } = node;
  return { ...rest, children: node.children.map((child) => finish(child as Building)) };
}

/** A run read through `RunStore.read`, as the trace needs it. */
export interface TracedRun {
  runId: string;
  header: RunHeader | null;
  records: readonly RunRecord[];
}

/**
 * A run as a tree of timed spans: the run, its turns (by the `turn_id` its records carry; one turn
 * is not a level of its own), and in each the model calls (`llm.request` → `llm.response`, the
 * usage of the answer) and tool calls (the call → its `tool.output`), with the `run.error` that
 * ended it. Offsets come from the records' own times; whatever the records do not say (a model
 * call imported without its request, an output that never came, a source without times) is left
 * null and said in `missing`. With `turnId`, the tree of that turn only.
 */
export function buildRunTrace(run: TracedRun, turnId: string | null = null): RunTraceResponse {
  const records = run.records as readonly AnyRecord[];
  const header = run.header as (RunHeader & Record<string, unknown>) | null;
  const client = header?.client as { name?: unknown } | undefined;
  const importMeta = (header?.meta as { import?: { format?: unknown } } | undefined)?.import;
  const importedFrom =
    client?.name === IMPORT_CLIENT_NAME ? (text(importMeta?.format) ?? 'a transcript') : null;

  const start = records.find((record) => record.type === 'run.start');
  const times = records
    .filter((record) => record.type !== 'header')
    .map((record) => timeOf(record.ts))
    .filter((ms): ms is number => ms !== null);
  const distinct = new Set(times);
  const origin = timeOf(start?.ts) ?? timeOf(header?.started_at) ?? times[0] ?? null;
  // An import from a source without times stamps every record with one time (the importer's
  // fallback): no durations can be told. A live run may well take less than a millisecond.
  const timed =
    origin !== null && (importedFrom === null || distinct.size > 1 || times.length <= 2);

  const rootSpan = span({ id: 'run', kind: 'run', name: 'run' });
  rootSpan.startAt = origin;
  rootSpan.record_index = start === undefined ? null : records.indexOf(start);
  const model = header?.model as { provider?: string; name?: string } | undefined;
  rootSpan.detail = model === undefined ? null : `${model.provider ?? '?'}/${model.name ?? '?'}`;

  const turnOrder: string[] = [];
  const turnStart = new Map<string, number | null>();
  const calls: Building[] = [];
  const models = new Map<number, Building>();
  const tools = new Map<string, Building>();
  const proposals = new Map<
    string,
    { seq: number; at: number | null; name: string; args: string; turn: string | null }
  >();
  let currentTurn: string | null = null;
  let runError: { message: string; at: number | null } | null = null;
  let endAt: number | null = null;

  const noteTurn = (record: AnyRecord) => {
    const id = text((record.meta as { turn_id?: unknown } | undefined)?.turn_id);
    if (id === null) return;
    currentTurn = id;
    if (!turnStart.has(id)) {
      turnOrder.push(id);
      turnStart.set(id, timeOf(record.ts));
    }
  };
  const toolSpan = (callId: string, name: string, index: number): Building => {
    let tool = tools.get(callId);
    if (tool === undefined) {
      tool = span({ id: `tool:${callId}`, kind: 'tool', name });
      tool.record_index = index;
      tool.turn = currentTurn;
      tools.set(callId, tool);
      calls.push(tool);
    }
    return tool;
  };

  records.forEach((record, index) => {
    noteTurn(record);
    const at = timeOf(record.ts);
    switch (record.type) {
      case 'llm.request': {
        const seq = typeof record.seq === 'number' ? record.seq : index;
        const call = span({ id: `model:${seq}`, kind: 'model', name: `model call #${seq}` });
        const requestModel = record.model as { provider?: string; name?: string } | undefined;
        call.detail =
          requestModel === undefined
            ? null
            : `${requestModel.provider ?? '?'}/${requestModel.name ?? '?'}`;
        call.startAt = at;
        call.record_index = index;
        call.turn = currentTurn;
        models.set(seq, call);
        calls.push(call);
        break;
      }
      case 'llm.response': {
        const seq = typeof record.seq === 'number' ? record.seq : index;
        let call = models.get(seq);
        if (call === undefined || call.endAt !== null || call.status !== 'ok') {
          call = span({ id: `model:${seq}`, kind: 'model', name: `model call #${seq}` });
          call.record_index = index;
          call.turn = currentTurn;
          call.missing.push(
            'no llm.request: when the model was asked, and so its latency, is not recorded (it is placed at its answer)',
          );
          models.set(seq, call);
          calls.push(call);
        }
        call.endAt = at;
        call.tokens = usageOf(record);
        if (call.tokens === null) call.missing.push('no token usage in the answer');
        const output = record.output as { stop_reason?: unknown; usage?: { model?: unknown } };
        const stop = text(output?.stop_reason);
        const proposed = proposedCalls(record);
        const parts = [
          call.detail ?? text(output?.usage?.model),
          proposed.length > 0
            ? `asked for ${proposed.map((entry) => entry.name).join(', ')}`
            : null,
          stop === null ? null : `stop: ${stop}`,
        ].filter((part) => part !== null);
        call.detail = parts.length === 0 ? null : parts.join(' · ');
        for (const entry of proposed) {
          proposals.set(entry.id, { seq, at, name: entry.name, args: entry.args, turn: call.turn });
        }
        break;
      }
      case 'agent.event': {
        const event = record.event as Record<string, unknown>;
        const callId = text(event.tool_call_id);
        if (event.type !== 'tool_call' || callId === null) break;
        const tool = toolSpan(callId, text(event.tool) ?? '?', index);
        tool.startAt = at;
        tool.record_index = index;
        const args = argsOf(event);
        tool.detail = args === '' ? null : preview(args, 200).text;
        break;
      }
      case 'tool.output': {
        const callId = String(record.tool_call_id);
        const tool = toolSpan(callId, String(record.tool), index);
        tool.endAt = at;
        if (record.is_error === true) {
          tool.status = 'error';
          tool.error = preview(String(record.result_raw ?? ''), 300).text || 'the tool failed';
        }
        break;
      }
      case 'run.error': {
        const error = record.error as { name?: unknown; message?: unknown } | undefined;
        const message = `${text(error?.name) ?? 'Error'}: ${text(error?.message) ?? ''}`;
        runError = { message, at };
        const failure = span({ id: `error:${index}`, kind: 'error', name: 'run.error' });
        failure.detail = message;
        failure.error = message;
        failure.status = 'error';
        failure.startAt = at;
        failure.endAt = at;
        failure.record_index = index;
        failure.turn = currentTurn;
        // The model call the error cut off: asked, never answered.
        for (const call of models.values()) {
          if (call.endAt === null && call.status === 'ok' && call.startAt !== null) {
            call.endAt = at;
            call.status = 'error';
            call.error = message;
            call.missing.push('no answer: the run failed while the model was being asked');
          }
        }
        calls.push(failure);
        break;
      }
      case 'run.end':
        endAt = at;
        break;
      default:
        break;
    }
  });

  // Tool calls the records name only in a model's answer (no agent event): they start there.
  for (const [callId, proposal] of proposals) {
    const tool = tools.get(callId);
    if (tool === undefined) {
      const added = span({ id: `tool:${callId}`, kind: 'tool', name: proposal.name });
      added.startAt = proposal.at;
      added.turn = proposal.turn;
      added.requested_by = proposal.seq;
      added.detail = proposal.args === '' ? null : preview(proposal.args, 200).text;
      added.missing.push('asked for by the model, never run: no tool call or output recorded');
      added.status = 'open';
      tools.set(callId, added);
      calls.push(added);
      continue;
    }
    tool.requested_by = proposal.seq;
    tool.turn = proposal.turn ?? tool.turn;
    if (tool.startAt === null) tool.startAt = proposal.at;
    if (tool.detail === null && proposal.args !== '')
      tool.detail = preview(proposal.args, 200).text;
  }
  for (const tool of tools.values()) {
    if (tool.endAt !== null || tool.status === 'open') continue;
    tool.status = 'open';
    tool.missing.push(
      endAt === null
        ? 'no output recorded yet'
        : 'no output recorded: the run ended first (interrupted or stopped)',
    );
  }
  for (const call of models.values()) {
    if (call.endAt !== null || call.status !== 'ok') continue;
    call.status = 'open';
    call.missing.push(endAt === null ? 'no answer recorded yet' : 'no answer recorded');
  }

  // The run's turns, each a span over its calls; one turn (or none) is no level of its own.
  const order = (left: Building, right: Building) =>
    (left.record_index ?? 0) - (right.record_index ?? 0);
  calls.sort(order);
  const turnSpans = turnOrder.map((id) => {
    const turn = span({ id: `turn:${id}`, kind: 'turn', name: `turn ${id.slice(0, 8)}` });
    turn.detail = id;
    const own = calls.filter((call) => call.turn === id);
    turn.children = own;
    const starts = [turnStart.get(id) ?? null, ...own.map((call) => call.startAt)].filter(
      (ms): ms is number => ms !== null,
    );
    const ends = own
      .map((call) => call.endAt ?? call.startAt)
      .filter((ms): ms is number => ms !== null);
    turn.startAt = starts.length === 0 ? null : Math.min(...starts);
    turn.endAt = ends.length === 0 ? null : Math.max(...ends);
    turn.record_index = own[0]?.record_index ?? null;
    if (own.some((call) => call.status === 'error')) turn.status = 'error';
    return turn;
  });
  const standing = standingOf(run.records);
  rootSpan.endAt = endAt;
  if (endAt === null) {
    rootSpan.status = 'open';
    rootSpan.missing.push('no run.end: the run is still going, or its writer stopped before it');
  }
  if (runError !== null || standing.status === 'failed') {
    rootSpan.status = 'error';
    rootSpan.error = (runError as { message: string } | null)?.message ?? standing.error;
  }
  rootSpan.children =
    turnSpans.length <= 1
      ? calls
      : [
          ...turnSpans,
          ...calls.filter((call) => call.turn === null || !turnOrder.includes(call.turn)),
        ].sort(order);

  const missing: string[] = [];
  let root: Building = rootSpan;
  let shownTurn: string | null = null;
  if (turnId !== null) {
    const wanted = turnId.toLowerCase();
    const found = turnSpans.find((turn) => turn.detail?.toLowerCase() === wanted);
    if (found !== undefined && turnSpans.length > 1) {
      root = found;
      shownTurn = found.detail;
    } else if (found !== undefined || turnOrder.length === 0) {
      shownTurn = found?.detail ?? turnId;
      if (found === undefined) {
        missing.push(
          `The run's records name no turn, so the whole run is shown as turn ${turnId.slice(0, 8)}.`,
        );
      }
    } else {
      throw notFound(
        'Turn',
        `${JSON.stringify(turnId.slice(0, 80))} of run ${run.runId}`,
        `The run's turns are ${turnOrder.join(', ')}.`,
      );
    }
  }

  if (!timed && origin !== null) {
    missing.push(
      `Every record of this run carries the same time (${new Date(origin).toISOString()}): its source recorded no times, so no durations or bars are shown.`,
    );
  }
  if (origin === null) missing.push('No record of this run carries a readable time.');
  const unasked = [...models.values()].filter((call) =>
    call.missing[0]?.startsWith('no llm.request'),
  );
  if (importedFrom === null && unasked.length > 0) {
    missing.push(
      `${unasked.length} model call${unasked.length === 1 ? ' has' : 's have'} no llm.request: their latency is unknown (each is placed at its answer).`,
    );
  }
  if (importedFrom !== null) {
    missing.push(
      `Imported from a ${importedFrom} transcript: transcripts keep what the model answered, not what it was sent (no llm.request), so model call latency is unknown and each call is placed at its answer.`,
    );
  }
  place(root, timed ? origin : null);
  const finished = finish(root);
  return {
    run_id: run.runId,
    session_id: text(header?.session_id),
    status: standing.status,
    turn_id: shownTurn,
    turns: turnSpans.map(
      (turn): TraceTurnRef => ({
        turn_id: turn.detail as string,
        start_ms: timed && origin !== null && turn.startAt !== null ? turn.startAt - origin : null,
      }),
    ),
    origin: origin === null ? null : new Date(origin).toISOString(),
    extent_ms: extentOf(finished),
    timed,
    imported_from: importedFrom,
    missing,
    totals: totalsOf(finished.children.length > 0 ? [finished] : []),
    root: finished,
  };
}
