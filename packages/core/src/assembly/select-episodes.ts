import type { Episodic } from '../episodic/create-episodic.js';
import {
  type BoundaryEpisode,
  type BoundaryReason,
  type Episode,
  type EpisodeType,
  turnUsageSchema,
} from '../schema/episode.js';
import type { AssemblyBudget, AssemblyDrop, AssemblyStart } from './manifest.js';
import { neverSentDrop } from './render-boundary.js';

/** Where assembly starts: the beginning, the last boundary of any reason, or the last of one reason. */
export type AssemblyStartAt = 'beginning' | 'last-boundary' | BoundaryReason;

export interface SelectionOptions {
  readonly startAt: AssemblyStartAt;
  readonly turnId: string | undefined;
  /** `maxTokens − reserveOutputTokens`, or null without a budget. */
  readonly limit: number | null;
  readonly mode: 'usage' | 'estimate';
}

/** The episodes assembly renders, after the start rule and the coarse budget rule. */
export interface Selection {
  readonly startId: number | null;
  readonly start: AssemblyStart;
  readonly episodes: readonly Episode[];
  /** Episodes from the start on that the coarse budget rule cut. */
  readonly dropped: AssemblyDrop[];
  /** `call_id` → episode id of the calls the budget cut (their outputs are dropped as `budget` too). */
  readonly cutCalls: ReadonlyMap<string, number>;
  readonly budget: AssemblyBudget | null;
  readonly truncated: boolean;
}

/** The newest episode of `type` matching `accept`, paging back from the end (amortized O(distance)). */
function findLast<T extends Episode>(
  log: Episodic,
  type: EpisodeType,
  accept: (episode: Episode) => episode is T,
): T | null {
  let limit = 16;
  for (;;) {
    const page = log.read({ type, limit });
    for (let index = page.length - 1; index >= 0; index--) {
      const episode = page[index] as Episode;
      if (accept(episode)) return episode;
    }
    if (page.length < limit) return null;
    limit *= 4;
  }
}

function isBoundary(reason?: BoundaryReason) {
  return (episode: Episode): episode is BoundaryEpisode =>
    episode.type === 'boundary' && (reason === undefined || episode.payload.reason === reason);
}

interface KnownUsage {
  readonly episodeId: number;
  readonly inputTokens: number;
}

function usageOf(episode: Episode): number | null {
  if (episode.type !== 'meta' || episode.payload.event !== 'turn.usage') return null;
  const parsed = turnUsageSchema.safeParse(episode.payload.data);
  return parsed.success ? parsed.data.inputTokens : null;
}

/** The last `turn.usage` meta episode with valid input tokens: the last known input size. */
export function lastKnownUsage(log: Episodic): KnownUsage | null {
  const episode = findLast(
    log,
    'meta',
    (candidate): candidate is Episode => usageOf(candidate) !== null,
  );
  return episode === null
    ? null
    : { episodeId: episode.id, inputTokens: usageOf(episode) as number };
}

function findStart(log: Episodic, startAt: AssemblyStartAt): { id: number; start: AssemblyStart } {
  if (startAt !== 'beginning') {
    const boundary = findLast(
      log,
      'boundary',
      isBoundary(startAt === 'last-boundary' ? undefined : startAt),
    );
    if (boundary) return { id: boundary.id, start: 'boundary' };
  }
  return { id: 0, start: 'beginning' };
}

function budgetDrops(episodes: readonly Episode[], detail: string): AssemblyDrop[] {
  return episodes.map(
    (episode) => neverSentDrop(episode) ?? { episodeId: episode.id, reason: 'budget', detail },
  );
}

/** The selection that sends no history: every episode of `range` dropped for the budget. */
function noHistory(range: readonly Episode[], detail: string, budget: AssemblyBudget): Selection {
  return {
    startId: null,
    start: 'budget-none',
    episodes: [],
    dropped: budgetDrops(range, detail),
    cutCalls: cutCallsOf(range),
    budget,
    truncated: range.length > 0,
  };
}

function cutCallsOf(episodes: readonly Episode[]): Map<string, number> {
  const calls = new Map<string, number>();
  for (const episode of episodes) {
    if (episode.type === 'item' && episode.payload.item.type === 'function_call') {
      calls.set(String((episode.payload.item as { call_id: unknown }).call_id), episode.id);
    }
  }
  return calls;
}

/**
 * Applies the start rule, then seed 000's coarse budget rule (usage mode): when the last known
 * input tokens exceed the limit, restart at the last checkpoint or interrupt boundary, else at
 * the current turn's first episode, else send no history. A limit ≤ 0 sends no history in
 * either mode.
 */
export function selectEpisodes(log: Episodic, options: SelectionOptions): Selection {
  const found = findStart(log, options.startAt);
  const range = log.read({ fromId: Math.max(0, found.id - 1) });
  const first = range[0];
  const base = {
    startId: first?.id ?? null,
    start: first === undefined ? ('empty' as const) : found.start,
    episodes: range,
    dropped: [],
    cutCalls: new Map<string, number>(),
    truncated: false,
  };
  if (options.limit === null) return { ...base, budget: null };

  const { limit, mode } = options;
  if (limit <= 0) {
    return noHistory(
      range,
      `no history was sent because the budget (maxTokens − reserveOutputTokens = ${limit}) leaves no room.`,
      { mode, limit, exceeded: true, ...(mode === 'estimate' ? { fits: false } : {}) },
    );
  }
  if (mode === 'estimate') return { ...base, budget: { mode, limit, exceeded: false } };

  const usage = lastKnownUsage(log);
  const measured =
    usage === null ? {} : { lastInputTokens: usage.inputTokens, usageEpisodeId: usage.episodeId };
  if (usage === null || usage.inputTokens <= limit || first === undefined) {
    return { ...base, budget: { mode, limit, exceeded: false, ...measured } };
  }
  const budget = { mode, limit, exceeded: true, ...measured };
  const over = `the last known input tokens (${usage.inputTokens}, episode ${usage.episodeId}) exceeded the budget (${limit})`;

  let restart: { index: number; start: AssemblyStart; detail: string } | null = null;
  for (let index = range.length - 1; index >= 0; index--) {
    const episode = range[index] as Episode;
    if (
      episode.type === 'boundary' &&
      (episode.payload.reason === 'checkpoint' || episode.payload.reason === 'interrupt')
    ) {
      restart = {
        index,
        start: 'budget-boundary',
        detail: `cut by the budget: ${over}, so assembly restarted at the ${episode.payload.reason} boundary (episode ${episode.id}).`,
      };
      break;
    }
  }
  if (restart === null && options.turnId !== undefined) {
    const index = range.findIndex((episode) => episode.meta.turnId === options.turnId);
    if (index >= 0) {
      restart = {
        index,
        start: 'budget-turn',
        detail: `cut by the budget: ${over} and there is no checkpoint or interrupt boundary to restart at, so only the current turn (from episode ${(range[index] as Episode).id}) was sent.`,
      };
    }
  }
  if (restart === null) {
    return noHistory(
      range,
      `cut by the budget: ${over}, and there is neither a checkpoint or interrupt boundary nor a current turn to restart at, so no history was sent.`,
      budget,
    );
  }
  if (restart.index === 0) return { ...base, budget };
  const cut = range.slice(0, restart.index);
  const kept = range.slice(restart.index);
  return {
    startId: (kept[0] as Episode).id,
    start: restart.start,
    episodes: kept,
    dropped: budgetDrops(cut, restart.detail),
    cutCalls: cutCallsOf(cut),
    budget,
    truncated: true,
  };
}
