import * as z from 'zod';
import { episodeIdSchema } from '../schema/episode.js';
import { parseInput } from '../validation/parse-input.js';

/**
 * Where assembly started reading the log:
 * - `beginning`: the first episode of the log;
 * - `boundary`: the last boundary that `startAt` asked for;
 * - `budget-boundary`: over budget, restarted at the last checkpoint or interrupt boundary;
 * - `budget-turn`: over budget with no such boundary, restarted at the current turn's first episode;
 * - `budget-none`: over budget with nothing to restart from (or a budget ≤ 0): no history at all;
 * - `empty`: the log had no episodes.
 */
export type AssemblyStart =
  | 'beginning'
  | 'boundary'
  | 'budget-boundary'
  | 'budget-turn'
  | 'budget-none'
  | 'empty';

/**
 * Why an episode (or a plugin item) was not sent:
 * - `budget`: cut by the token budget (or its call was, so the output would have been an orphan);
 * - `orphan-output`: a tool output whose call was not seen earlier in the input;
 * - `invisible-boundary`: an `intent` or `segment` boundary (audit only, never sent);
 * - `meta`: a `meta` episode (usage, parse errors, audit), never sent;
 * - `dangling-call`: a tool call with no output, dropped because `danglingCalls` is `drop`;
 * - `normalize`: removed by a custom `normalize` step that did not say why.
 */
export type AssemblyDropReason =
  | 'budget'
  | 'orphan-output'
  | 'invisible-boundary'
  | 'meta'
  | 'dangling-call'
  | 'normalize';

/** One episode (or plugin item) that was not sent, and why. */
export interface AssemblyDrop {
  /** The episode that was not sent; absent for a plugin item. */
  readonly episodeId?: number;
  /** The plugin whose item was not sent; absent for an episode. */
  readonly plugin?: string;
  readonly reason: AssemblyDropReason;
  /** A sentence for a person: what was dropped and why. */
  readonly detail: string;
}

/**
 * Something normalization did to an item that was sent:
 * - `truncated-output`: a long string tool output was shortened to its first and last characters;
 * - `synthesized-output`: the item is an output made up for a call that never got one;
 * - `dangling-call-kept`: a call without an output was sent as it is (`danglingCalls: 'keep'`).
 */
export type AssemblyNoteKind = 'truncated-output' | 'synthesized-output' | 'dangling-call-kept';

/** A note on a sent item. */
export interface AssemblyNote {
  readonly kind: AssemblyNoteKind;
  /** A sentence for a person, e.g. how many characters were omitted. */
  readonly detail: string;
}

/** Where one sent item came from. `items[i]` of the manifest describes `items[i]` of the input. */
export interface AssemblyManifestItem {
  /** The episode the item was rendered from (for a synthesized output: the call's episode). */
  readonly episodeId?: number;
  /** The plugin that returned the item, for temporary plugin input. */
  readonly plugin?: string;
  /** True when normalization made the item up (a synthesized output); it is not in the log. */
  readonly synthetic?: boolean;
  /** What normalization did to the item, if anything. */
  readonly note?: AssemblyNote;
  /** The item's estimated tokens, by the token counter in use. */
  readonly tokens: number;
}

/** What the budget rule saw and did. */
export interface AssemblyBudget {
  /** `usage`: seed 000's coarse rule on the last `turn.usage`; `estimate`: the assembled items counted. */
  readonly mode: 'usage' | 'estimate';
  /** `maxTokens − reserveOutputTokens`. */
  readonly limit: number;
  /** Usage mode: the input tokens of the last `turn.usage` episode, when there is one. */
  readonly lastInputTokens?: number;
  /** Usage mode: the id of that `turn.usage` episode. */
  readonly usageEpisodeId?: number;
  /** True when the budget was exceeded and history was cut. */
  readonly exceeded: boolean;
  /** Estimate mode: true when what remains fits the limit (pinned items alone may not). */
  readonly fits?: boolean;
}

/**
 * The record of one assembly: what was sent, what was not and why. Use `explainEpisode` to answer
 * "why did the model not see episode X?".
 */
export interface AssemblyManifest {
  /** The first episode assembly considered (inclusive), or null when no history was used. */
  readonly startId: number | null;
  /** Why assembly started at `startId`. */
  readonly start: AssemblyStart;
  /** The newest episode id of the log when it was assembled (0 for an empty log). */
  readonly lastId: number;
  /** One entry per item sent, in the same order as the items. */
  readonly items: readonly AssemblyManifestItem[];
  /** Every episode from the start on that was not sent, and every dropped plugin item, with reasons. */
  readonly dropped: readonly AssemblyDrop[];
  /** True when the budget cut history that would otherwise have been sent. */
  readonly truncated: boolean;
  /** The budget rule's view, or null when no `maxTokens` was given. */
  readonly budget: AssemblyBudget | null;
  /** The number of items sent. */
  readonly itemCount: number;
  /** The estimated tokens of the items sent (the sum of `items[i].tokens`). */
  readonly estimatedTokens: number;
}

const START_DESCRIPTIONS: Record<AssemblyStart, string> = {
  beginning: 'the beginning of the log',
  boundary: 'the last boundary of the kind startAt names (by default the last checkpoint)',
  'budget-boundary':
    'the last checkpoint or interrupt boundary, because the last known input tokens exceeded the budget',
  'budget-turn':
    "the current turn's first episode, because the last known input tokens exceeded the budget and no checkpoint or interrupt boundary was available",
  'budget-none': 'nothing: the budget left no room for history',
  empty: 'nothing: the log was empty',
};

const manifestSchema = z.custom<AssemblyManifest>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as AssemblyManifest).items) &&
    Array.isArray((value as AssemblyManifest).dropped),
  'must be the manifest returned by assemble()',
);

/**
 * Explains, in one sentence, what happened to an episode in an assembly: sent (and how it was
 * changed), dropped (and why), before the start, or not yet in the log.
 */
export function explainEpisode(manifest: AssemblyManifest, episodeId: number): string {
  parseInput(manifestSchema, manifest, 'explainEpisode manifest');
  parseInput(episodeIdSchema, episodeId, 'explainEpisode episode id');
  const sent = manifest.items.findIndex((item) => item.episodeId === episodeId && !item.synthetic);
  if (sent >= 0) {
    const note = manifest.items[sent]?.note;
    return `Episode ${episodeId} was sent as item ${sent}${note ? ` (${note.detail})` : ''}.`;
  }
  const drop = manifest.dropped.find((entry) => entry.episodeId === episodeId);
  if (drop) return `Episode ${episodeId} was not sent (${drop.reason}): ${drop.detail}`;
  if (episodeId > manifest.lastId) {
    return `Episode ${episodeId} was not in the log yet: the log ended at episode ${manifest.lastId} when this input was assembled.`;
  }
  if (manifest.startId === null || episodeId < manifest.startId) {
    return `Episode ${episodeId} comes before the start of this input, which was ${START_DESCRIPTIONS[manifest.start]}${manifest.startId === null ? '' : ` (episode ${manifest.startId})`}.`;
  }
  return `Episode ${episodeId} does not exist in the assembled range of the log.`;
}
