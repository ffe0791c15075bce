import type { RunRecord } from '@episodic/core';
import type { RunRecordItem, ToolCallPair } from './api-types.js';
import { contentText, preview } from './episode-text.js';

/** A tool output longer than this is collapsed to its head and tail. */
export const LONG_OUTPUT_CHARS = 2000;
const PREVIEW_EDGE = 600;

type AnyRecord = RunRecord & Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A `tool_call` event's arguments as text: seed 001's `args` object (or `raw_args`), or a string. */
function argumentsText(event: Record<string, unknown>): string | null {
  if (typeof event.raw_args === 'string') return event.raw_args;
  if (typeof event.args === 'object' && event.args !== null) return JSON.stringify(event.args);
  return text(event.args);
}

interface CallSide {
  callId: string;
  tool: string | null;
  arguments: string | null;
  index: number;
  ts: string | null;
}

/** Tool calls of a run: `agent.event` tool calls, or calls in `llm.response` messages. */
function callsOf(record: AnyRecord, index: number): CallSide[] {
  if (record.type === 'agent.event') {
    const event = record.event as Record<string, unknown>;
    const callId = text(event.tool_call_id);
    if (event.type === 'tool_call' && callId !== null) {
      return [
        {
          callId,
          tool: text(event.tool),
          arguments: argumentsText(event),
          index,
          ts: text(record.ts),
        },
      ];
    }
    return [];
  }
  if (record.type === 'llm.response') {
    const messages = ((record.output as { messages?: unknown[] })?.messages ?? []) as Array<
      Record<string, unknown>
    >;
    return messages.flatMap((message) =>
      ((message.tool_calls ?? []) as Array<Record<string, unknown>>).flatMap((call) => {
        const callId = text(call.id);
        const fn = (call.function ?? {}) as Record<string, unknown>;
        return callId === null
          ? []
          : [
              {
                callId,
                tool: text(fn.name),
                arguments: text(fn.arguments),
                index,
                ts: text(record.ts),
              },
            ];
      }),
    );
  }
  return [];
}

function isErrorRecord(record: AnyRecord): boolean {
  if (record.type === 'run.error') return true;
  if (record.type === 'tool.output') return record.is_error === true;
  if (record.type === 'run.end') return record.outcome === 'error';
  if (record.type === 'run.status') return record.status === 'error';
  if (record.type === 'agent.event') {
    const event = record.event as Record<string, unknown>;
    return (
      event.is_error === true || /error|fail/i.test(String(event.type)) || event.status === 'failed'
    );
  }
  return false;
}

