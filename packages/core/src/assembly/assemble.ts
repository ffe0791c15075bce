import * as z from 'zod';
import type { Episodic } from '../episodic/create-episodic.js';
import { EpisodicError } from '../errors/episodic-error.js';
import { BOUNDARY_REASONS, type Episode } from '../schema/episode.js';
import type { InputItem } from '../schema/input-item.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { estimateTokens, type TokenCounter } from './estimate-tokens.js';
import { fitToBudget } from './fit-to-budget.js';
import type {
  AssemblyBudget,
  AssemblyDrop,
  AssemblyManifest,
  AssemblyManifestItem,
} from './manifest.js';
import {
  type DanglingCallPolicy,
  type Normalizer,
  normalizeTrusted,
  type SourcedItem,
} from './normalize-items.js';
import { type AssemblyPlugin, pluginsSchema, runPlugins } from './plugin.js';
import { neverSentDrop, renderBoundary } from './render-boundary.js';
import { type AssemblyStartAt, selectEpisodes } from './select-episodes.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from './truncate-tool-output.js';

export interface AssembleOptions {
  /**
   * Where to start, inclusive: `'beginning'`, `'last-boundary'` (of any reason) or a boundary
   * reason (`'checkpoint'`, `'interrupt'`, …) for the last boundary of that reason. Without such a
   * boundary, assembly starts at the beginning. The default makes a compaction checkpoint replace
   * everything before it.
   * @default 'checkpoint'
   */
  startAt?: AssemblyStartAt;
  /**
   * The current turn. The coarse budget rule falls back to it; the estimator never drops it;
   * plugins receive it.
   */
  turnId?: string;
  /** The model's context window in tokens. Without it no budget is applied. */
  maxTokens?: number;
  /**
   * Tokens kept free for the model's answer: the budget is `maxTokens − reserveOutputTokens`.
   * @default 0
   */
  reserveOutputTokens?: number;
  /**
   * `usage`: seed 000's coarse rule on the last `turn.usage` input tokens (restart at the last
   * checkpoint or interrupt, else the current turn, else no history). `estimate`: count the
   * assembled items with `countTokens` and drop the oldest whole turns until they fit.
   * @default 'usage'
   */
  budgetMode?: 'usage' | 'estimate';
  /**
   * Counts one item's tokens: drives estimate mode and the manifest's `estimatedTokens`.
   * @default estimateTokens (JSON length / 4)
   */
  countTokens?: TokenCounter;
  /**
   * How to heal a call without an output: synthesize an "interrupted" output, keep it, or drop it.
   * @default 'synthesize'
   */
  danglingCalls?: DanglingCallPolicy;
  /**
   * String tool outputs longer than this are sent as their first and last halves.
   * @default 8000
   */
  maxToolOutputChars?: number;
  /**
   * Replaces the normalize step (orphans, truncation, dangling calls). Wrap `normalizeItems` to
   * keep the default rules.
   * @default normalizeItems
   */
  normalize?: Normalizer;
  /** Plugins whose `extendInput` adds temporary items after the history, in order. */
  plugins?: readonly AssemblyPlugin[];
  /**
   * Passed to plugins as `context`.
   * @default {}
   */
  context?: Record<string, unknown>;
  /** Passed to plugins; assembly stops with `ABORTED` once it fires. */
  signal?: AbortSignal;
}

/** The model input and the manifest that explains it. */
export interface AssembledInput {
  /** The items to send, in order. Items from the log are frozen. */
  readonly items: InputItem[];
  readonly manifest: AssemblyManifest;
}

const functionSchema = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', `must be a function (${what})`);

const tokenCountSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** The options every assembly shares; sessions accept the same set without the per-call fields. */
export const assemblyOptionsShape = {
  startAt: z.enum(['beginning', 'last-boundary', ...BOUNDARY_REASONS]).optional(),
  maxTokens: tokenCountSchema.optional(),
  reserveOutputTokens: tokenCountSchema.optional(),
  budgetMode: z.enum(['usage', 'estimate']).optional(),
  countTokens: functionSchema<TokenCounter>('item → tokens').optional(),
  danglingCalls: z.enum(['synthesize', 'keep', 'drop']).optional(),
  maxToolOutputChars: z.number().int().min(2).max(Number.MAX_SAFE_INTEGER).optional(),
  normalize: functionSchema<Normalizer>('(items, options) → { items, dropped }').optional(),
};

