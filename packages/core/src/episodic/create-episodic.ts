import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import {
  type Episode,
  type EpisodeType,
  type EpisodicQuery,
  episodicQuerySchema,
  type InputItem,
  type NewEpisode,
  type NewEpisodeMeta,
  newEpisodeSchema,
} from '../schema/index.js';
import { assertJson, copyAndFreeze, NOT_JSON } from '../util/json.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { parseInput } from '../validation/parse-input.js';
import { isCommonNewEpisode } from './episode-guard.js';
import { type ReadPlan, readEpisodes } from './read-episodes.js';
import {
  type RestoreResult,
  restoreFromArray,
  restoreFromJsonl,
  restoreFromParsed,
} from './restore.js';
import { Segment, type SegmentView, viewLength } from './segment.js';

/** How many episodes `read()` returns when called without a query. */
export const DEFAULT_READ_LIMIT = 100;

/** How many error messages an `error.parse` meta episode keeps. */
export const PARSE_ERROR_SAMPLE = 5;

const newEpisode = lazyCompiled(newEpisodeSchema);
const episodicQuery = lazyCompiled(episodicQuerySchema.optional());

/** Forks nest views; past this depth a fork flattens them into one segment (rare, O(n)). */
const MAX_VIEW_DEPTH = 16;

export interface EpisodicOptions {
  /**
   * The clock that stamps `meta.ts` on append (and on the `error.parse` episode of a restore).
   * @default () => new Date()
   */
  now?: () => Date;
}

/** The append-only episodic log of one session (seed 000). */
export interface Episodic {
  /** Validates and appends one episode; returns it with its id. Throws `VALIDATION_ERROR` and changes nothing on bad input. */
  append(episode: NewEpisode): Episode;
  /** Appends model input items as `item` episodes sharing `meta`; all or nothing. */
  appendItems(items: readonly InputItem[], meta?: NewEpisodeMeta): Episode[];
  /** Reads episodes in ascending id order. With no query: the latest 100. */
  read(query?: EpisodicQuery): readonly Episode[];
  /** The log as JSONL, one episode per line (empty string for an empty log). */
  toJSONL(): string;
  /** A new log that shares this log's history (O(1)) and appends independently of it. */
  fork(): Episodic;
  /** Number of episodes in the log. */
  readonly size: number;
  /** The id of the newest episode, or 0 for an empty log. */
  readonly lastId: number;
}

const initialSchema = z.union([z.string(), z.array(z.unknown())]).optional();

const optionsSchema = z
  .strictObject({
    now: z
      .custom<() => Date>(
        (value) => typeof value === 'function',
        'must be a function returning a Date',
      )
      .optional(),
  })
  .optional();

/**
 * Creates an episodic log: empty, restored from JSONL, or restored from an episode array.
 * Restoring never throws on bad data: bad lines are skipped and reported by one `error.parse`
 * meta episode appended at the end (`data: { count, errors }`, the first five messages). Ids stay
 * strictly increasing: from JSONL or an array, an id above the previous one is kept and any other
 * becomes previous + 1.
 */
export function createEpisodic(
  initial?: string | readonly unknown[],
  options?: EpisodicOptions,
): Episodic {
  parseInput(
    initialSchema,
    initial,
    'createEpisodic initial value (a JSONL string or an episode array)',
  );
  parseInput(optionsSchema, options, 'createEpisodic options');
  const log = new EpisodicLog([{ segment: new Segment(), length: null }], options?.now);
  if (initial === undefined) return log;
  const restored: RestoreResult =
    typeof initial === 'string' ? restoreFromJsonl(initial) : restoreFromArray(initial);
  log.load(restored);
  return log;
}

/**
 * `createEpisodic` for episodes a store has just parsed from JSON and hands over, owned by nobody
 * else (a stored session's base and deltas): the same rules, without the defensive copy. Internal:
 * a caller's array goes through `createEpisodic`.
 */
export function createEpisodicFromParsed(
  values: readonly unknown[],
  options?: EpisodicOptions,
): Episodic {
  const log = new EpisodicLog([{ segment: new Segment(), length: null }], options?.now);
  log.load(restoreFromParsed(values));
  return log;
}

