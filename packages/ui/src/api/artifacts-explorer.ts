import {
  type ArtifactPage,
  type ArtifactStore,
  compileMetadataFilter,
  type MetadataFilter,
  type MetadataPredicate,
} from '@episodic/core';
import { invalidField } from '@episodic/core/adapter';
import * as z from 'zod';
import type { ArtifactPageResponse, ArtifactView } from './api-types.js';
import { limitParam, parseQuery } from './query-params.js';

const querySchema = z.strictObject({
  kind: z.string().min(1).max(200).optional(),
  key: z.string().min(1).max(1000).optional(),
  filter: z.string().max(20_000).optional(),
  cursor: z.string().max(1000).optional(),
  limit: limitParam(25, 100),
});

/** How many associated episodes an artifact shows with their metadata (matching ones first). */
export const EPISODES_SHOWN = 20;
/** How many associated episodes of one artifact are checked against the filter. */
const EPISODES_CHECKED = 200;

function parseFilter(
  text: string | undefined,
): { filter: MetadataFilter; matches: MetadataPredicate } | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField(
      'artifacts query',
      'filter',
      text.slice(0, 200),
      'must be a JSON metadata filter: {"type":"and","filters":[{"property_name":"team","comparison_operator":"=","property_value":"infra"}]}',
    );
  }
  // Core's evaluator validates the filter (seed 003's language) and names what is wrong.
  const compiled = compileMetadataFilter(value);
  return { filter: compiled.filter, matches: compiled.predicate };
}

/**
 * `GET /api/artifacts`: artifacts (patterns, reflections, checkpoint summaries…) with their
 * effective metadata, filtered by kind and by a seed 003 metadata filter. An artifact matches when
 * ONE of its associated episodes satisfies the whole filter; each listed episode says whether it
 * does, so the page shows which episodes made each artifact match.
 */
export async function artifactsPage(
  artifacts: ArtifactStore,
  rawQuery: Record<string, string>,
): Promise<ArtifactPageResponse> {
  const query = parseQuery(querySchema, rawQuery, 'artifacts query');
  const parsed = parseFilter(query.filter);
  let page: ArtifactPage;
  if (query.key !== undefined) {
    // One artifact by key (e.g. a pattern's, linked from its task episode).
    const artifact = await artifacts.get(query.key);
    const keep = artifact !== null && (parsed === undefined || artifact.episodes.length > 0);
    page = { artifacts: keep && artifact !== null ? [artifact] : [], nextKey: null };
  } else {
    page = await artifacts.list({
      ...(query.kind === undefined ? {} : { kind: query.kind }),
      ...(parsed === undefined ? {} : { filter: parsed.filter }),
      ...(query.cursor === undefined ? {} : { afterKey: query.cursor }),
      limit: query.limit,
    });
  }
  const views: ArtifactView[] = [];
  for (const artifact of page.artifacts) {
    const checked = artifact.episodes.slice(
      0,
      parsed === undefined ? EPISODES_SHOWN : EPISODES_CHECKED,
    );
    const evaluated = await Promise.all(
      checked.map(async (ref) => {
        const metadata = await artifacts.getEpisodeMetadata(ref);
        return { ref, metadata, matched: parsed === undefined ? null : parsed.matches(metadata) };
      }),
    );
    // The episodes that made the artifact match come first.
    const episodes = [
      ...evaluated.filter((episode) => episode.matched === true),
      ...evaluated.filter((episode) => episode.matched !== true),
    ].slice(0, EPISODES_SHOWN);
    views.push({
      key: artifact.key,
      kind: artifact.kind,
      created_at: artifact.createdAt,
      updated_at: artifact.updatedAt,
      content: artifact.content,
      effective_metadata: artifact.effectiveMetadata,
      episodes,
      more_episodes: artifact.episodes.length - episodes.length,
    });
  }
  return { filter: parsed?.filter ?? null, artifacts: views, next_cursor: page.nextKey };
}