/** Rejects budget fields that only make sense with `maxTokens`. */
export function refineBudget(
  options: { maxTokens?: unknown; reserveOutputTokens?: unknown; budgetMode?: unknown },
  context: z.RefinementCtx,
): void {
  if (options.maxTokens !== undefined) return;
  for (const field of ['reserveOutputTokens', 'budgetMode'] as const) {
    if (options[field] !== undefined) {
      context.addIssue({
        code: 'custom',
        path: [field],
        message: 'needs maxTokens: set maxTokens (the context window) or remove it',
      });
    }
  }
}

const assembleOptionsSchema = z
  .strictObject({
    ...assemblyOptionsShape,
    turnId: z.string().min(1).optional(),
    plugins: pluginsSchema.optional(),
    context: z.record(z.string(), z.unknown()).optional(),
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal')
      .optional(),
  })
  .superRefine(refineBudget)
  .optional();

const logSchema = z.custom<Episodic>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Episodic).read === 'function' &&
    typeof (value as Episodic).lastId === 'number',
  'must be an episodic log (from createEpisodic or fork())',
);

const normalizeResultSchema = z.looseObject({
  items: z.array(
    z.custom<SourcedItem>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as SourcedItem).item === 'object' &&
        typeof (value as SourcedItem).item?.type === 'string',
      'must be { item, episodeId?, plugin? } with an input item',
    ),
  ),
  dropped: z.array(z.looseObject({ reason: z.string(), detail: z.string() })),
});

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new EpisodicError({
      code: 'ABORTED',
      message:
        'Assembly was aborted before it finished; nothing was sent and the log is unchanged.',
      details: {},
      cause: signal.reason,
    });
  }
}

function render(episodes: readonly Episode[]): { items: SourcedItem[]; dropped: AssemblyDrop[] } {
  const items: SourcedItem[] = [];
  const dropped: AssemblyDrop[] = [];
  for (const episode of episodes) {
    const turn = episode.meta.turnId === undefined ? {} : { turnId: episode.meta.turnId };
    if (episode.type === 'item') {
      items.push({ item: episode.payload.item, episodeId: episode.id, ...turn });
      continue;
    }
    const rendered = episode.type === 'boundary' ? renderBoundary(episode.payload) : null;
    if (rendered) items.push({ item: rendered, episodeId: episode.id, ...turn });
    else dropped.push(neverSentDrop(episode) as AssemblyDrop);
  }
  return { items, dropped };
}

function countWith(counter: TokenCounter, items: readonly SourcedItem[]): number[] {
  return items.map((entry, index) => {
    const count = counter(entry.item);
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
      throw invalidField(
        'assemble options',
        'countTokens',
        count,
        `returned an invalid count for item ${index}: it must return a finite number ≥ 0`,
      );
    }
    return count;
  });
}

/**
 * Assembles the next model input from a log: picks the start, applies the budget, renders
 * visible boundaries as user messages, adds plugin input, normalizes, and explains every choice
 * in a manifest. The log itself is never changed (a plugin may append to it explicitly).
 */