class EpisodicLog implements Episodic {
  private views: SegmentView[];
  /** The injected clock; undefined means the system clock, read without allocating a Date. */
  private readonly now: (() => Date) | undefined;
  private lastEpisodeId = 0;
  private count = 0;
  private lastStampTime = Number.NaN;
  private lastStamp = '';

  constructor(views: SegmentView[], now: (() => Date) | undefined) {
    this.views = views;
    this.now = now;
    for (const view of views) this.count += viewLength(view);
    this.lastEpisodeId = lastIdOf(views);
  }

  get size(): number {
    return this.count;
  }

  get lastId(): number {
    return this.lastEpisodeId;
  }

  load({ episodes, errors }: RestoreResult): void {
    // Restored episodes are stored as parsed: the segment freezes each on its first read.
    for (const episode of episodes) this.push(episode, false);
    if (errors.length > 0) {
      this.append({
        type: 'meta',
        meta: { source: 'runtime' },
        payload: {
          event: 'error.parse',
          data: { count: errors.length, errors: errors.slice(0, PARSE_ERROR_SAMPLE) },
        },
      });
    }
  }

  append(episode: NewEpisode): Episode {
    const stored = this.prepare(episode, this.lastEpisodeId + 1);
    this.push(stored, true);
    return stored;
  }

  appendItems(items: readonly InputItem[], meta?: NewEpisodeMeta): Episode[] {
    parseInput(z.array(z.unknown()), items, 'appendItems items');
    const prepared = items.map((item, index) =>
      this.prepare(
        { type: 'item', payload: { item }, ...(meta === undefined ? {} : { meta }) },
        this.lastEpisodeId + 1 + index,
        `item ${index}`,
      ),
    );
    for (const episode of prepared) this.push(episode, true);
    return prepared;
  }

  read(query?: EpisodicQuery): readonly Episode[] {
    const plan = toReadPlan(query);
    if (plan === null) return [];
    // Every episode returned is deeply frozen (restored ones on their first read, by the segment).
    return readEpisodes(this.views, plan);
  }

  toJSONL(): string {
    if (this.count === 0) return '';
    const lines: string[] = new Array(this.count);
    let index = 0;
    for (const view of this.views) {
      const length = viewLength(view);
      const { episodes } = view.segment;
      for (let position = 0; position < length; position++)
        lines[index++] = JSON.stringify(episodes[position]);
    }
    return `${lines.join('\n')}\n`;
  }

  fork(): Episodic {
    // The child reads a frozen prefix of every segment; this log keeps appending to its own
    // segment past that prefix, which the child never sees.
    const frozen = this.views
      .map((view) => ({ segment: view.segment, length: viewLength(view) }))
      .filter((view) => view.length > 0);
    const shared = frozen.length >= MAX_VIEW_DEPTH ? [flatten(frozen)] : frozen;
    return new EpisodicLog([...shared, { segment: new Segment(), length: null }], this.now);
  }

  private prepare(input: NewEpisode, id: number, label?: string): Episode {
    // The guard answers the common case without allocating, the compiled validator the rest;
    // the full parse runs only to explain a failure.
    if (!isCommonNewEpisode(input) && !newEpisode().validate(input))
      parseInput(newEpisode(), input, subjectOf(label));
    // The stored episode is built as one frozen copy of the caller's values (no intermediate
    // object copied a second time): meta keeps the caller's key order, as a spread would.
    const given = input.meta as Record<string, unknown> | undefined;
    const meta: Record<string, unknown> = {};
    if (given !== undefined) {
      for (const key in given) {
        const value = given[key];
        if (key === 'source') meta.source = value ?? 'runtime';
        else if (key === 'ts') meta.ts = value ?? this.timestamp();
        else if (value !== undefined) {
          const copy = copyAndFreeze(value, 2);
          if (copy === NOT_JSON) notJson(input, label);
          meta[key] = copy;
        }
      }
    }
    if (meta.source === undefined) meta.source = 'runtime';
    if (meta.ts === undefined) meta.ts = this.timestamp();
    const payload = copyAndFreeze(input.payload, 1);
    if (payload === NOT_JSON) notJson(input, label);
    const episode: Record<string, unknown> = {
      id,
      type: input.type,
      meta: Object.freeze(meta),
      payload,
    };
    if (input.metadata !== undefined) {
      const metadata = copyAndFreeze(input.metadata, 1);
      if (metadata === NOT_JSON) notJson(input, label);
      episode.metadata = metadata;
    }
    return Object.freeze(episode) as unknown as Episode;
  }

