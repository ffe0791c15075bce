import { type Artifact, compileMetadataFilter, EpisodicError } from '@episodic/core';
import { parseInput, searchTextOfArtifactContent, searchTexts } from '@episodic/core/adapter';
import {
  artifactKeySchema,
  artifactKindSchema,
  TASK_PATTERN_TYPES,
  taskEpisodeRef,
} from '@episodic/core/schemas';
import { otherPatternScopesNote } from '../artifact-scopes.js';
import type { CommandHandler } from '../command-spec.js';
import { localAndRelative } from '../human-time.js';
import { episodeIdArgument } from '../id-arguments.js';
import { buildMetadataFilter } from '../metadata-conditions.js';
import { writeNotes } from '../notes.js';
import { jsonArgument, listOption, optionalInteger, optionalString } from '../option-values.js';
import { createStyles, renderFields, renderTable, sanitizeForTerminal } from '../output.js';
import { styleSnippet } from '../search-snippet.js';
import { withStores } from '../stores.js';
import { scopedTaskStores, taskScope } from '../task-scope.js';
import { UsageError } from '../usage-error.js';

function contentType(artifact: Artifact): string | undefined {
  const content = artifact.content;
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return undefined;
  const type = (content as Record<string, unknown>).type;
  return typeof type === 'string' ? type : undefined;
}

function describeContent(artifact: Artifact): string {
  const content = artifact.content as Record<string, unknown> | null;
  if (content === null || typeof content !== 'object') return JSON.stringify(artifact.content);
  switch (content.type) {
    case 'tool_sequence':
      return (content.tools as string[] | undefined)?.join(' → ') ?? '';
    case 'decision_point':
      return `${String(content.tool)}: ${String(content.condition)}`;
    case 'error_recovery':
      return `${String(content.failed_tool)} (${String(content.error)}) → ${String(content.recovery_tool)}`;
    case 'context':
      return (content.context_features as string[] | undefined)?.join(', ') ?? '';
    default:
      return JSON.stringify(content);
  }
}

const SCAN_PAGE = 500;
/** The most artifacts `--query` ranks (the MCP tool's cap too). */
const QUERY_SCAN_MAX = 10_000;

/** A pattern (or any artifact) as receipts spell it. */
function patternJson(artifact: Artifact) {
  return {
    key: artifact.key,
    artifact_kind: artifact.kind,
    type: contentType(artifact) ?? null,
    content: artifact.content,
    episodes: artifact.episodes,
    effective_metadata: artifact.effectiveMetadata,
    created_at: artifact.createdAt,
    updated_at: artifact.updatedAt,
  };
}

