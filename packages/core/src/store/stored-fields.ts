import * as z from 'zod';
import { episodeSchema } from '../schema/episode.js';
import {
  functionCallItemSchema,
  functionCallOutputItemSchema,
  messageItemSchema,
  reasoningItemSchema,
} from '../schema/input-item.js';
import { newLedgerEventSchema } from '../schema/ledger-event.js';
import {
  agentEventRecordSchema,
  agentEventSchema,
  customRunRecordSchema,
  runRecordSchemas,
  runStartRecordSchema,
} from '../schema/run-record.js';
import { sessionDeltaSchema, sessionStateSchema } from '../schema/session-state.js';
import {
  runStartTaskSchema,
  taskCompletedEventSchema,
  taskStepEventSchema,
} from '../schema/task-run-records.js';
import type { JsonPath } from '../util/json-strings.js';

/**
 * The one inventory of what Episodic stores, derived from the zod schemas of every stored record
 * (a ledger event, each run record type, task events, session snapshots and deltas). Every string
 * a record can hold is one of:
 * - `content`: caller-supplied text (summaries, payloads, messages, parameters, metadata, any
 *   field a schema does not name). Redaction overwrites it; `content` mode blanks it.
 * - `id`: an identifier (run, session, event, agent, call ids, the scope). Kept by redaction so
 *   the record stays addressable; the ledger refuses one that looks like a secret at append.
 * - `system`: a label Episodic or the protocol defines (types, roles, statuses, timestamps, tool
 *   and model names). Kept by `content` mode; still scanned in `secrets` mode.
 * Object keys are either schema keys (named by a schema) or caller keys (of a `z.record`, or of
 * any JSON a schema leaves open: payloads, parameters, metadata, `meta`, `context`): caller keys
 * are content, and `content` mode replaces them (see `createStoredRedactor`).
 * A string field is `content` unless its name is in `ID_FIELD_NAMES` or `SYSTEM_FIELD_NAMES`; a
 * number, boolean, literal or enum is `system` (it cannot carry caller text), except where a
 * stored value is not what the schema allows (then it is `content`).
 */
export type StoredFieldClass = 'content' | 'id' | 'system';

/** String fields that identify a record. */
const ID_FIELD_NAMES: ReadonlySet<string> = new Set([
  'agent_id',
  'call_id',
  'event_id',
  'id',
  'run_id',
  'scope',
  'session_id',
  'tool_call_id',
  'turnId',
]);

/** String fields whose values the protocol or Episodic defines (kept by `content` mode). */
const SYSTEM_FIELD_NAMES: ReadonlySet<string> = new Set([
  'arch',
  'created_at',
  'ended_at',
  'message_ts',
  'model',
  'name',
  'os',
  'outcome',
  'pluginId',
  'provider',
  'reasoning',
  'role',
  'schema_version',
  'started_at',
  'status',
  'stop_reason',
  'timestamp',
  'tool',
  'ts',
  'type',
  'updated_at',
  'version',
]);

type Shape =
  | {
      readonly kind: 'object';
      readonly fields: ReadonlyMap<string, Shape>;
      /** Whether stored objects may hold keys the schema does not name (loose or stripping). */
      readonly open: boolean;
    }
  | { readonly kind: 'array'; readonly item: Shape }
  | { readonly kind: 'record'; readonly value: Shape }
  | { readonly kind: 'text'; readonly class: StoredFieldClass }
  /** A number, boolean or null; `values` for a literal or an enum. */
  | { readonly kind: 'scalar'; readonly values?: readonly unknown[] }
  /** Any JSON: every string is content; `callerKeys` when its keys are the caller's too. */
  | { readonly kind: 'any'; readonly callerKeys: boolean }
  | { readonly kind: 'union'; readonly options: readonly Shape[] };

const ANY_CALLER: Shape = { kind: 'any', callerKeys: true };
/** An extra field of a loose object: its value is content, its keys (and nested keys) kept. */
const ANY_EXTRA: Shape = { kind: 'any', callerKeys: false };

function textClass(name: string | undefined): StoredFieldClass {
  if (name === undefined) return 'content';
  if (ID_FIELD_NAMES.has(name)) return 'id';
  if (SYSTEM_FIELD_NAMES.has(name)) return 'system';
  return 'content';
}