  private timestamp(): string {
    let time: number;
    if (this.now === undefined) time = Date.now();
    else {
      const value = this.now();
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `The log's clock returned ${String(value)}, not a valid Date. Pass options.now returning a Date; nothing was changed.`,
          details: { field: 'now' },
        });
      }
      time = value.getTime();
    }
    // toISOString costs more than the rest of an append; appends within one millisecond share it.
    if (time !== this.lastStampTime) {
      this.lastStampTime = time;
      this.lastStamp = new Date(time).toISOString();
    }
    return this.lastStamp;
  }

  private push(episode: Episode, frozen: boolean): void {
    (this.views[this.views.length - 1] as SegmentView).segment.push(episode, frozen);
    this.count++;
    this.lastEpisodeId = episode.id;
  }
}

function subjectOf(label: string | undefined): string {
  return label ? `episode (${label})` : 'episode';
}

/** Throws the `VALIDATION_ERROR` naming the first value of `input` JSON cannot hold. */
function notJson(input: NewEpisode, label: string | undefined): never {
  const subject = subjectOf(label);
  assertJson({ meta: input.meta, payload: input.payload, metadata: input.metadata }, subject);
  throw new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${subject}: it cannot be stored as JSON (nested too deeply or circular). Nothing was changed.`,
    details: { subject },
  });
}

function lastIdOf(views: readonly SegmentView[]): number {
  for (let index = views.length - 1; index >= 0; index--) {
    const view = views[index] as SegmentView;
    const length = viewLength(view);
    if (length > 0) return (view.segment.episodes[length - 1] as Episode).id;
  }
  return 0;
}

function flatten(views: readonly SegmentView[]): SegmentView {
  const segment = new Segment();
  for (const view of views) {
    const length = viewLength(view);
    for (let position = 0; position < length; position++)
      segment.push(view.segment.episodes[position] as Episode, view.segment.isFrozen(position));
  }
  return { segment, length: segment.episodes.length };
}

/** The type set of a single-type query, shared by every read (plans never change it). */
const SINGLE_TYPES: Readonly<Record<EpisodeType, ReadonlySet<EpisodeType>>> = {
  boundary: new Set(['boundary']),
  item: new Set(['item']),
  meta: new Set(['meta']),
};

function toReadPlan(query: EpisodicQuery | undefined): ReadPlan | null {
  // The compiled check accepts a well-formed query as it is (the schema fills in nothing); the
  // full parse runs only to explain a bad one.
  const parsed = episodicQuery().validate(query)
    ? query
    : parseInput(episodicQuery(), query, 'read query');
  if (parsed === undefined || Object.keys(parsed).length === 0) {
    return { fromId: 0, limit: DEFAULT_READ_LIMIT, types: null, turnId: null };
  }
  let limit = Number.POSITIVE_INFINITY;
  if (parsed.limit !== undefined) {
    if (!Number.isFinite(parsed.limit) || parsed.limit < 1) return null;
    limit = Math.floor(parsed.limit);
  }
  let types: ReadonlySet<EpisodeType> | null = null;
  if (parsed.type !== undefined) {
    types = Array.isArray(parsed.type)
      ? new Set(parsed.type)
      : SINGLE_TYPES[parsed.type as EpisodeType];
    if (types.size === 0) return null;
    if (types.size === 3) types = null;
  }
  return { fromId: parsed.fromId ?? 0, limit, types, turnId: parsed.turnId ?? null };
}
