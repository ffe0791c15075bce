import type { z } from 'zod';
import {
  boundaryPayloadSchema,
  EPISODE_SOURCES,
  episodeMetaSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  inputItemSchema,
  isoTimestampSchema,
  itemPayloadSchema,
  KNOWN_ITEM_TYPES,
  messageItemSchema,
  metaPayloadSchema,
  newEpisodeSchema,
  reasoningItemSchema,
  restoredEpisodeSchema,
} from '../schema/index.js';
import { lazyCompiled } from '../validation/compiled-schema.js';

// A fast check for the common episode, used before the schema on the append and restore paths.
//
// The compiled episode schema still builds output objects for every episode (the item schema is a
// transform and `meta` has defaults), and on a restore of a million episodes those copies cost
// more than the JSON parse. This check reads the value without allocating: the envelope and
// `meta` by hand, the payloads and items through their own compiled schemas. It only ever says
// yes to values the schema accepts; anything it does not fully recognize (metadata, an unexpected
// shape) answers no, and the caller runs the schema. A test checks both always agree on yes.

const SOURCES: ReadonlySet<unknown> = new Set(EPISODE_SOURCES);
const timestamp = lazyCompiled(isoTimestampSchema);
const boundaryPayload = lazyCompiled(boundaryPayloadSchema);
const metaPayload = lazyCompiled(metaPayloadSchema);
const knownItems: Readonly<Record<string, () => z.ZodType>> = {
  message: lazyCompiled(messageItemSchema),
  function_call: lazyCompiled(functionCallItemSchema),
  function_call_output: lazyCompiled(functionCallOutputItemSchema),
  reasoning: lazyCompiled(reasoningItemSchema),
};

type Shape = Record<string, z.ZodType>;

function shapeOf(schema: unknown): Shape {
  return (schema as { shape: Shape }).shape;
}

function defOf(schema: unknown): Record<string, unknown> {
  return (schema as { def: Record<string, unknown> }).def;
}

function catchallOf(schema: unknown): unknown {
  return defOf(defOf(schema).catchall)?.type;
}

function sameKeys(shape: Shape, keys: readonly string[]): boolean {
  const own = Object.keys(shape);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

/**
 * The hand-written parts mirror the schema as it is written today. If the schema changes shape,
 * the guard switches itself off (every value goes to the schema) rather than guess.
 */
function schemaIsAsWritten(): boolean {
  try {
    const payloads: Record<string, unknown> = {
      item: itemPayloadSchema,
      boundary: boundaryPayloadSchema,
      meta: metaPayloadSchema,
    };
    const envelopes = [
      {
        schema: newEpisodeSchema,
        keys: ['type', 'payload', 'meta', 'metadata'],
        catchall: 'never',
      },
      {
        schema: restoredEpisodeSchema,
        keys: ['id', 'type', 'payload', 'meta', 'metadata'],
        catchall: 'unknown',
      },
    ];
    for (const { schema, keys, catchall } of envelopes) {
      const options = (schema as unknown as { options: unknown[] }).options;
      if (options.length !== 3) return false;
      for (const option of options) {
        const shape = shapeOf(option);
        if (!sameKeys(shape, keys) || catchallOf(option) !== catchall) return false;
        const type = (defOf(shape.type).values as unknown[] | undefined)?.[0];
        if (typeof type !== 'string' || shape.payload !== payloads[type]) return false;
        if (defOf(shape.meta).innerType !== episodeMetaSchema) return false;
        if (shape.id !== undefined && defOf(shape.id).type !== 'unknown') return false;
      }
    }
    const meta = shapeOf(episodeMetaSchema);
    if (!sameKeys(meta, ['source', 'turnId', 'ts']) || catchallOf(episodeMetaSchema) !== 'unknown')
      return false;
    const sources = defOf(defOf(meta.source).innerType).entries as Record<string, string>;
    if (Object.keys(sources).sort().join() !== [...EPISODE_SOURCES].sort().join()) return false;
    if (defOf(meta.ts).innerType !== isoTimestampSchema) return false;
    const turnId = defOf(defOf(meta.turnId).innerType);
    const checks = (turnId.checks as unknown[] | undefined) ?? [];
    if (turnId.type !== 'string' || checks.length !== 1) return false;
    const minimum = (checks[0] as { _zod?: { def?: { check?: unknown; minimum?: unknown } } })._zod
      ?.def;
    if (minimum?.check !== 'min_length' || minimum.minimum !== 1) return false;
    const item = shapeOf(itemPayloadSchema);
    if (!sameKeys(item, ['item']) || catchallOf(itemPayloadSchema) !== 'unknown') return false;
    if (item.item !== inputItemSchema) return false;
    return [...KNOWN_ITEM_TYPES].sort().join() === Object.keys(knownItems).sort().join();
  } catch {
    return false;
  }
}

let enabled: boolean | undefined;

const EMPTY = {};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metaIsValid(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  const source = meta.source;
  if (source !== undefined && !SOURCES.has(source)) return false;
  const turnId = meta.turnId;
  if (turnId !== undefined && (typeof turnId !== 'string' || turnId.length === 0)) return false;
  const ts = meta.ts;
  return ts === undefined || (typeof ts === 'string' && timestamp().validate(ts));
}

function payloadIsValid(type: unknown, payload: unknown): boolean {
  if (type === 'item') {
    if (!isObject(payload)) return false;
    const item = payload.item;
    if (!isObject(item)) return false;
    const itemType = item.type;
    if (typeof itemType !== 'string' || itemType.length === 0) return false;
    if (Object.hasOwn(knownItems, itemType))
      return (knownItems[itemType] as () => z.ZodType)().validate(item);
    // An unknown item kind passes through the schema untouched; a name an object inherits
    // ("toString", "__proto__", …) is left to the schema.
    return !(itemType in EMPTY);
  }
  if (type === 'boundary') return boundaryPayload().validate(payload);
  if (type === 'meta') return metaPayload().validate(payload);
  return false;
}

/** The guard for `append` input (`newEpisodeSchema`: no other top-level keys, no `id`). */
export function isCommonNewEpisode(value: unknown): boolean {
  enabled ??= schemaIsAsWritten();
  if (!enabled || !isObject(value)) return false;
  for (const key in value) {
    if (key !== 'type' && key !== 'payload' && key !== 'meta' && key !== 'metadata') return false;
  }
  // Metadata has its own rules (keys, values, at most ten): the schema checks it.
  if (value.metadata !== undefined) return false;
  return metaIsValid(value.meta) && payloadIsValid(value.type, value.payload);
}

/**
 * The guard for restored episodes (`restoredEpisodeSchema`: other keys kept, any `id`), which
 * also requires `meta.source` to be present, as restore keeps a value as parsed only then.
 */
export function isCommonRestoredEpisode(value: unknown): boolean {
  enabled ??= schemaIsAsWritten();
  if (!enabled || !isObject(value) || value.metadata !== undefined || !('id' in value))
    return false;
  const meta = value.meta;
  return (
    isObject(meta) &&
    meta.source !== undefined &&
    metaIsValid(meta) &&
    payloadIsValid(value.type, value.payload)
  );
}
