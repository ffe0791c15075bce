import {
  EpisodicError,
  type Ledger,
  type LedgerSearchInput,
  SEARCH_MAX_LIMIT,
  SEARCH_TEXT_MAX_LENGTH,
} from '@episodic/core';
import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';
import * as z from 'zod';
import type { SearchPageResponse } from './api-types.js';
import { dateParam, limitParam, listParam, parseQuery } from './query-params.js';

const searchSchema = z.strictObject({
  q: z.string().trim().min(1).max(SEARCH_TEXT_MAX_LENGTH),
  scope: z.string().min(1).max(200).optional(),
  global: z.enum(['1', 'true']).optional(),
  type: listParam.pipe(z.array(z.enum(LEDGER_EVENT_TYPES)).optional()),
  session: z.string().min(1).max(500).optional(),
  agent: z.string().min(1).max(256).optional(),
  from: dateParam('start'),
  to: dateParam('end'),
  cursor: z.string().min(1).max(200).optional(),
  limit: limitParam(20, SEARCH_MAX_LIMIT),
});

/** The `UNSUPPORTED` answer of a home whose ledger keeps no search index. */
export function searchUnsupported(ledger: Ledger): EpisodicError {
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message: `This home's ledger (${ledger.name}) keeps no search index, so it cannot be searched yet (SQLite and file homes can; PostgreSQL comes later). Use the Ledger page's filters instead.`,
    details: { field: 'store', value: ledger.name },
  });
}

/**
 * `GET /api/search`: one page of ledger events matching the words and "quoted phrases" of `q`,
 * best first, with snippets (matches between `«` and `»`), within one scope (or every scope, asked
 * for explicitly) and the ledger page's filters; `cursor` is the previous page's `next_cursor`.
 * The scope and filters are conditions of the store's query, so nothing outside them is read.
 */
export async function searchPage(
  ledger: Ledger,
  rawQuery: Record<string, string>,
): Promise<SearchPageResponse> {
  const filters = parseQuery(searchSchema, rawQuery, 'search query');
  if (filters.scope === undefined && filters.global === undefined) {
    throw new EpisodicError({
      code: 'SCOPE_REQUIRED',
      message:
        'The ledger is searched one scope at a time: choose a scope (scope=…), or every scope explicitly (global=1).',
      details: { field: 'scope' },
    });
  }
  if (ledger.capabilities.search !== true) throw searchUnsupported(ledger);
  const input: LedgerSearchInput = {
    text: filters.q,
    ...(filters.global === undefined ? { scope: filters.scope as string } : { global: true }),
    ...(filters.session === undefined ? {} : { sessionId: filters.session }),
    ...(filters.agent === undefined ? {} : { agentId: filters.agent }),
    ...(filters.type === undefined || filters.type.length === 0 ? {} : { types: filters.type }),
    ...(filters.from === undefined ? {} : { fromTsMs: Date.parse(filters.from) }),
    ...(filters.to === undefined ? {} : { toTsMs: Date.parse(filters.to) }),
    ...(filters.cursor === undefined ? {} : { cursor: filters.cursor }),
    limit: filters.limit,
  };
  const page = await ledger.search(input);
  return {
    scope: filters.global === undefined ? (filters.scope ?? null) : null,
    query: filters.q,
    hits: page.hits.map((hit) => ({ ...hit })),
    next_cursor: page.nextCursor,
  };
}
