import {
  EpisodicError,
  RUN_SEARCH_MAX_TYPES,
  type RunSearchQuery,
  type RunStore,
  SEARCH_MAX_LIMIT,
  SEARCH_TEXT_MAX_LENGTH,
} from '@episodic/core';
import { uuidSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import type { RunSearchPageResponse } from './api-types.js';
import { dateParam, limitParam, listParam, parseQuery } from './query-params.js';

const runSearchSchema = z.strictObject({
  q: z.string().trim().min(1).max(SEARCH_TEXT_MAX_LENGTH),
  run: uuidSchema.optional(),
  session: z.string().min(1).max(256).optional(),
  scope: z.string().min(1).max(200).optional(),
  type: listParam.pipe(z.array(z.string().min(1).max(128)).max(RUN_SEARCH_MAX_TYPES).optional()),
  from: dateParam('start'),
  to: dateParam('end'),
  cursor: z.string().min(1).max(400).optional(),
  limit: limitParam(20, SEARCH_MAX_LIMIT),
});

/** The `UNSUPPORTED` answer of a home whose run store keeps no search index. */
export function runSearchUnsupported(runs: RunStore): EpisodicError {
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message: `This home's runs (${runs.name} store) keep no search index, so they cannot be searched yet (runs kept in SQLite can; run files and PostgreSQL's runs come later). Use the Runs page's filters instead.`,
    details: { field: 'store', value: runs.name },
  });
}

/**
 * `GET /api/search/runs`: one page of run records matching the words and "quoted phrases" of `q`,
 * best first, with snippets (matches between `«` and `»`); `run`, `session`, `scope` (what each
 * run's header names), `type` and `from`/`to` (the record's time) narrow it, and `cursor` is the
 * previous page's `next_cursor`. Runs are not scoped like the ledger (a home is one trust
 * boundary, as on the Runs page), so no scope is required; given, it is a condition of the
 * store's query, as every filter is.
 */
export async function runSearchPage(
  runs: RunStore,
  rawQuery: Record<string, string>,
): Promise<RunSearchPageResponse> {
  const filters = parseQuery(runSearchSchema, rawQuery, 'run search query');
  if (runs.capabilities.search !== true) throw runSearchUnsupported(runs);
  const input: RunSearchQuery = {
    text: filters.q,
    ...(filters.run === undefined ? {} : { runId: filters.run }),
    ...(filters.session === undefined ? {} : { sessionId: filters.session }),
    ...(filters.scope === undefined ? {} : { scope: filters.scope }),
    ...(filters.type === undefined || filters.type.length === 0 ? {} : { types: filters.type }),
    ...(filters.from === undefined ? {} : { from: filters.from }),
    ...(filters.to === undefined ? {} : { to: filters.to }),
    ...(filters.cursor === undefined ? {} : { cursor: filters.cursor }),
    limit: filters.limit,
  };
  const page = await runs.search(input);
  return {
    query: filters.q,
    hits: page.hits.map((hit) => ({ ...hit })),
    next_cursor: page.nextCursor,
  };
}
