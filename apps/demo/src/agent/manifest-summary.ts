import type { AssemblyManifest } from '@episodic/core';

/**
 * What one model input held and why, in a compact form that is stored with the `llm.request`
 * record (its `meta.manifest`) so the run file itself answers "why did the model not see X?".
 */
export interface ManifestSummary {
  /** The first episode sent (null when no history was sent). */
  readonly start_id: number | null;
  /** Why assembly started there: `beginning`, `boundary`, `budget-boundary`, `budget-turn`, … */
  readonly start: string;
  readonly item_count: number;
  readonly estimated_tokens: number;
  /** The budget rule's view: the limit, the last known input tokens, whether it was exceeded. */
  readonly budget: {
    readonly limit: number;
    readonly last_input_tokens: number | null;
    readonly exceeded: boolean;
  } | null;
  /** Episodes from the start on that were not sent, counted by reason, with their ids. */
  readonly dropped: {
    readonly total: number;
    readonly by_reason: Readonly<Record<string, number>>;
    readonly budget_ids: readonly number[];
  };
  /** What normalization did to sent items: truncated outputs, synthesized outputs for dangling calls. */
  readonly notes: ReadonlyArray<{
    readonly episode_id: number | null;
    readonly kind: string;
    readonly detail: string;
  }>;
}

/** Summarizes an assembly manifest (see `assemble` in `@episodic/core`). */
export function summarizeManifest(manifest: AssemblyManifest): ManifestSummary {
  const byReason: Record<string, number> = {};
  const budgetIds: number[] = [];
  for (const drop of manifest.dropped) {
    byReason[drop.reason] = (byReason[drop.reason] ?? 0) + 1;
    if (drop.reason === 'budget' && drop.episodeId !== undefined) budgetIds.push(drop.episodeId);
  }
  return {
    start_id: manifest.startId,
    start: manifest.start,
    item_count: manifest.itemCount,
    estimated_tokens: manifest.estimatedTokens,
    budget:
      manifest.budget === null
        ? null
        : {
            limit: manifest.budget.limit,
            last_input_tokens: manifest.budget.lastInputTokens ?? null,
            exceeded: manifest.budget.exceeded,
          },
    dropped: { total: manifest.dropped.length, by_reason: byReason, budget_ids: budgetIds },
    notes: manifest.items
      .filter((item) => item.note !== undefined)
      .map((item) => ({
        episode_id: item.episodeId ?? null,
        kind: item.note?.kind ?? 'note',
        detail: item.note?.detail ?? '',
      })),
  };
}