export async function assemble(log: Episodic, options?: AssembleOptions): Promise<AssembledInput> {
  parseInput(logSchema, log, 'assemble log');
  const settings = parseInput(assembleOptionsSchema, options, 'assemble options') ?? {};
  aborted(settings.signal);
  const limit =
    settings.maxTokens === undefined
      ? null
      : settings.maxTokens - (settings.reserveOutputTokens ?? 0);
  const mode = settings.budgetMode ?? 'usage';
  const lastId = log.lastId;
  const selection = selectEpisodes(log, {
    startAt: settings.startAt ?? 'checkpoint',
    turnId: settings.turnId,
    limit,
    mode,
  });

  const rendered = render(selection.episodes);
  const sourced = rendered.items;
  const plugins = settings.plugins ?? [];
  if (plugins.length > 0) {
    const signal = settings.signal ?? new AbortController().signal;
    const added = await runPlugins(plugins, {
      episodic: log,
      ...(settings.turnId === undefined ? {} : { turnId: settings.turnId }),
      context: Object.freeze({ ...(settings.context ?? {}) }),
      signal,
    });
    aborted(settings.signal);
    for (const { plugin, items } of added) {
      for (const item of items) sourced.push({ item, plugin });
    }
  }

  const normalizeOptions = {
    danglingCalls: settings.danglingCalls ?? 'synthesize',
    maxToolOutputChars: settings.maxToolOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  } as const;
  const custom = settings.normalize;
  const normalized =
    custom === undefined
      ? normalizeTrusted(sourced, normalizeOptions)
      : (parseInput(
          normalizeResultSchema,
          custom(sourced, normalizeOptions),
          'result of the normalize option',
        ) as { items: SourcedItem[]; dropped: AssemblyDrop[] });

  const normalizeDrops = explainNormalizeDrops(
    sourced,
    normalized,
    selection.cutCalls,
    custom !== undefined,
  );
  const counter = settings.countTokens ?? estimateTokens;
  let items = normalized.items;
  let tokens = countWith(counter, items);
  let budget: AssemblyBudget | null = selection.budget;
  let truncated = selection.truncated;
  const fitDrops: AssemblyDrop[] = [];
  if (mode === 'estimate' && limit !== null && limit > 0) {
    const startEpisode = selection.episodes[0];
    const fitted = fitToBudget(items, tokens, {
      limit,
      turnId: settings.turnId,
      pinnedEpisodeId:
        selection.start === 'boundary' && startEpisode?.type === 'boundary'
          ? startEpisode.id
          : null,
    });
    items = fitted.items;
    tokens = fitted.tokens;
    fitDrops.push(...fitted.dropped);
    truncated = fitted.dropped.length > 0;
    budget = { mode, limit, exceeded: fitted.exceeded, fits: fitted.fits };
  }

  const manifestItems = items.map((entry, index) => {
    const described: { -readonly [Key in keyof AssemblyManifestItem]: AssemblyManifestItem[Key] } =
      { tokens: tokens[index] as number };
    if (entry.episodeId !== undefined) described.episodeId = entry.episodeId;
    if (entry.plugin !== undefined) described.plugin = entry.plugin;
    if (entry.synthetic) described.synthetic = true;
    if (entry.note !== undefined) described.note = entry.note;
    return described as AssemblyManifestItem;
  });
  const dropped = [...selection.dropped, ...rendered.dropped, ...normalizeDrops, ...fitDrops].sort(
    (left, right) =>
      (left.episodeId ?? Number.MAX_SAFE_INTEGER) - (right.episodeId ?? Number.MAX_SAFE_INTEGER),
  );
  const manifest: AssemblyManifest = {
    startId: selection.startId,
    start: selection.start,
    lastId,
    items: manifestItems,
    dropped,
    truncated,
    budget,
    itemCount: items.length,
    estimatedTokens: tokens.reduce((sum, count) => sum + count, 0),
  };
  return { items: items.map((entry) => entry.item), manifest };
}

/**
 * The normalize step's drops, with two refinements: an output whose call the budget cut is
 * reported as a `budget` drop (the root cause), and an episode a custom normalizer removed
 * without saying why is reported as `normalize`.
 */
function explainNormalizeDrops(
  before: readonly SourcedItem[],
  after: { items: readonly SourcedItem[]; dropped: readonly AssemblyDrop[] },
  cutCalls: ReadonlyMap<string, number>,
  customNormalizer: boolean,
): AssemblyDrop[] {
  let itemOf: Map<number, SourcedItem> | null = null;
  const drops = after.dropped.map((drop): AssemblyDrop => {
    if (drop.reason !== 'orphan-output' || drop.episodeId === undefined || cutCalls.size === 0)
      return drop;
    if (itemOf === null) {
      itemOf = new Map();
      for (const candidate of before) {
        if (candidate.episodeId !== undefined) itemOf.set(candidate.episodeId, candidate);
      }
    }
    const entry = itemOf.get(drop.episodeId);
    const callId = String((entry?.item as { call_id?: unknown } | undefined)?.call_id);
    const callEpisode = cutCalls.get(callId);
    if (callEpisode === undefined) return drop;
    return {
      episodeId: drop.episodeId,
      reason: 'budget',
      detail: `its call (episode ${callEpisode}, call_id ${JSON.stringify(callId)}) was cut by the budget, so this output was left out with it to keep the pair whole.`,
    };
  });
  // The default step reports every removal itself; only a custom one can drop silently.
  if (!customNormalizer) return drops;
  const accounted = new Set<number>();
  for (const entry of after.items)
    if (entry.episodeId !== undefined) accounted.add(entry.episodeId);
  for (const drop of drops) if (drop.episodeId !== undefined) accounted.add(drop.episodeId);
  for (const entry of before) {
    const { episodeId } = entry;
    if (episodeId !== undefined && !entry.synthetic && !accounted.has(episodeId)) {
      accounted.add(episodeId);
      drops.push({
        episodeId,
        reason: 'normalize',
        detail: 'removed by the custom normalize step, which gave no reason.',
      });
    }
  }
  return drops;
}