interface ZodDef {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly getter?: () => z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly left?: z.ZodType;
  readonly right?: z.ZodType;
  readonly items?: readonly z.ZodType[];
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
}

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** The shape of `schema`, a field named `name` (array items carry their array's name). */
function shapeOf(schema: z.ZodType, name: string | undefined, seen: Set<z.ZodType>): Shape {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return shapeOf(def.innerType as z.ZodType, name, seen);
    case 'pipe':
      return shapeOf(def.in as z.ZodType, name, seen);
    case 'lazy': {
      // A recursive schema (`z.json()`) is any JSON.
      if (seen.has(schema)) return ANY_CALLER;
      seen.add(schema);
      const shape = shapeOf((def.getter as () => z.ZodType)(), name, seen);
      seen.delete(schema);
      return shape;
    }
    case 'object': {
      const fields = new Map<string, Shape>();
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        fields.set(key, shapeOf(field, key, seen));
      }
      const strict = def.catchall !== undefined && defOf(def.catchall).type === 'never';
      return { kind: 'object', fields, open: !strict };
    }
    case 'array':
      return { kind: 'array', item: shapeOf(def.element as z.ZodType, name, seen) };
    case 'tuple':
      return {
        kind: 'array',
        item: {
          kind: 'union',
          options: (def.items ?? []).map((item) => shapeOf(item, name, seen)),
        },
      };
    case 'record':
      return { kind: 'record', value: shapeOf(def.valueType as z.ZodType, undefined, seen) };
    case 'union':
      return {
        kind: 'union',
        options: (def.options ?? []).map((option) => shapeOf(option, name, seen)),
      };
    case 'intersection':
      return {
        kind: 'union',
        options: [
          shapeOf(def.left as z.ZodType, name, seen),
          shapeOf(def.right as z.ZodType, name, seen),
        ],
      };
    case 'string':
    case 'template_literal':
      return { kind: 'text', class: textClass(name) };
    case 'literal':
      return { kind: 'scalar', values: def.values ?? [] };
    case 'enum':
      return { kind: 'scalar', values: Object.values(def.entries ?? {}) };
    case 'number':
    case 'int':
    case 'boolean':
    case 'bigint':
    case 'null':
    case 'undefined':
    case 'nan':
    case 'date':
    case 'never':
    case 'void':
      return { kind: 'scalar' };
    default:
      // unknown, any, custom and whatever a later zod adds: any JSON, keys and all.
      return ANY_CALLER;
  }
}

/** The item shapes an `item` episode may hold (its schema picks them in a transform). */
const inputItemShapes = z.union([
  messageItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  reasoningItemSchema,
  z.looseObject({ type: z.string(), id: z.string().optional() }),
]);

const storedEpisodeSchema = z.union(
  defOf(episodeSchema).options?.map((option) => {
    const object = option as z.ZodObject;
    return 'item' === defOf(defOf(object).shape?.type as z.ZodType).values?.[0]
      ? object.extend({ payload: z.looseObject({ item: inputItemShapes }) })
      : object;
  }) as unknown as [z.ZodType, z.ZodType],
);

/** The schema of every stored record, by name: the inventory's source. */
export const STORED_RECORD_SCHEMAS: Readonly<Record<string, z.ZodType>> = Object.freeze({
  'ledger.event': newLedgerEventSchema,
  ...Object.fromEntries(
    Object.entries(runRecordSchemas).map(([type, schema]) => [`run:${type}`, schema as z.ZodType]),
  ),
  'run:run.start': runStartRecordSchema.extend({ task: runStartTaskSchema.optional() }),
  'run:agent.event': agentEventRecordSchema.extend({
    event: z.union([taskStepEventSchema, taskCompletedEventSchema, agentEventSchema]),
  }),
  /** Any other run record type (a later seed's or a custom `x.<org>.<name>` record). */
  'run:*': customRunRecordSchema.extend({ type: z.string() }),
  'session.snapshot': sessionStateSchema.extend({
    episodes: z.array(storedEpisodeSchema).optional(),
  }),
  'session.delta': sessionDeltaSchema.extend({
    episodes: z.array(storedEpisodeSchema).optional(),
  }),
});

const shapes = new Map<string, Shape>();

function recordShape(record: string): Shape {
  let shape = shapes.get(record);
  if (shape === undefined) {
    const schema = STORED_RECORD_SCHEMAS[record];
    shape = schema === undefined ? ANY_CALLER : shapeOf(schema, undefined, new Set());
    shapes.set(record, shape);
  }
  return shape;
}

/** The inventory record a stored run record belongs to. */
export function runRecordInventoryName(record: unknown): string {
  const type =
    typeof record === 'object' && record !== null ? (record as { type?: unknown }).type : undefined;
  const name = `run:${String(type)}`;
  return typeof type === 'string' && Object.hasOwn(STORED_RECORD_SCHEMAS, name) ? name : 'run:*';
}

function matches(shape: Shape, value: unknown): boolean {
  switch (shape.kind) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      for (const [key, field] of shape.fields) {
        if (field.kind === 'scalar' && field.values !== undefined) {
          if (!field.values.includes((value as Record<string, unknown>)[key])) return false;
        }
      }
      return true;
    }
    case 'array':
      return Array.isArray(value);
    case 'record':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'text':
      return typeof value === 'string';
    case 'scalar':
      return shape.values === undefined
        ? typeof value !== 'string' && (typeof value !== 'object' || value === null)
        : shape.values.includes(value);
    case 'any':
      return true;
    case 'union':
      return shape.options.some((option) => matches(option, value));
  }
}

