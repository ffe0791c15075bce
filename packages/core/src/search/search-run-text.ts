// What core indexes for a run record (seed 001 run files, task episodes stored as runs): one
// definition every run store uses, so an index rebuilt anywhere holds the same words.
import { safeJsonParse } from '../util/json.js';

/** The string leaves of a JSON value, depth first (object keys are not text a person wrote). */
function leaves(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) leaves(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) leaves(item, into);
  }
}

/** An object's own field, or undefined (never throws on any JSON value). */
function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function pushString(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
}

/** A tool call's arguments: JSON text whose string leaves are the text, else the text itself. */
function pushArguments(value: unknown, into: string[]): void {
  if (typeof value !== 'string') {
    leaves(value, into);
    return;
  }
  const parsed = safeJsonParse(value);
  if (parsed.success) leaves(parsed.value, into);
  else into.push(value);
}

/** A chat message's text: its content (a string, or the `text` of its parts) and its tool calls. */
function pushMessage(message: unknown, into: string[]): void {
  const content = field(message, 'content');
  if (typeof content === 'string') into.push(content);
  else if (Array.isArray(content))
    for (const part of content) pushString(field(part, 'text'), into);
  const calls = field(message, 'tool_calls');
  if (Array.isArray(calls)) {
    for (const call of calls) {
      const fn = field(call, 'function');
      pushString(field(fn, 'name'), into);
      pushArguments(field(fn, 'arguments'), into);
    }
  }
}

/** Names of fields that are ids, kinds or bookkeeping, never words (`type`, `id`, `…_id`, `seq`). */
function isBookkeeping(name: string): boolean {
  return name === 'type' || name === 'id' || name === 'seq' || name.endsWith('_id');
}

/** The string leaves of an object's fields, bookkeeping fields (see `isBookkeeping`) left out. */
function pushFieldsOf(value: unknown, into: string[], skip: ReadonlySet<string>): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const [name, item] of Object.entries(value)) {
    if (!isBookkeeping(name) && !skip.has(name)) leaves(item, into);
  }
}

const NOTHING = new Set<string>();
/**
 * Fields every non-header record carries that are not text: `meta` is for filters, `chain` is a
 * chaining store's stamp.
 */
const RECORD_FIELDS = new Set(['ts', 'meta', 'chain']);

/**
 * The text a store indexes for one run record, one piece per line; ids, numbers, booleans,
 * timestamps, object keys and `meta` are left out:
 * - `run.start`: the input's `text`; a task episode's `task.context` string leaves (not its
 *   metadata);
 * - `agent.event`: the string leaves of `event` except its `type`, `id`, `seq` and `…_id` fields
 *   (a task step: tool, action, parameters, result; a completion: outcome, reflection, patterns);
 * - `tool.output`: the tool's name, then `result_raw`;
 * - `llm.response`: each output message's text (`content`, or the `text` of its parts) and its
 *   tool calls (name, then the string leaves of the arguments JSON);
 * - `run.status`: `message`; `run.error`: the error's `name` and `message` (not its stack);
 *   `run.end`: `final`;
 * - a custom or newer type: the string leaves of its fields but `type`, `run_id`, `ts`, `meta`,
 *   `chain`, `seq`, `id` and `…_id`;
 * - `header`, `run.context` and `llm.request` give no text: a header is configuration, and a
 *   request repeats the conversation the run's other records already hold.
 * Anything that is not a record object gives no text.
 */
export function searchTextOfRunRecord(record: unknown): string {
  const parts: string[] = [];
  const type = field(record, 'type');
  switch (type) {
    case 'header':
    case 'run.context':
    case 'llm.request':
      break;
    case 'run.start':
      pushString(field(field(record, 'input'), 'text'), parts);
      leaves(field(field(record, 'task'), 'context'), parts);
      break;
    case 'agent.event':
      pushFieldsOf(field(record, 'event'), parts, NOTHING);
      break;
    case 'tool.output':
      pushString(field(record, 'tool'), parts);
      pushString(field(record, 'result_raw'), parts);
      break;
    case 'llm.response': {
      const messages = field(field(record, 'output'), 'messages');
      if (Array.isArray(messages)) for (const message of messages) pushMessage(message, parts);
      break;
    }
    case 'run.status':
      pushString(field(record, 'message'), parts);
      break;
    case 'run.error':
      pushString(field(field(record, 'error'), 'name'), parts);
      pushString(field(field(record, 'error'), 'message'), parts);
      break;
    case 'run.end':
      pushString(field(record, 'final'), parts);
      break;
    default:
      if (typeof type === 'string') pushFieldsOf(record, parts, RECORD_FIELDS);
  }
  return parts.join('\n');
}

/**
 * The text a store indexes for one stored run line (the JSON of a record, as appended): the
 * record's `searchTextOfRunRecord`; a line that is not JSON (a damaged line) gives no text.
 */
export function searchTextOfRunLine(line: string): string {
  const parsed = safeJsonParse(line);
  return parsed.success ? searchTextOfRunRecord(parsed.value) : '';
}

/** The record's `ts` as epoch milliseconds, or null when it has none or it does not parse. */
export function runLineTsMs(record: unknown): number | null {
  const ts = field(record, 'ts');
  if (typeof ts !== 'string') return null;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? null : ms;
}

/** What a run store indexes for one stored line: its text, record type and time. */
export interface RunLineSearchFields {
  readonly text: string;
  /** The record's `type`, or `''` for a line that is not a record. */
  readonly type: string;
  /** The record's `ts` in epoch milliseconds, or null. */
  readonly tsMs: number | null;
}

/** A stored line's text, type and time, from one parse of its JSON (a damaged line: all empty). */
export function searchFieldsOfRunLine(line: string): RunLineSearchFields {
  const parsed = safeJsonParse(line);
  if (!parsed.success) return { text: '', type: '', tsMs: null };
  const type = field(parsed.value, 'type');
  return {
    text: searchTextOfRunRecord(parsed.value),
    type: typeof type === 'string' ? type : '',
    tsMs: runLineTsMs(parsed.value),
  };
}
