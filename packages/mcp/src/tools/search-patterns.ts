import type { Artifact } from '@episodic/core';
import { searchTextOfArtifactContent, searchTexts } from '@episodic/core/adapter';
import { parseEpisodeRef } from '@episodic/core/schemas';
import type { z } from 'zod';
import { checkScopeArgument } from '../scope/bound-scope.js';
import type { searchPatternsInputSchema } from './history-schemas.js';
import type { ToolContext } from './tool-context.js';

/** The most patterns one search reads; a larger scope is searched in its first N keys. */
const MAX_SCANNED = 10_000;
/** Patterns read per store call. */
const PAGE = 500;
/** The most source episode ids shown per pattern. */
const MAX_EPISODE_IDS = 10;

type SearchArguments = z.output<typeof searchPatternsInputSchema>;

/** The context features a search asks for, in the form context patterns record them (lowercase). */
function requestedFeatures(args: SearchArguments): string[] {
  const features: string[] = [];
  if (args.task_type !== undefined) features.push(`task_type:${args.task_type}`);
  if (args.domain !== undefined) features.push(`domain:${args.domain}`);
  if (args.language !== undefined) features.push(`language:${args.language}`);
  if (args.framework !== undefined) features.push(`framework:${args.framework}`);
  for (const tag of args.tags ?? []) features.push(`tag:${tag}`);
  return features.map((feature) => feature.trim().toLowerCase());
}

async function scanPatterns(
  context: ToolContext,
  query: { filter?: SearchArguments['metadata']; withPolicy: boolean },
): Promise<{ patterns: Artifact[]; complete: boolean }> {
  const patterns: Artifact[] = [];
  let afterKey: string | undefined;
  for (;;) {
    const page = await context.artifacts.list({
      kind: 'pattern',
      limit: PAGE,
      ...(query.filter === undefined ? {} : { filter: query.filter }),
      ...(query.withPolicy && context.policy !== undefined ? { policy: context.policy } : {}),
      ...(afterKey === undefined ? {} : { afterKey }),
    });
    patterns.push(...page.artifacts);
    if (page.nextKey === null) return { patterns, complete: true };
    if (patterns.length >= MAX_SCANNED) return { patterns, complete: false };
    afterKey = page.nextKey;
  }
}

/**
 * `search_patterns`: the patterns of this scope that fit a task context. A pattern fits when one
 * of the task episodes it was learned from had every requested context feature; a task's context
 * is known from the `context` pattern the learning cycle stored for it (tasks that completed with
 * at least one successful step). The metadata filter is evaluated per source episode (seed 003).
 * Results are ranked by support (how many task episodes a pattern was learned from), then by
 * recency; with `query`, only patterns whose text holds every word are kept, best match first.
 */
export async function searchPatterns(args: SearchArguments, context: ToolContext) {
  checkScopeArgument(args.scope, context.scope, 'search_patterns');
  const wanted = requestedFeatures(args);
  const candidates = await scanPatterns(context, { filter: args.metadata, withPolicy: true });

  let matchesContext: (artifact: Artifact) => boolean = () => true;
  let complete = candidates.complete;
  if (wanted.length > 0) {
    // The context index covers every task of the scope, whatever the filter and policy select.
    const all =
      args.metadata === undefined && context.policy === undefined
        ? candidates
        : await scanPatterns(context, { withPolicy: false });
    complete &&= all.complete;
    const featuresOfEpisode = new Map<string, Set<string>>();
    for (const pattern of all.patterns) {
      const content = pattern.content as { type?: unknown; context_features?: unknown };
      if (content?.type !== 'context' || !Array.isArray(content.context_features)) continue;
      const features = content.context_features
        .filter((feature): feature is string => typeof feature === 'string')
        .map((feature) => feature.toLowerCase());
      for (const episode of pattern.episodes) {
        const known = featuresOfEpisode.get(episode) ?? new Set<string>();
        for (const feature of features) known.add(feature);
        featuresOfEpisode.set(episode, known);
      }
    }
    matchesContext = (artifact) =>
      artifact.episodes.some((episode) => {
        const features = featuresOfEpisode.get(episode);
        return features !== undefined && wanted.every((feature) => features.has(feature));
      });
  }

  const types = args.pattern_types === undefined ? undefined : new Set<string>(args.pattern_types);
  const bySupport = candidates.patterns
    .filter((artifact) => {
      const type = (artifact.content as { type?: unknown } | null)?.type;
      return types === undefined || (typeof type === 'string' && types.has(type));
    })
    .filter(matchesContext)
    .sort(
      (left, right) =>
        right.episodes.length - left.episodes.length ||
        (right.updatedAt > left.updatedAt ? 1 : right.updatedAt < left.updatedAt ? -1 : 0) ||
        (left.key < right.key ? -1 : 1),
    );
  // With query: the patterns holding every word, best first (BM25 in core over the patterns the
  // filters kept; ties keep the support order above).
  const matched =
    args.query === undefined
      ? undefined
      : searchTexts(
          bySupport.map((artifact) => [artifact, searchTextOfArtifactContent(artifact.content)]),
          args.query,
          'query',
        );
  const found = matched === undefined ? bySupport : matched.map((hit) => hit.key);
  const hitOf = new Map(matched?.map((hit) => [hit.key, hit]));

  return {
    success: true,
    scope: context.scope,
    count: Math.min(found.length, args.limit),
    total_matches: found.length,
    patterns: found.slice(0, args.limit).map((artifact) => {
      const content = artifact.content;
      const { key: _key, ...pattern } =
        typeof content === 'object' && content !== null && !Array.isArray(content)
          ? (content as Record<string, unknown>)
          : { value: content };
      return {
        key: artifact.key,
        type: pattern.type ?? null,
        pattern,
        support: artifact.episodes.length,
        episode_ids: artifact.episodes.slice(0, MAX_EPISODE_IDS).map((episode) => {
          const parsed = parseEpisodeRef(episode);
          return parsed?.kind === 'task' ? parsed.taskId : episode;
        }),
        effective_metadata: artifact.effectiveMetadata,
        updated_at: artifact.updatedAt,
        ...(hitOf.has(artifact)
          ? {
              score: (hitOf.get(artifact) as { score: number }).score,
              snippet: (hitOf.get(artifact) as { snippet: string }).snippet,
            }
          : {}),
      };
    }),
    ...(complete ? {} : { scan_truncated: true }),
  };
}