/** `patterns search`. */
export const search: CommandHandler = async (context) => {
  const { options } = context;
  const types = listOption(options, 'type', true);
  for (const type of types ?? []) {
    if (!(TASK_PATTERN_TYPES as readonly string[]).includes(type)) {
      throw new UsageError(
        `Invalid --type ${JSON.stringify(type)}: use ${TASK_PATTERN_TYPES.join(', ')}.`,
        'VALIDATION_ERROR',
      );
    }
  }
  const kind = parseInput(
    artifactKindSchema,
    optionalString(options, 'kind') ?? 'pattern',
    '--kind',
  );
  const task = optionalString(options, 'task');
  const episode =
    task === undefined ? undefined : taskEpisodeRef(await episodeIdArgument(context, task));
  const limit = optionalInteger(options, 'limit', { min: 1, max: 500 }) ?? 50;
  const afterKey = optionalString(options, 'after-key');
  const filterJson = await jsonArgument(context, 'metadata-filter');
  const filter = buildMetadataFilter(listOption(options, 'metadata', false), filterJson?.value);
  if (filter !== undefined) compileMetadataFilter(filter);
  const wanted = types === undefined ? undefined : new Set(types);
  const query = optionalString(options, 'query');
  if (query !== undefined) {
    // Checked before any store is opened: a query with no word exits 2 naming --query.
    searchTexts([], query, '--query');
    if (afterKey !== undefined) {
      throw new UsageError(
        'Give --query or --after-key, not both: a query returns the best --limit matches at once, ranked, with no key order to continue. Raise --limit to see more.',
      );
    }
  }
  const scope = taskScope(context);

  // The type of a pattern is in its content, so pages are scanned until `limit` matches are found.
  const found: Artifact[] = [];
  let nextKey: string | null = null;
  const notes: string[] = [];
  await withStores(
    context,
    async (stores) => {
      // Only the scope's own patterns: other scopes' are stored under their key prefix and never seen.
      const { artifacts } = scopedTaskStores(stores, scope);
      let cursor = afterKey;
      for (;;) {
        const page = await artifacts.list({
          kind,
          ...(episode === undefined ? {} : { episode }),
          ...(filter === undefined ? {} : { filter }),
          limit: wanted === undefined && query === undefined ? limit : SCAN_PAGE,
          ...(cursor === undefined ? {} : { afterKey: cursor }),
        });
        for (const artifact of page.artifacts) {
          if (wanted !== undefined && !wanted.has(contentType(artifact) ?? '')) continue;
          found.push(artifact);
          if (query === undefined && found.length === limit) break;
        }
        if (query !== undefined) {
          // Ranking needs every candidate; a scope's patterns are few (capped all the same).
          if (page.nextKey === null || found.length >= QUERY_SCAN_MAX) {
            if (page.nextKey !== null) {
              notes.push(
                `--query ranked the first ${found.length} ${kind}s of the scope only; narrow it with --type, --task or --metadata.`,
              );
            }
            return;
          }
          cursor = page.nextKey;
          continue;
        }
        if (found.length === limit) {
          const last = found[found.length - 1] as Artifact;
          const lastOfPage = page.artifacts[page.artifacts.length - 1];
          nextKey = last.key === lastOfPage?.key ? page.nextKey : last.key;
          return;
        }
        if (page.nextKey === null) break;
        cursor = page.nextKey;
      }
      if (found.length === 0 && afterKey === undefined) {
        notes.push(
          `No ${kind}s matched in scope "${scope}" (artifacts in ${stores.location.database}).`,
        );
        const others = await otherPatternScopesNote(stores.artifacts, scope, kind);
        if (others !== null) notes.push(others);
      }
    },
    { readOnly: true },
  );
  // With --query: the artifacts whose text holds every word, best first (core's BM25 over the
  // candidates the filters kept), at most --limit.
  const hits =
    query === undefined
      ? undefined
      : searchTexts(
          found.map((artifact) => [artifact, searchTextOfArtifactContent(artifact.content)]),
          query,
          '--query',
        ).slice(0, limit);
  if (hits !== undefined) {
    found.splice(0, found.length, ...hits.map((hit) => hit.key));
    if (found.length === 0)
      notes.push(`No ${kind} of scope "${scope}" holds every word of ${JSON.stringify(query)}.`);
  }
  const hitOf = new Map(hits?.map((hit) => [hit.key, hit]));
  const patterns = found.map((artifact) => {
    const hit = hitOf.get(artifact);
    return {
      ...patternJson(artifact),
      ...(hit === undefined ? {} : { score: hit.score, snippet: hit.snippet }),
    };
  });
  return {
    receipt: {
      scope,
      artifact_kind: kind,
      filters: {
        types: types ?? [],
        task: episode ?? null,
        metadata: filter ?? null,
        limit,
        after_key: afterKey ?? null,
        query: query ?? null,
      },
      count: patterns.length,
      patterns,
      next_key: nextKey,
      notes,
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      if (found.length > 0) {
        write(
          renderTable(
            found,
            [
              {
                header: 'TYPE',
                value: (artifact) => contentType(artifact) ?? artifact.kind,
                max: 16,
              },
              { header: 'TASKS', value: (artifact) => artifact.episodes.length, align: 'right' },
              hits === undefined
                ? { header: 'PATTERN', value: describeContent, max: 60 }
                : {
                    header: 'MATCH',
                    value: (artifact: Artifact) => hitOf.get(artifact)?.snippet ?? '',
                    max: 60,
                    style: (cut: string) => styleSnippet(cut, styles, context.globals.color),
                  },
              {
                header: 'METADATA',
                value: (artifact) => JSON.stringify(artifact.effectiveMetadata),
                max: 40,
              },
              { header: 'KEY', value: (artifact) => artifact.key, max: 80, fixed: true },
            ],
            styles,
          ),
        );
      }
      write(
        styles.dim(
          `${found.length} ${kind === 'pattern' ? 'pattern' : kind}${found.length === 1 ? '' : 's'}${nextKey === null ? '' : `; more with --after-key ${nextKey}`}\n`,
        ),
      );
      writeNotes(context, notes);
    },
  };
};

/** `patterns show KEY`: one learned pattern (or any artifact) with its tasks and metadata. */
export const show: CommandHandler = async (context) => {
  const key = parseInput(artifactKeySchema, context.positionals[0], 'KEY');
  const scope = taskScope(context);
  const { artifact, location } = await withStores(
    context,
    async (stores) => ({
      artifact: await scopedTaskStores(stores, scope).artifacts.get(key),
      location: stores.location,
    }),
    { readOnly: true },
  );
  if (artifact === null) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Pattern ${JSON.stringify(key)} was not found in scope "${scope}" (artifacts in ${location.database}, home ${location.home}). Check the key with "episodic patterns search --scope ${scope}"; a pattern learned in another scope is a separate artifact there (--scope).`,
      details: { key, scope, home: location.home, database: location.database },
    });
  }
  const tasks = artifact.episodes.map((episode) => episode.replace(/^task:/, ''));
  return {
    receipt: {
      scope,
      pattern: patternJson(artifact),
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const now = Date.now();
      write(
        renderFields(
          [
            ['key', artifact.key],
            ['kind', artifact.kind],
            ['type', contentType(artifact)],
            ['pattern', describeContent(artifact)],
            ['learned', localAndRelative(artifact.createdAt, now)],
            ['updated', localAndRelative(artifact.updatedAt, now)],
            ['metadata', JSON.stringify(artifact.effectiveMetadata)],
            ['tasks', artifact.episodes.length],
          ],
          styles,
        ),
      );
      write(`\n${styles.bold('Learned from:')}\n`);
      for (const [index, episode] of artifact.episodes.entries()) {
        const task = tasks[index] as string;
        write(
          `  ${sanitizeForTerminal(episode)}${episode.startsWith('task:') ? styles.dim(`  (episodic tasks show ${task} --scope ${scope})`) : ''}\n`,
        );
      }
      write(
        `\n${styles.bold('Content:')}\n${sanitizeForTerminal(JSON.stringify(artifact.content, null, 2)).replace(/^/gm, '  ')}\n`,
      );
    },
  };
};
