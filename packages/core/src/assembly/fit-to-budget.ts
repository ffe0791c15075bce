import type { AssemblyDrop } from './manifest.js';
import type { SourcedItem } from './normalize-items.js';

export interface FitOptions {
  readonly limit: number;
  /** Items of this turn are never dropped. */
  readonly turnId: string | undefined;
  /** The rendered start boundary (e.g. the checkpoint summary) is never dropped. */
  readonly pinnedEpisodeId: number | null;
}

export interface FitResult {
  readonly items: SourcedItem[];
  readonly tokens: number[];
  readonly dropped: AssemblyDrop[];
  readonly exceeded: boolean;
  readonly fits: boolean;
}

interface Unit {
  readonly start: number;
  end: number;
  pinned: boolean;
  tokens: number;
}

function callIdOf(entry: SourcedItem): string {
  return String((entry.item as { call_id?: unknown }).call_id);
}

/**
 * Estimate mode: drops the oldest whole turns until the assembled items fit `limit`. A turn is a
 * run of items with the same `turnId` (an item without one is its own unit); units joined by a
 * call and its output are dropped together, so a call is never separated from its output. Plugin
 * items, the current turn and the start boundary are pinned: they are kept even if they alone
 * do not fit (`fits: false`).
 */
export function fitToBudget(
  items: readonly SourcedItem[],
  tokens: readonly number[],
  options: FitOptions,
): FitResult {
  let total = 0;
  for (const count of tokens) total += count;
  if (total <= options.limit) {
    return { items: [...items], tokens: [...tokens], dropped: [], exceeded: false, fits: true };
  }

  const units: Unit[] = [];
  const unitOf: number[] = [];
  let previousKey: string | null = null;
  items.forEach((entry, index) => {
    const pinned =
      entry.plugin !== undefined ||
      (options.turnId !== undefined && entry.turnId === options.turnId) ||
      (entry.episodeId !== undefined && entry.episodeId === options.pinnedEpisodeId);
    const key = pinned
      ? null
      : entry.turnId !== undefined
        ? `turn:${entry.turnId}`
        : `episode:${entry.episodeId}`;
    const last = units[units.length - 1];
    if (key !== null && key === previousKey && last) {
      last.end = index;
      last.tokens += tokens[index] as number;
    } else {
      units.push({ start: index, end: index, pinned, tokens: tokens[index] as number });
    }
    unitOf.push(units.length - 1);
    previousKey = key;
  });

  // linkedToNext[u]: unit u and unit u + 1 must go together (a call in one, its output later).
  // An output is linked back to the FIRST call with its call_id: when a call_id repeats (a model
  // that reuses ids, a retried call), normalization paired by call_id, so every call sharing it
  // must stay or go with the output, or a kept earlier call would be sent without one.
  const linkedToNext = new Array<boolean>(units.length).fill(false);
  const callUnit = new Map<string, number>();
  items.forEach((entry, index) => {
    if (entry.item.type === 'function_call') {
      const callId = callIdOf(entry);
      if (!callUnit.has(callId)) callUnit.set(callId, unitOf[index] as number);
    } else if (entry.item.type === 'function_call_output') {
      const from = callUnit.get(callIdOf(entry));
      for (let unit = from ?? Number.POSITIVE_INFINITY; unit < (unitOf[index] as number); unit++)
        linkedToNext[unit] = true;
    }
  });

  const groups: Array<{ units: number[]; pinned: boolean; tokens: number }> = [];
  units.forEach((unit, index) => {
    const group = index > 0 && linkedToNext[index - 1] ? groups[groups.length - 1] : undefined;
    if (group) {
      group.units.push(index);
      group.pinned ||= unit.pinned;
      group.tokens += unit.tokens;
    } else groups.push({ units: [index], pinned: unit.pinned, tokens: unit.tokens });
  });

  const droppedUnits = new Set<number>();
  for (const group of groups) {
    if (total <= options.limit) break;
    if (group.pinned) continue;
    for (const unit of group.units) droppedUnits.add(unit);
    total -= group.tokens;
  }

  const before = tokens.reduce((sum, count) => sum + count, 0);
  const detail = `dropped by the token estimate: the input came to ${before} tokens, over the budget of ${options.limit}, and the oldest turns go first (a call and its output always together).`;
  const kept: SourcedItem[] = [];
  const keptTokens: number[] = [];
  const dropped: AssemblyDrop[] = [];
  items.forEach((entry, index) => {
    if (!droppedUnits.has(unitOf[index] as number)) {
      kept.push(entry);
      keptTokens.push(tokens[index] as number);
    } else if (entry.episodeId !== undefined && !entry.synthetic) {
      dropped.push({ episodeId: entry.episodeId, reason: 'budget', detail });
    }
  });
  return {
    items: kept,
    tokens: keptTokens,
    dropped,
    exceeded: true,
    fits: total <= options.limit,
  };
}
