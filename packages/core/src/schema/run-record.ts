import * as z from 'zod';
import { safeJsonParse } from '../util/json.js';
import { utf8ByteLength } from '../util/utf8.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { formatPath } from '../validation/describe-value.js';
import { baseMessageSchema } from './base-message.js';

/**
 * Run records (seed 001): one JSON object per line of a run file. Every schema keeps unknown fields
 * (forward compatibility), enum-like strings accept values this version does not know, and record
 * types this version does not know are read as `UnknownRunRecord` instead of being rejected.
 */

/** The run file schema version this package writes. Readers accept others in best-effort mode. */
export const RUN_RECORD_SCHEMA_VERSION = 1;

/** The record types seed 001 defines, in the order a run usually writes them. */
export const RUN_RECORD_TYPES = [
  'header',
  'run.start',
  'run.context',
  'agent.event',
  'tool.output',
  'llm.request',
  'llm.response',
  'run.status',
  'run.error',
  'run.end',
] as const;

/** A record type seed 001 defines. */
export type KnownRunRecordType = (typeof RUN_RECORD_TYPES)[number];

/** The `run.status` values seed 001 defines. Readers accept any other non-empty string too. */
export const RUN_STATUSES = ['running', 'awaiting_ui', 'completed', 'error', 'cancelled'] as const;

/** The `run.end` outcomes seed 001 defines. Readers accept any other non-empty string too. */
export const RUN_OUTCOMES = ['completed', 'cancelled', 'error'] as const;

/** A run status: one of `RUN_STATUSES`, or a newer value this version does not know. */
export type RunStatus = (typeof RUN_STATUSES)[number] | (string & {});

/** A run outcome: one of `RUN_OUTCOMES`, or a newer value this version does not know. */
export type RunOutcome = (typeof RUN_OUTCOMES)[number] | (string & {});

/**
 * Custom record types must be namespaced `x.<org>.<name>` so they never collide with a future
 * seed type (seed 001 §9).
 */
