import type { BaseMessage } from '../schema/base-message.js';
import type { Episode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import type { LedgerEventType, NewLedgerEvent } from '../schema/ledger-event.js';
import { isKnownRunRecordType, type RunRecord, runRecordSchemaFor } from '../schema/run-record.js';
import { canonicalJson } from './canonical-json.js';
import { stableHash } from './stable-hash.js';
import { truncateUtf8, utf8ByteLength } from './utf8.js';

/** Options shared by both projections. */
export interface ProjectionOptions {
  /** The scope the events go to (normalized on append). */
  readonly scope: string;
  /** The logical actor written as `agent_id`. @default 'agent' */
  readonly agentId?: string;
  /** The most UTF-8 bytes of a summary. @default 200 */
  readonly summaryBytes?: number;
  /** The most UTF-8 bytes of message text or arguments copied into a payload. @default 4000 */
  readonly textBytes?: number;
  /** The time used for an episode or record without a readable timestamp. @default () => new Date() */
  readonly now?: () => Date;
}

/** Options of `projectEpisodes`. */
export interface EpisodeProjectionOptions extends ProjectionOptions {
  /** The session the episodes belong to, written as `session_id`. */
  readonly sessionId: string;
}

interface Resolved {
  scope: string;
  agentId: string;
  summaryBytes: number;
  textBytes: number;
  now: () => Date;
}

function resolve(options: ProjectionOptions): Resolved {
  return {
    scope: options.scope,
    agentId: options.agentId ?? 'agent',
    summaryBytes: options.summaryBytes ?? 200,
    textBytes: options.textBytes ?? 4000,
    now: options.now ?? (() => new Date()),
  };
}

/** A deterministic event id: the same source object always projects to the same id. */
function projectedId(prefix: string, scope: string, source: string, key: string): string {
  return `${prefix}-${stableHash(`${scope}\u0000${source}`)}-${stableHash(key)}`;
}

function oneLine(text: string, maxBytes: number): string {
  return truncateUtf8(text.replace(/\s+/g, ' ').trim(), maxBytes);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' &&
      part !== null &&
      typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

function tsOf(text: unknown, resolved: Resolved): number {
  const parsed = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : resolved.now().getTime();
}

function lineCount(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) === 10) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function summaryOr(text: string, fallback: string, maxBytes: number): string {
  const line = oneLine(text, maxBytes);
  // The fallback names caller-controlled values (an input type, a role), so it is capped too.
  return line === '' ? oneLine(fallback, maxBytes) : line;
}

/**
 * Projects one session's episodes into ledger events. Message roles become `conversation.user` /
 * `conversation.assistant` (system and developer messages are configuration and are skipped);
 * function calls become `tool.call`; function outputs become `tool.result` with their size but not
 * their raw text (tool output stays in the run files: the ledger keeps a bounded, guarded view);
 * `interrupt` boundaries and `error.*` meta episodes become `ops.alert`; other boundaries become
 * `ops.decision`. Reasoning, unknown items and other meta episodes are skipped.
 *
 * Event ids are derived from the scope, the session and the episode id, so projecting the same
 * episodes again yields the same ids and appending them again is an idempotent retry.
 */
export function projectEpisodes(
  episodes: readonly Episode[],
  options: EpisodeProjectionOptions,
): NewLedgerEvent[] {
  const resolved = resolve(options);
  const sessionId = options.sessionId;
  const callNames = new Map<string, string>();
  const events: NewLedgerEvent[] = [];
  for (const episode of episodes) {
    const base = (type: LedgerEventType, key: string) => ({
      event_id: projectedId('ep', resolved.scope, sessionId, key),
      ts_ms: tsOf(episode.meta.ts, resolved),
      scope: resolved.scope,
      session_id: sessionId,
      agent_id: resolved.agentId,
      type,
      ...(episode.metadata === undefined ? {} : { metadata: { ...episode.metadata } }),
    });
    const refs: Record<string, string | number> = { episode_id: episode.id };
    if (episode.meta.turnId !== undefined) refs.turn_id = episode.meta.turnId;
    const key = String(episode.id);

    if (episode.type === 'item') {
      const item = episode.payload.item as InputItem & Record<string, unknown>;
      if (item.type === 'message') {
        const role = item.role;
        if (role !== 'user' && role !== 'assistant') continue;
        const text = textOf(item.content);
        events.push({
          ...base(role === 'user' ? 'conversation.user' : 'conversation.assistant', key),
          summary: summaryOr(text, `(${role} message without text)`, resolved.summaryBytes),
          payload: { role, text: truncateUtf8(text, resolved.textBytes) },
          refs,
        });
      } else if (item.type === 'function_call') {
        const callId = String(item.call_id);
        const name = String(item.name);
        callNames.set(callId, name);
        events.push({
          ...base('tool.call', key),
          summary: oneLine(`call ${name}`, resolved.summaryBytes),
          payload: {
            call_id: callId,
            name,
            arguments: truncateUtf8(String(item.arguments), resolved.textBytes),
          },
          refs: { ...refs, call_id: callId },
        });
      } else if (item.type === 'function_call_output') {
        const callId = String(item.call_id);
        const output = textOf(item.output);
        const name = callNames.get(callId);
        events.push({
          ...base('tool.result', key),
          summary: oneLine(
            `result of ${name ?? callId} (${utf8ByteLength(output)} bytes)`,
            resolved.summaryBytes,
          ),
          payload: {
            call_id: callId,
            ...(name === undefined ? {} : { name }),
            output_bytes: utf8ByteLength(output),
            output_lines: lineCount(output),
          },
          refs: { ...refs, call_id: callId },
        });
      }
    } else if (episode.type === 'boundary') {
      const payload = episode.payload;
      const content =
        'content' in payload && typeof payload.content === 'string' ? payload.content : undefined;
      events.push({
        ...base(payload.reason === 'interrupt' ? 'ops.alert' : 'ops.decision', key),
        summary: summaryOr(
          `${payload.reason}: ${payload.title}`,
          payload.reason,
          resolved.summaryBytes,
        ),
        payload: {
          reason: payload.reason,
          title: truncateUtf8(payload.title, resolved.textBytes),
          ...(content === undefined ? {} : { content: truncateUtf8(content, resolved.textBytes) }),
          ...('confidence' in payload && typeof payload.confidence === 'number'
            ? { confidence: payload.confidence }
            : {}),
        },
        refs,
      });
    } else if (episode.payload.event.startsWith('error.')) {
      const data = episode.payload.data;
      events.push({
        ...base('ops.alert', key),
        summary: oneLine(episode.payload.event, resolved.summaryBytes),
        payload: {
          event: episode.payload.event,
          ...(data === undefined
            ? {}
            : { detail: truncateUtf8(safeCanonical(data), resolved.textBytes) }),
        },
        refs,
      });
    }
  }
  return events;
}

function safeCanonical(value: unknown): string {
  try {
    return canonicalJson(value);
  } catch {
    return String(value);
  }
}

/**
 * Projects one run's records (seed 001) into ledger events, working from each record's `type`:
 * `run.start` → `conversation.user` (the input text); `llm.response` → `conversation.assistant`
 * for assistant text and `tool.call` for each tool call; `tool.output` → `tool.result` with its
 * size and error flag but not its raw text; `run.error` → `ops.alert`; `run.status` `cancelled`
 * (an interrupt) → `ops.alert`; `run.end` → `ops.decision`. Headers, `run.context`,
 * `llm.request` (a snapshot of earlier history), `agent.event` (UI playback of the same facts),
 * custom and unknown types, and records that fail their schema are skipped.
 *
 * `session_id` is the run's session (from the header or `run.start`), else the run id. Event ids
 * are derived from the scope, the run id and the record's content, so re-projecting is idempotent.
 */
export function projectRunRecords(
  records: readonly RunRecord[],
  options: ProjectionOptions,
): NewLedgerEvent[] {
  const resolved = resolve(options);
  let sessionId: string | undefined;
  for (const record of records) {
    const candidate = (record as { session_id?: unknown }).session_id;
    if (
      (record.type === 'header' || record.type === 'run.start') &&
      typeof candidate === 'string' &&
      candidate !== ''
    ) {
      sessionId = candidate;
      break;
    }
  }
  const events: NewLedgerEvent[] = [];
  for (const record of records) {
    if (!isKnownRunRecordType(record.type)) continue;
    if (!runRecordSchemaFor(record.type).safeParse(record).success) continue;
    const fields = record as Record<string, unknown> & { run_id: string; ts?: string };
    const runId = fields.run_id;
    const recordKey = `${record.type}\u0000${safeCanonical(record)}`;
    const base = (type: LedgerEventType, part = '') => ({
      event_id: projectedId('run', resolved.scope, runId, `${recordKey}\u0000${part}`),
      ts_ms: tsOf(fields.ts, resolved),
      scope: resolved.scope,
      session_id: sessionId ?? runId,
      agent_id: resolved.agentId,
      type,
    });
    const refs = { run_id: runId, record_type: record.type };

    switch (record.type) {
      case 'run.start': {
        const input = fields.input as { type: string; text?: string };
        const text = input.text ?? '';
        events.push({
          ...base('conversation.user'),
          summary: summaryOr(text, `(${input.type} input)`, resolved.summaryBytes),
          payload: { role: 'user', text: truncateUtf8(text, resolved.textBytes) },
          refs,
        });
        break;
      }
      case 'llm.response': {
        const output = fields.output as { messages: BaseMessage[] };
        const seq = fields.seq as number;
        output.messages.forEach((message, index) => {
          if (message.role !== 'assistant') return;
          const text = textOf(message.content);
          if (text !== '') {
            events.push({
              ...base('conversation.assistant', `message:${index}`),
              summary: summaryOr(text, '(assistant message)', resolved.summaryBytes),
              payload: { role: 'assistant', text: truncateUtf8(text, resolved.textBytes) },
              refs: { ...refs, seq },
            });
          }
          for (const call of message.tool_calls ?? []) {
            events.push({
              ...base('tool.call', `call:${call.id}`),
              summary: oneLine(`call ${call.function.name}`, resolved.summaryBytes),
              payload: {
                call_id: call.id,
                name: call.function.name,
                arguments: truncateUtf8(call.function.arguments, resolved.textBytes),
              },
              refs: { ...refs, seq, call_id: call.id },
            });
          }
        });
        break;
      }
      case 'tool.output': {
        const raw = fields.result_raw as string;
        const callId = fields.tool_call_id as string;
        const tool = fields.tool as string;
        const isError = fields.is_error === true;
        const outputRef = fields.output_ref as { id?: unknown } | undefined;
        events.push({
          ...base('tool.result'),
          summary: oneLine(
            `${isError ? 'error from' : 'result of'} ${tool} (${utf8ByteLength(raw)} bytes)`,
            resolved.summaryBytes,
          ),
          payload: {
            call_id: callId,
            name: tool,
            is_error: isError,
            output_bytes: utf8ByteLength(raw),
            output_lines: lineCount(raw),
          },
          refs: {
            ...refs,
            call_id: callId,
            ...(typeof outputRef?.id === 'string' ? { output_ref: outputRef.id } : {}),
          },
        });
        break;
      }
      case 'run.error': {
        const error = fields.error as { name: string; message: string };
        events.push({
          ...base('ops.alert'),
          summary: summaryOr(
            `run error: ${error.name}: ${error.message}`,
            'run error',
            resolved.summaryBytes,
          ),
          // The stack is left out: it is tool-output-like and stays in the run file.
          payload: {
            name: truncateUtf8(error.name, 200),
            message: truncateUtf8(error.message, resolved.textBytes),
          },
          refs,
        });
        break;
      }
      case 'run.status': {
        if (fields.status !== 'cancelled') break;
        const message = typeof fields.message === 'string' ? fields.message : undefined;
        events.push({
          ...base('ops.alert'),
          summary: summaryOr(
            `run cancelled${message ? `: ${message}` : ''}`,
            'run cancelled',
            resolved.summaryBytes,
          ),
          payload: {
            status: 'cancelled',
            ...(message === undefined
              ? {}
              : { message: truncateUtf8(message, resolved.textBytes) }),
          },
          refs,
        });
        break;
      }
      case 'run.end': {
        const outcome = String(fields.outcome);
        const final = typeof fields.final === 'string' ? fields.final : undefined;
        events.push({
          ...base('ops.decision'),
          summary: oneLine(`run ${outcome}`, resolved.summaryBytes),
          payload: {
            outcome,
            ...(final === undefined ? {} : { final: truncateUtf8(final, resolved.textBytes) }),
          },
          refs,
        });
        break;
      }
      default:
        break;
    }
  }
  return events;
}