/** The option of a union `value` belongs to (the first that matches; any JSON otherwise). */
function pick(shape: Shape, value: unknown): Shape {
  let current = shape;
  while (current.kind === 'union') {
    current = current.options.find((option) => matches(option, value)) ?? ANY_CALLER;
  }
  return current;
}

function child(value: unknown, part: string | number): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as Record<string | number, unknown>)[part];
}

/** The shape at `path` of `root` (a parsed stored record), unions resolved by the values. */
function shapeAt(record: string, root: unknown, path: JsonPath): Shape {
  let shape = pick(recordShape(record), root);
  let value = root;
  for (const part of path) {
    value = child(value, part);
    switch (shape.kind) {
      case 'object':
        shape =
          typeof part === 'string' && shape.fields.has(part)
            ? (shape.fields.get(part) as Shape)
            : ANY_EXTRA;
        break;
      case 'array':
        shape = shape.item;
        break;
      case 'record':
        shape = shape.value;
        break;
      case 'any':
        return shape;
      default:
        // Deeper than the schema goes: a stored value it does not describe.
        return ANY_CALLER;
    }
    shape = pick(shape, value);
  }
  return shape;
}

/** How the string value at `path` of a stored record is classified. */
export function storedStringClass(record: string, root: unknown, path: JsonPath): StoredFieldClass {
  const shape = shapeAt(record, root, path);
  if (shape.kind === 'text') return shape.class;
  if (shape.kind === 'scalar') {
    const value = path.reduce<unknown>((node, part) => child(node, part), root);
    return shape.values?.includes(value) === true ? 'system' : 'content';
  }
  return 'content';
}

/** Whether the keys of the object at `parent` of a stored record are the caller's (content). */
export function isCallerKeyPosition(record: string, root: unknown, parent: JsonPath): boolean {
  const shape = shapeAt(record, root, parent);
  if (shape.kind === 'record') return true;
  if (shape.kind === 'any') return shape.callerKeys;
  return shape.kind !== 'object';
}

/** One position of the inventory: a string field, a scalar, or a place where keys are the caller's. */
export interface StoredFieldEntry {
  readonly record: string;
  /** e.g. `input.messages[].content`; `{}` names the keys of a record or of open JSON. */
  readonly path: string;
  readonly class: StoredFieldClass;
  /** `text` a string, `scalar` a number, boolean or fixed label, `json` open JSON, `keys` caller keys. */
  readonly position: 'text' | 'scalar' | 'json' | 'keys';
}

function entriesOf(record: string, shape: Shape, path: string, out: StoredFieldEntry[]): void {
  const at = (suffix: string) => (path === '' ? suffix : `${path}${suffix}`);
  switch (shape.kind) {
    case 'text':
      out.push({ record, path, class: shape.class, position: 'text' });
      return;
    case 'scalar':
      out.push({ record, path, class: 'system', position: 'scalar' });
      return;
    case 'any':
      out.push({ record, path, class: 'content', position: 'json' });
      if (shape.callerKeys)
        out.push({ record, path: at('{}'), class: 'content', position: 'keys' });
      return;
    case 'record':
      out.push({ record, path: at('{}'), class: 'content', position: 'keys' });
      entriesOf(record, shape.value, at('{}'), out);
      return;
    case 'array':
      entriesOf(record, shape.item, at('[]'), out);
      return;
    case 'union':
      shape.options.forEach((option, index) => {
        entriesOf(record, option, shape.options.length > 1 ? `${path}|${index}` : path, out);
      });
      return;
    case 'object':
      for (const [key, field] of shape.fields) {
        entriesOf(record, field, path === '' ? key : `${path}.${key}`, out);
      }
      if (shape.open) out.push({ record, path: at('.*'), class: 'content', position: 'json' });
  }
}

/**
 * Every position of every stored record, classified (for tests, docs and reviews: a new field in
 * a stored schema shows up here).
 */
export function storedFieldInventory(): StoredFieldEntry[] {
  const out: StoredFieldEntry[] = [];
  for (const record of Object.keys(STORED_RECORD_SCHEMAS)) {
    entriesOf(record, recordShape(record), '', out);
  }
  return out;
}

/** The fields of a new ledger event the inventory classifies as ids (checked at append). */
export function ledgerIdFields(): string[] {
  const shape = recordShape('ledger.event');
  if (shape.kind !== 'object') return [];
  return [...shape.fields]
    .filter(([, field]) => field.kind === 'text' && field.class === 'id')
    .map(([key]) => key);
}

/** The fields of a new ledger event that hold caller content (all overwritten by `redact`). */
export function ledgerContentFields(): string[] {
  const shape = recordShape('ledger.event');
  if (shape.kind !== 'object') return [];
  return [...shape.fields]
    .filter(
      ([, field]) =>
        field.kind !== 'scalar' && !(field.kind === 'text' && field.class !== 'content'),
    )
    .map(([key]) => key);
}