export const CUSTOM_RUN_RECORD_TYPE_PATTERN = /^x\.[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+$/;

/**
 * The shape of a seed record type name: lowercase words joined by dots (`run.start`,
 * `llm.request`). A record of such a type that this version does not know was written by a newer
 * version; stores accept it so that data written by a newer version is written back unchanged.
 */
export const LATER_RUN_RECORD_TYPE_PATTERN = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;

/** True when `left` becomes `right` by one insertion, deletion, substitution or swap of neighbours. */
function oneEditApart(left: string, right: string): boolean {
  if (left === right || Math.abs(left.length - right.length) > 1) return false;
  let start = 0;
  while (start < left.length && left[start] === right[start]) start++;
  const restLeft = left.slice(start);
  const restRight = right.slice(start);
  return (
    restLeft.slice(1) === restRight.slice(1) ||
    restLeft.slice(1) === restRight ||
    restLeft === restRight.slice(1) ||
    (restLeft.length >= 2 &&
      restLeft[0] === restRight[1] &&
      restLeft[1] === restRight[0] &&
      restLeft.slice(2) === restRight.slice(2))
  );
}

/**
 * The known record type `type` is one edit away from (`run.strat` → `run.start`), if any: such a
 * name is taken for a typo, not for a newer type, and refused on append.
 */
export function nearKnownRunRecordType(type: string): KnownRunRecordType | undefined {
  return RUN_RECORD_TYPES.find((known) => oneEditApart(type, known));
}

/** True for a custom record type such as `x.acme.checkpoint`. */
export function isCustomRunRecordType(type: string): boolean {
  return CUSTOM_RUN_RECORD_TYPE_PATTERN.test(type);
}

/** True for a record type seed 001 defines. */
export function isKnownRunRecordType(type: unknown): type is KnownRunRecordType {
  return typeof type === 'string' && Object.hasOwn(KNOWN_SCHEMAS, type);
}

/** An enum-like string that keeps values this version does not know (seed 001 §9). */
function openEnum<Value extends string>() {
  return z.string().min(1) as unknown as z.ZodType<Value | (string & {}), Value | (string & {})>;
}

/**
 * A record timestamp: ISO 8601 / RFC 3339. Writers emit UTC (`…Z`); readers also accept an offset.
 */
export const runTimestampSchema = z.iso.datetime({ offset: true });

const metaSchema = z.record(z.string(), z.unknown());

/** Which model served a run or an invocation. */
export const runModelInfoSchema = z.looseObject({
  provider: z.string().optional(),
  name: z.string().optional(),
  reasoning: z.string().optional(),
});

/**
 * Where a run executed. A run resumed somewhere else (another working directory or machine) records
 * the new environment here (seed 001 §6).
 */
export const runtimeInfoSchema = z.looseObject({
  cwd: z.string().optional(),
  os: z.string().optional(),
  arch: z.string().optional(),
  version: z.string().optional(),
});

const nameVersionSchema = z.looseObject({ name: z.string(), version: z.string() });

/** The first line of every run file; written once and never rewritten. */
export const runHeaderSchema = z.looseObject({
  type: z.literal('header'),
  /** `1` today. Any other positive integer is read in best-effort mode. */
  schema_version: z.number().int().positive(),
  run_id: z.string().min(1),
  session_id: z.string().min(1).optional(),
  /**
   * When the run started (ISO 8601 UTC). Any non-empty string is accepted; a store that files runs
   * by date uses the current date when it cannot be parsed.
   */
  started_at: z.string().min(1),
  client: nameVersionSchema.optional(),
  server: nameVersionSchema.optional(),
  model: runModelInfoSchema.optional(),
  prompts: z.looseObject({ system: z.string().optional() }).optional(),
  tools: z
    .looseObject({ definitions: z.array(z.unknown()).optional(), source: z.string().optional() })
    .optional(),
  runtime: runtimeInfoSchema.optional(),
  meta: metaSchema.optional(),
});

const recordBase = {
  run_id: z.string().min(1),
  ts: runTimestampSchema,
  meta: metaSchema.optional(),
};

/** The user input that started the run. */
export const runStartRecordSchema = z.looseObject({
  type: z.literal('run.start'),
  ...recordBase,
  session_id: z.string().min(1).optional(),
  /** `{ type: 'text', text }` today; other input kinds are kept. */
  input: z.looseObject({ type: z.string().min(1), text: z.string().optional() }),
  /** A UI context snapshot (seed 001 leaves its shape to the UI protocol). */
  ui_context: z.unknown().optional(),
});

/** How much of the model's context window is left; written only when the value changes. */
export const runContextRecordSchema = z.looseObject({
  type: z.literal('run.context'),
  ...recordBase,
  context_left_percent: z.number(),
});

/** An event for UI playback, e.g. `tool_call`, `final`, `compaction_start`. */
export const agentEventSchema = z.looseObject({ type: z.string().min(1) });

/** One agent event, numbered by `seq` from 0 within the run. */
export const agentEventRecordSchema = z.looseObject({
  type: z.literal('agent.event'),
  ...recordBase,
  seq: z.number().int().nonnegative(),
  event: agentEventSchema,
});

/** Where a store kept the full text of a tool output (`cache/tool-output/<id>.txt` on disk). */
export const toolOutputRefSchema = z.looseObject({
  id: z.string().min(1),
  /** UTF-8 bytes of `result_raw`. */
  byte_size: z.number().int().nonnegative().optional(),
  /** Lines of `result_raw` (a final line without `\n` counts; an empty output has 0). */
  line_count: z.number().int().nonnegative().optional(),
});

/** The full, raw output of one tool call. */
export const toolOutputRecordSchema = z.looseObject({
  type: z.literal('tool.output'),
  ...recordBase,
  tool: z.string().min(1),
  tool_call_id: z.string().min(1),
  result_raw: z.string(),
  is_error: z.boolean().optional(),
  output_ref: toolOutputRefSchema.optional(),
});

/** Exactly what was sent to the model for one invocation (after any compaction or trimming). */
export const llmRequestRecordSchema = z.looseObject({
  type: z.literal('llm.request'),
  ...recordBase,
  /** The invocation number; continues from the session snapshot's `invoke_seq`. */
  seq: z.number().int().nonnegative(),
  model: runModelInfoSchema.optional(),
  input: z.looseObject({
    messages: z.array(baseMessageSchema),
    tools: z.array(z.unknown()).nullable().optional(),
    tool_choice: z.unknown().optional(),
    model: z.string().optional(),
  }),
});

/** Token usage of one invocation. */
export const llmUsageSchema = z.looseObject({
  model: z.string(),
  input_tokens: z.number().nonnegative(),
  input_cached_tokens: z.number().nonnegative().nullable().optional(),
  input_cache_creation_tokens: z.number().nonnegative().nullable().optional(),
  input_image_tokens: z.number().nonnegative().nullable().optional(),
  output_tokens: z.number().nonnegative(),
  total_tokens: z.number().nonnegative(),
});

/** What the model answered; `seq` matches its `llm.request`. */
export const llmResponseRecordSchema = z.looseObject({
  type: z.literal('llm.response'),
  ...recordBase,
  seq: z.number().int().nonnegative(),
  output: z.looseObject({
    messages: z.array(baseMessageSchema),
    usage: llmUsageSchema.nullable().optional(),
    stop_reason: z.string().nullable().optional(),
    provider_meta: z.unknown().optional(),
  }),
});

/** A status change of the run. */
export const runStatusRecordSchema = z.looseObject({
  type: z.literal('run.status'),
  ...recordBase,
  status: openEnum<(typeof RUN_STATUSES)[number]>(),
  message: z.string().optional(),
});

/** The error that ended a run. */
export const runErrorRecordSchema = z.looseObject({
  type: z.literal('run.error'),
  ...recordBase,
  error: z.looseObject({ name: z.string(), message: z.string(), stack: z.string().optional() }),
});

/** The last record of a run that ended normally (a crash may leave it out). */
export const runEndRecordSchema = z.looseObject({
  type: z.literal('run.end'),
  ...recordBase,
  outcome: openEnum<(typeof RUN_OUTCOMES)[number]>(),
  final: z.string().optional(),
});

/** A record of a type this version does not know (a custom `x.<org>.<name>` or a newer seed type). */
export const unknownRunRecordSchema = z.looseObject({ type: z.string().min(1) });

/**
 * A custom record as a writer may append it: a namespaced `x.<org>.<name>` type plus `run_id` and
 * `ts`, like every non-header record.
 */
export const customRunRecordSchema = z.looseObject({
  type: z
    .string()
    .regex(CUSTOM_RUN_RECORD_TYPE_PATTERN, 'must be namespaced as x.<org>.<name> (seed 001 §9)'),
  ...recordBase,
});

/**
 * A record of a seed-shaped type this version does not know (`run.plan` from a newer writer), as
 * stores accept it back: `run_id` and `ts` like every non-header record, every other field kept.
 */
export const laterRunRecordSchema = z.looseObject({
  type: z
    .string()
    .regex(LATER_RUN_RECORD_TYPE_PATTERN, 'must be lowercase words joined by dots (seed 001 §9)'),
  ...recordBase,
});

export type RunModelInfo = z.infer<typeof runModelInfoSchema>;
export type RuntimeInfo = z.infer<typeof runtimeInfoSchema>;
export type RunHeader = z.infer<typeof runHeaderSchema>;
export type RunStartRecord = z.infer<typeof runStartRecordSchema>;
export type RunContextRecord = z.infer<typeof runContextRecordSchema>;
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventRecord = z.infer<typeof agentEventRecordSchema>;
/** Seed 001's `output_ref`: where the full text of a tool output is kept (cache id, byte size, line count). */
export type ToolOutputRef = z.infer<typeof toolOutputRefSchema>;
export type ToolOutputRecord = z.infer<typeof toolOutputRecordSchema>;
export type LlmRequestRecord = z.infer<typeof llmRequestRecordSchema>;
export type LlmUsage = z.infer<typeof llmUsageSchema>;
export type LlmResponseRecord = z.infer<typeof llmResponseRecordSchema>;
export type RunStatusRecord = z.infer<typeof runStatusRecordSchema>;
export type RunErrorRecord = z.infer<typeof runErrorRecordSchema>;
export type RunEndRecord = z.infer<typeof runEndRecordSchema>;
export type UnknownRunRecord = z.infer<typeof unknownRunRecordSchema>;

/** A record of one of the types seed 001 defines. */
export type KnownRunRecord =
  | RunHeader
  | RunStartRecord
  | RunContextRecord
  | AgentEventRecord
  | ToolOutputRecord
  | LlmRequestRecord
  | LlmResponseRecord
  | RunStatusRecord
  | RunErrorRecord
  | RunEndRecord;

/**
 * Any record of a run file. Narrow with `isRunRecordOfType(record, 'llm.request')`: a plain
 * `record.type === …` check cannot exclude `UnknownRunRecord`, whose `type` is any string.
 */
export type RunRecord = KnownRunRecord | UnknownRunRecord;

/** The record of a known type `Type`. */
export type RunRecordOfType<Type extends KnownRunRecordType> = Extract<
  KnownRunRecord,
  { type: Type }
>;

/** The zod schema of each known record type. */
export const runRecordSchemas = Object.freeze({
  header: runHeaderSchema,
  'run.start': runStartRecordSchema,
  'run.context': runContextRecordSchema,
  'agent.event': agentEventRecordSchema,
  'tool.output': toolOutputRecordSchema,
  'llm.request': llmRequestRecordSchema,
  'llm.response': llmResponseRecordSchema,
  'run.status': runStatusRecordSchema,
  'run.error': runErrorRecordSchema,
  'run.end': runEndRecordSchema,
} as const) satisfies Record<KnownRunRecordType, z.ZodType>;
const KNOWN_SCHEMAS = runRecordSchemas;

/** Compiled on first use: the read path validates millions of records. */
const COMPILED = Object.fromEntries(
  Object.entries(KNOWN_SCHEMAS).map(([type, schema]) => [type, lazyCompiled(schema as z.ZodType)]),
) as Record<KnownRunRecordType, () => z.ZodType>;

/** The (compiled) schema of a known record type, for callers that validate records themselves. */
export function runRecordSchemaFor(type: KnownRunRecordType): z.ZodType {
  return COMPILED[type]();
}

/** True when `record` is a known record of type `type`. */
export function isRunRecordOfType<Type extends KnownRunRecordType>(
  record: RunRecord,
  type: Type,
): record is RunRecordOfType<Type> {
  return record.type === type;
}

/** The result of checking one stored record. */
export type RunRecordCheck =
  | {
      success: true;
      record: RunRecord;
      /** False for a record type this version does not know (kept as an `UnknownRunRecord`). */
      known: boolean;
    }
  | { success: false; message: string };

/**
 * Checks one parsed JSON value as a stored run record, for readers. Known types are validated
 * against their schema (compiled, without copying: the value is returned as is); unknown types are
 * accepted as long as `type` is a non-empty string. Never throws.
 */
export function checkRunRecord(value: unknown): RunRecordCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { success: false, message: `expected a JSON object, found ${jsonKind(value)}` };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || type === '') {
    return { success: false, message: 'the record has no "type" string' };
  }
  if (!isKnownRunRecordType(type))
    return { success: true, record: value as RunRecord, known: false };
  const schema = COMPILED[type]();
  if (schema.validate(value)) return { success: true, record: value as RunRecord, known: true };
  return { success: false, message: describeRecordIssue(type, schema, value) };
}

