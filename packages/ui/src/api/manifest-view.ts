import { type AssemblyManifest, type Episode, explainEpisode } from '@episodic/core';
import type { ManifestDrop, ManifestView } from './api-types.js';

type Json = Record<string, unknown>;

const START_MEANINGS: Record<string, string> = {
  beginning: 'from the first episode of the log',
  boundary: 'from the last boundary the assembly asked for (by default the last checkpoint)',
  'budget-boundary':
    'from the last checkpoint or interrupt, because the last input was over the token budget',
  'budget-turn':
    "from the current turn's first episode, because the last input was over the token budget",
  'budget-none': 'with no history: the budget left no room',
  empty: 'with no history: the log was empty',
};

const number = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** True when `value` is core's full `AssemblyManifest` (it lists every item and drop). */
function isFullManifest(value: unknown): value is AssemblyManifest {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as AssemblyManifest).items) &&
    Array.isArray((value as AssemblyManifest).dropped)
  );
}

/**
 * What a model input's recorded manifest says (`llm.request` `meta.manifest`), in one shape for
 * both forms a recorder may keep: core's full `AssemblyManifest`, or a compact summary with drops
 * counted by reason (the demo's form: `start_id`, `dropped.by_reason`, `dropped.budget_ids`, `notes`).
 */
export function manifestView(value: unknown): ManifestView {
  if (isFullManifest(value)) {
    const dropped = new Map<string, ManifestDrop>();
    for (const drop of value.dropped) {
      const entry = dropped.get(drop.reason) ?? { reason: drop.reason, count: 0, episode_ids: [] };
      entry.count++;
      if (drop.episodeId !== undefined) entry.episode_ids.push(drop.episodeId);
      dropped.set(drop.reason, entry);
    }
    return {
      form: 'full',
      start_id: value.startId,
      start: value.start,
      start_description: START_MEANINGS[value.start] ?? null,
      item_count: value.itemCount,
      estimated_tokens: value.estimatedTokens,
      budget:
        value.budget === null
          ? null
          : {
              limit: value.budget.limit,
              last_input_tokens: value.budget.lastInputTokens ?? null,
              exceeded: value.budget.exceeded,
            },
      dropped: [...dropped.values()],
      notes: value.items.flatMap((item) =>
        item.note === undefined
          ? []
          : [
              {
                episode_id: item.episodeId ?? null,
                kind: item.note.kind,
                detail: item.note.detail,
              },
            ],
      ),
    };
  }
  if (typeof value !== 'object' || value === null) {
    return {
      form: 'none',
      start_id: null,
      start: null,
      start_description: null,
      item_count: null,
      estimated_tokens: null,
      budget: null,
      dropped: [],
      notes: [],
    };
  }
  const summary = value as Json;
  const start = typeof summary.start === 'string' ? summary.start : null;
  const budget = summary.budget as Json | null | undefined;
  const droppedSummary = (summary.dropped ?? {}) as Json;
  const byReason = (droppedSummary.by_reason ?? {}) as Record<string, unknown>;
  const budgetIds = Array.isArray(droppedSummary.budget_ids)
    ? (droppedSummary.budget_ids as unknown[]).filter((id): id is number => typeof id === 'number')
    : [];
  return {
    form: 'summary',
    start_id: number(summary.start_id),
    start,
    start_description: start === null ? null : (START_MEANINGS[start] ?? null),
    item_count: number(summary.item_count),
    estimated_tokens: number(summary.estimated_tokens),
    budget:
      budget === null || budget === undefined || typeof budget.limit !== 'number'
        ? null
        : {
            limit: budget.limit,
            last_input_tokens: number(budget.last_input_tokens),
            exceeded: budget.exceeded === true,
          },
    dropped: Object.entries(byReason).map(([reason, count]) => ({
      reason,
      count: typeof count === 'number' ? count : 0,
      episode_ids: reason === 'budget' ? budgetIds : [],
    })),
    notes: (Array.isArray(summary.notes) ? (summary.notes as Json[]) : []).map((note) => ({
      episode_id: number(note.episode_id),
      kind: String(note.kind ?? 'note'),
      detail: String(note.detail ?? ''),
    })),
  };
}

/**
 * Answers "why did the model not see episode N?" for one model input. With core's full manifest
 * this is core's `explainEpisode`; with a summary it is read from the start, the budget drops and
 * the notes, and from the episode itself when the session still has it (`meta` episodes and
 * `intent`/`segment` boundaries are never sent; an episode newer than the input was not there yet).
 */
export function explainInInput(
  recorded: unknown,
  view: ManifestView,
  episodeId: number,
  episode: Episode | undefined,
  inputTs: string | null,
): string {
  if (isFullManifest(recorded)) return explainEpisode(recorded, episodeId);
  if (view.form === 'none') {
    return `This model input has no recorded manifest, so it cannot say what happened to episode ${episodeId}. Record the assembly manifest in the llm.request meta (meta.manifest) to answer this.`;
  }
  const note = view.notes.find((entry) => entry.episode_id === episodeId);
  if (note !== undefined)
    return `Episode ${episodeId} was sent, changed on the way (${note.kind}): ${note.detail}.`;
  if (
    view.dropped.some((drop) => drop.reason === 'budget' && drop.episode_ids.includes(episodeId))
  ) {
    return `Episode ${episodeId} was not sent (budget): the token budget cut it; this input started ${view.start_description ?? `at episode ${view.start_id}`}${view.start_id === null ? '' : ` (episode ${view.start_id})`}.`;
  }
  const episodeTs = episode?.meta.ts;
  if (episodeTs !== undefined && inputTs !== null && Date.parse(episodeTs) > Date.parse(inputTs)) {
    return `Episode ${episodeId} was not in the log yet: it was written at ${episodeTs}, after this input (${inputTs}).`;
  }
  if (view.start_id === null || episodeId < view.start_id) {
    return `Episode ${episodeId} comes before the start of this input, which started ${view.start_description ?? 'later in the log'}${view.start_id === null ? '' : ` (episode ${view.start_id})`}.`;
  }
  if (episode?.type === 'meta') {
    return `Episode ${episodeId} was not sent (meta): meta episodes (usage, parse errors, audit) are never sent to a model.`;
  }
  const reason = (episode?.payload as { reason?: unknown } | undefined)?.reason;
  if (episode?.type === 'boundary' && (reason === 'intent' || reason === 'segment')) {
    return `Episode ${episodeId} was not sent (invisible boundary): ${String(reason)} boundaries are kept for audit and never sent.`;
  }
  return `Episode ${episodeId} was sent: it is at or after the start of this input (episode ${view.start_id}) and not among the episodes this input dropped.`;
}
