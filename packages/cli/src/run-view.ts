import type { RunReadError, RunRecord } from '@episodic/core';
import { localTime } from './human-time.js';
import { type Styles, sanitizeForTerminal, truncate } from './output.js';

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

function lastMessageText(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0) return '';
  const last = messages[messages.length - 1] as { role?: unknown; content?: unknown };
  const content =
    typeof last.content === 'string'
      ? last.content
      : Array.isArray(last.content)
        ? last.content.map((part) => text((part as { text?: unknown }).text ?? part)).join(' ')
        : text(last.content);
  return `${text(last.role)}: ${content}`;
}

/** A one-line description of a run record, for tables and `tail`. */
export function describeRecord(record: RunRecord): string {
  const value = record as Record<string, unknown>;
  switch (record.type) {
    case 'header': {
      const model = value.model as { provider?: unknown; name?: unknown } | undefined;
      return [
        `run ${text(value.run_id)}`,
        value.session_id === undefined ? '' : `session ${text(value.session_id)}`,
        model === undefined ? '' : `model ${text(model.provider)}/${text(model.name)}`,
      ]
        .filter((part) => part !== '')
        .join(', ');
    }
    case 'run.start':
      return text((value.input as { text?: unknown } | undefined)?.text);
    case 'run.context':
      return `${text(value.context_left_percent)}% of the context left`;
    case 'agent.event': {
      const event = value.event as Record<string, unknown> | undefined;
      const detail = [
        event?.tool ?? event?.name,
        event?.action ?? event?.text ?? event?.content ?? event?.message,
      ]
        .filter((part) => part !== undefined && part !== '')
        .map(text)
        .join(': ');
      return `#${text(value.seq)} ${text(event?.type)}${detail === '' ? '' : ` ${detail}`}`;
    }
    case 'tool.output':
      return `${text(value.tool)} (${text(value.tool_call_id)})${value.is_error === true ? ' error' : ''}: ${text(value.result_raw)}`;
    case 'llm.request':
      return `#${text(value.seq)} ${lastMessageText((value.input as { messages?: unknown } | undefined)?.messages)}`;
    case 'llm.response':
      return `#${text(value.seq)} ${lastMessageText((value.output as { messages?: unknown } | undefined)?.messages)}`;
    case 'run.status':
      return `${text(value.status)}${value.message === undefined ? '' : `: ${text(value.message)}`}`;
    case 'run.error': {
      const error = value.error as { name?: unknown; message?: unknown } | undefined;
      return `${text(error?.name)}: ${text(error?.message)}`;
    }
    case 'run.end':
      return `${text(value.outcome)}${value.final === undefined ? '' : `: ${text(value.final)}`}`;
    default:
      // A custom record (x.<org>.<name>) may describe itself, e.g. @episodic/langgraph's checkpoints.
      return typeof value.summary === 'string' ? value.summary : '';
  }
}

/** One line for a record: time, type and description, sanitized for the terminal. */
export function recordLine(record: RunRecord, styles: Styles, width = 100): string {
  const { ts: at, started_at: startedAt } = record as { ts?: unknown; started_at?: unknown };
  const ts = typeof at === 'string' ? at : typeof startedAt === 'string' ? startedAt : '';
  // Local wall-clock time for people; receipts keep the stored ISO text.
  const time = (ts === '' ? '' : localTime(ts, { milliseconds: true })).padEnd(23);
  const type = record.type.padEnd(13);
  const description = truncate(sanitizeForTerminal(describeRecord(record)), width);
  const color =
    record.type === 'run.error'
      ? styles.red
      : record.type === 'run.end'
        ? styles.green
        : styles.cyan;
  return `${styles.dim(time)} ${color(type)} ${description}`.trimEnd();
}

/** One line for a damaged line of a run. */
export function damageLine(error: RunReadError, styles: Styles): string {
  const where = [
    error.line === undefined ? undefined : `line ${error.line}`,
    error.byteOffset === undefined ? undefined : `byte ${error.byteOffset}`,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  return `${styles.red('damaged')} ${where}: ${sanitizeForTerminal(error.message)} ${styles.dim(truncate(error.excerpt, 60))}`;
}

/** A `RunReadError` as receipts show it (snake_case). */
export function damageJson(error: RunReadError): Record<string, unknown> {
  return {
    ...(error.line === undefined ? {} : { line: error.line }),
    ...(error.byteOffset === undefined ? {} : { byte_offset: error.byteOffset }),
    message: error.message,
    excerpt: error.excerpt,
  };
}