/**
 * Parses one line of a run file: JSON, then `checkRunRecord`. Never throws; a damaged line yields
 * a message saying why.
 */
export function parseRunRecordLine(text: string): RunRecordCheck {
  const parsed = safeJsonParse(text);
  if (!parsed.success) return { success: false, message: `not valid JSON (${parsed.error})` };
  return checkRunRecord(parsed.value);
}

function describeRecordIssue(type: string, schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  const issue = result.success ? undefined : result.error.issues[0];
  if (issue === undefined) return `not a valid ${type} record`;
  return `not a valid ${type} record: ${formatPath(issue.path)} ${issue.message}`;
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** True when a header's `schema_version` is one this version reads fully (not best effort). */
export function isSupportedRunSchemaVersion(schemaVersion: unknown): boolean {
  return schemaVersion === RUN_RECORD_SCHEMA_VERSION;
}

/** The cache id of a tool call's output: `tool_call_id` with every character outside `[A-Za-z0-9_-]` replaced by `_`. */
export function toolOutputCacheId(toolCallId: string): string {
  return toolCallId.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The number of lines in `text`: each `\n` ends one, a final line without `\n` counts, `''` has 0. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 0;
  let index = text.indexOf('\n');
  while (index !== -1) {
    lines++;
    index = text.indexOf('\n', index + 1);
  }
  return text.endsWith('\n') ? lines : lines + 1;
}

/** The `output_ref` seed 001 attaches to a `tool.output`: cache id, UTF-8 byte size and line count. */
export function toolOutputRefFor(toolCallId: string, resultRaw: string): ToolOutputRef {
  return {
    id: toolOutputCacheId(toolCallId),
    byte_size: utf8ByteLength(resultRaw),
    line_count: countLines(resultRaw),
  };
}
