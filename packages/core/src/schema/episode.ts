import * as z from 'zod';
import { type InputItem, inputItemSchema } from './input-item.js';
import { type Metadata, metadataSchema } from './metadata.js';

/** Who produced an episode. */
export const EPISODE_SOURCES = ['agent', 'model', 'runtime', 'tool', 'user'] as const;
export type EpisodeSource = (typeof EPISODE_SOURCES)[number];

/** The three kinds of episode (seed 000). */
export const EPISODE_TYPES = ['boundary', 'item', 'meta'] as const;
export type EpisodeType = (typeof EPISODE_TYPES)[number];

/** Why a boundary was written. */
export const BOUNDARY_REASONS = [
  'checkpoint',
  'intent',
  'interrupt',
  'overflow',
  'segment',
] as const;
export type BoundaryReason = (typeof BOUNDARY_REASONS)[number];

/** ISO-8601 UTC timestamp, e.g. `2026-02-03T12:34:56.789Z`. */
export const isoTimestampSchema = z.iso.datetime({ offset: false });

/** Episode bookkeeping: who wrote it, for which turn, and when. */
export const episodeMetaSchema = z.looseObject({
  /** @default 'runtime' */
  source: z.enum(EPISODE_SOURCES).default('runtime'),
  turnId: z.string().min(1).optional(),
  /** Stamped by the log's clock on append when absent. Optional on read. */
  ts: isoTimestampSchema.optional(),
});

/** The payload of a `checkpoint` boundary: a title and the summary content. */
export const checkpointPayloadSchema = z.looseObject({
  reason: z.literal('checkpoint'),
  title: z.string(),
  content: z.string(),
});

export const markerPayloadSchema = z.looseObject({
  reason: z.enum(['interrupt', 'overflow', 'segment']),
  title: z.string(),
  content: z.string().optional(),
});

export const intentPayloadSchema = z.looseObject({
  reason: z.literal('intent'),
  title: z.string(),
  confidence: z.number().min(0).max(1).optional(),
});

/** A boundary payload; its shape depends on `reason`. */
export const boundaryPayloadSchema = z.discriminatedUnion('reason', [
  checkpointPayloadSchema,
  markerPayloadSchema,
  intentPayloadSchema,
]);

export const itemPayloadSchema = z.looseObject({ item: inputItemSchema });

/** Token usage of one model call, recorded as the `turn.usage` meta event. */
export const turnUsageSchema = z.looseObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative().optional(),
  totalTokens: z.number().int().nonnegative().optional(),
});

export const metaPayloadSchema = z.looseObject({
  event: z.string().min(1),
  data: z.unknown().optional(),
  pluginId: z.string().min(1).optional(),
});

const episodeBase = {
  meta: episodeMetaSchema.prefault({}),
  metadata: metadataSchema.optional(),
};

/**
 * Fields a caller gives to `append`; the log assigns `id` and stamps `meta.ts`. Unknown top-level
 * keys are rejected so a typo (`metaData`) is caught instead of silently dropped.
 */
export const newEpisodeSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('item'), payload: itemPayloadSchema, ...episodeBase }),
  z.strictObject({ type: z.literal('boundary'), payload: boundaryPayloadSchema, ...episodeBase }),
  z.strictObject({ type: z.literal('meta'), payload: metaPayloadSchema, ...episodeBase }),
]);

/** A positive integer id, strictly increasing within one log. */
export const episodeIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A stored episode. Unknown top-level keys are kept (forward compatibility). */
export const episodeSchema = z.discriminatedUnion('type', [
  z.looseObject({
    id: episodeIdSchema,
    type: z.literal('item'),
    payload: itemPayloadSchema,
    ...episodeBase,
  }),
  z.looseObject({
    id: episodeIdSchema,
    type: z.literal('boundary'),
    payload: boundaryPayloadSchema,
    ...episodeBase,
  }),
  z.looseObject({
    id: episodeIdSchema,
    type: z.literal('meta'),
    payload: metaPayloadSchema,
    ...episodeBase,
  }),
]);

/**
 * A stored episode as restore reads it: everything but `id` is validated; a missing or
 * out-of-order id is repaired by the log (renumbered to previous + 1).
 */
export const restoredEpisodeSchema = z.discriminatedUnion('type', [
  z.looseObject({
    id: z.unknown(),
    type: z.literal('item'),
    payload: itemPayloadSchema,
    ...episodeBase,
  }),
  z.looseObject({
    id: z.unknown(),
    type: z.literal('boundary'),
    payload: boundaryPayloadSchema,
    ...episodeBase,
  }),
  z.looseObject({
    id: z.unknown(),
    type: z.literal('meta'),
    payload: metaPayloadSchema,
    ...episodeBase,
  }),
]);

export type EpisodeMeta = z.infer<typeof episodeMetaSchema>;
export type CheckpointPayload = z.infer<typeof checkpointPayloadSchema>;
export type BoundaryPayload = z.infer<typeof boundaryPayloadSchema>;
export type MetaPayload = z.infer<typeof metaPayloadSchema>;
export type TurnUsage = z.infer<typeof turnUsageSchema>;

/** What every episode has: its id, its meta and its optional metadata. */
export interface EpisodeCommon {
  readonly id: number;
  readonly meta: Readonly<EpisodeMeta>;
  readonly metadata?: Readonly<Metadata>;
}
/** An `item` episode: one model input item. */
export interface ItemEpisode extends EpisodeCommon {
  readonly type: 'item';
  readonly payload: { readonly item: InputItem };
}
/** A `boundary` episode: a checkpoint, interrupt, overflow, intent or segment marker. */
export interface BoundaryEpisode extends EpisodeCommon {
  readonly type: 'boundary';
  readonly payload: BoundaryPayload;
}
/** A `meta` episode: audit data such as `turn.usage` or `error.parse`, never sent to the model. */
export interface MetaEpisode extends EpisodeCommon {
  readonly type: 'meta';
  readonly payload: MetaPayload;
}
/** One immutable event in a session log. */
export type Episode = ItemEpisode | BoundaryEpisode | MetaEpisode;

/** An episode of one type as `append` accepts it: no `id`, `meta` and `metadata` optional. */
export type NewEpisodeOf<E extends Episode> = Omit<E, 'id' | 'meta' | 'metadata'> & {
  meta?: z.input<typeof episodeMetaSchema>;
  metadata?: z.input<typeof metadataSchema>;
};
/** What `append` accepts: an episode without `id`; `meta.source` defaults to `runtime`. */
export type NewEpisode =
  | NewEpisodeOf<ItemEpisode>
  | NewEpisodeOf<BoundaryEpisode>
  | NewEpisodeOf<MetaEpisode>;

/** Meta for `appendItems`: applied to every item appended. */
export type NewEpisodeMeta = z.input<typeof episodeMetaSchema>;

/** A query for `read()`. With no query at all, `read()` returns the latest 100 episodes. */
export const episodicQuerySchema = z.strictObject({
  /** Exclusive lower bound on `id`; `0` reads from the start. */
  fromId: z.number().nonnegative().optional(),
  /** Keeps the newest N after filtering; `<= 0` or non-finite returns `[]`. */
  limit: z.custom<number>((value) => typeof value === 'number', 'must be a number').optional(),
  /** One type or several. */
  type: z.union([z.enum(EPISODE_TYPES), z.array(z.enum(EPISODE_TYPES))]).optional(),
  /** Only episodes of this turn. */
  turnId: z.string().min(1).optional(),
});
export type EpisodicQuery = z.input<typeof episodicQuerySchema>;