function summaryOf(record: AnyRecord): string {
  switch (record.type) {
    case 'header': {
      const model = record.model as { provider?: string; name?: string } | undefined;
      return `run ${String(record.run_id)}${model ? ` · model ${model.provider ?? '?'}/${model.name ?? '?'}` : ''}`;
    }
    case 'run.start': {
      const input = record.input as { text?: unknown } | undefined;
      const task = record.task as { task_type?: unknown } | undefined;
      return `${task ? `task (${String(task.task_type)}): ` : 'input: '}${preview(String(input?.text ?? ''), 300).text}`;
    }
    case 'run.status':
      return `status ${String(record.status)}${record.message ? `: ${String(record.message)}` : ''}`;
    case 'run.context':
      return `context left ${String(record.context_left_percent)}%`;
    case 'run.error': {
      const error = record.error as { name?: unknown; message?: unknown };
      return `${String(error?.name ?? 'Error')}: ${String(error?.message ?? '')}`;
    }
    case 'run.end':
      return `ended ${String(record.outcome)}${record.final ? `: ${preview(String(record.final), 300).text}` : ''}`;
    case 'llm.request': {
      const messages = ((record.input as { messages?: unknown[] })?.messages ?? []).length;
      return `model input #${String(record.seq)}: ${messages} message${messages === 1 ? '' : 's'}`;
    }
    case 'llm.response': {
      const output = record.output as {
        messages?: Array<Record<string, unknown>>;
        usage?: Record<string, unknown> | null;
        stop_reason?: unknown;
      };
      const message = output?.messages?.[0];
      const calls = (output?.messages ?? []).flatMap(
        (entry) => (entry.tool_calls ?? []) as Array<{ function?: { name?: string } }>,
      );
      const said = message === undefined ? '' : contentText(message.content);
      const what =
        calls.length > 0
          ? `calls ${calls.map((call) => call.function?.name ?? '?').join(', ')}`
          : preview(said, 300).text;
      const usage = output?.usage
        ? ` (${String(output.usage.input_tokens)} in / ${String(output.usage.output_tokens)} out tokens)`
        : '';
      return `model answer #${String(record.seq)}: ${what}${usage}`;
    }
    case 'tool.output':
      return `${String(record.tool)} → ${String((record.result_raw as string).length)} chars${record.is_error ? ' (error)' : ''}`;
    case 'agent.event': {
      const event = record.event as Record<string, unknown>;
      const rest = Object.entries(event)
        .filter(([key]) => key !== 'type')
        .map(
          ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(' ');
      return `${String(event.type)} ${preview(rest, 300).text}`.trim();
    }
    default:
      return preview(JSON.stringify(record), 300).text;
  }
}

/** The tool calls of a run paired with their outputs by `tool_call_id`, in call order. */
export function pairToolCalls(records: readonly RunRecord[]): ToolCallPair[] {
  const pairs = new Map<string, ToolCallPair>();
  const order: string[] = [];
  const callTimes = new Map<string, string | null>();
  const pairOf = (callId: string, tool: string, args: string | null): ToolCallPair => {
    let pair = pairs.get(callId);
    if (pair === undefined) {
      pair = {
        call_id: callId,
        tool,
        arguments: args,
        call_index: null,
        output_index: null,
        is_error: false,
        output_chars: null,
        duration_ms: null,
        cache_id: null,
      };
      pairs.set(callId, pair);
      order.push(callId);
    }
    return pair;
  };
  records.forEach((raw, index) => {
    const record = raw as AnyRecord;
    for (const call of callsOf(record, index)) {
      const pair = pairOf(call.callId, call.tool ?? '?', call.arguments);
      // The agent event is the call as the agent made it; the model's message only proposed it.
      if (pair.call_index === null || record.type === 'agent.event') {
        pair.call_index = index;
        callTimes.set(call.callId, call.ts);
      }
    }
    if (record.type === 'tool.output') {
      const callId = String(record.tool_call_id);
      const pair = pairOf(callId, String(record.tool), null);
      pair.output_index = index;
      pair.is_error = record.is_error === true;
      pair.output_chars = (record.result_raw as string).length;
      const ref = record.output_ref as { id?: unknown } | undefined;
      pair.cache_id = typeof ref?.id === 'string' ? ref.id : null;
      const start = callTimes.get(callId);
      if (typeof start === 'string' && typeof record.ts === 'string') {
        const duration = Date.parse(record.ts) - Date.parse(start);
        pair.duration_ms = Number.isNaN(duration) ? null : duration;
      }
    }
  });
  return order.map((callId) => pairs.get(callId) as ToolCallPair);
}

/** A record as the run view lists it: its summary, error flag, call pairing and output preview. */
export function recordItem(
  raw: RunRecord,
  index: number,
  pairs: ReadonlyMap<string, ToolCallPair>,
): RunRecordItem {
  const record = raw as AnyRecord;
  let call: RunRecordItem['call'] = null;
  if (record.type === 'tool.output') {
    const pair = pairs.get(String(record.tool_call_id));
    call = {
      id: String(record.tool_call_id),
      tool: String(record.tool),
      partner_index: pair?.call_index ?? null,
    };
  } else {
    const made = callsOf(record, index)[0];
    if (made !== undefined && record.type === 'agent.event') {
      const pair = pairs.get(made.callId);
      call = { id: made.callId, tool: made.tool, partner_index: pair?.output_index ?? null };
    }
  }
  let output: RunRecordItem['output'] = null;
  if (record.type === 'tool.output') {
    const full = record.result_raw as string;
    output =
      full.length > LONG_OUTPUT_CHARS
        ? {
            chars: full.length,
            head: full.slice(0, PREVIEW_EDGE),
            tail: full.slice(-PREVIEW_EDGE),
            collapsed: true,
          }
        : { chars: full.length, head: full, tail: '', collapsed: false };
  }
  return {
    index,
    type: record.type,
    ts: text(record.ts),
    seq: typeof record.seq === 'number' ? record.seq : null,
    summary: summaryOf(record),
    error: isErrorRecord(record),
    call,
    output,
  };
}
