import {
  createMemoryLedger,
  EpisodicError,
  type LedgerEventType,
  type LedgerSearchInput,
  type SearchPage,
} from '@episodic/core';
import type { CommandContext, CommandHandler } from '../command-spec.js';
import { foldEventType } from '../event-type.js';
import { relativeTime } from '../human-time.js';
import { withLedger } from '../ledger-access.js';
import { commandName, ledgerCommand, scopeFields } from '../ledger-command.js';
import { buildMetadataFilter } from '../metadata-conditions.js';
import { writeNotes } from '../notes.js';
import {
  isEveryScope,
  jsonArgument,
  listOption,
  optionalInteger,
  optionalString,
  optionalTimeMs,
  scopeSelector,
} from '../option-values.js';
import { createStyles, renderTable } from '../output.js';
import { styleSnippet } from '../search-snippet.js';
import { UsageError } from '../usage-error.js';

/** The most hits one page shows (core's `SEARCH_MAX_LIMIT`). */
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;

/** The read-only connection could not bring the search index up to date. */
function isIndexBehind(error: unknown): boolean {
  return (
    EpisodicError.isInstance(error) &&
    error.code === 'UNSUPPORTED' &&
    typeof error.details?.pending === 'number'
  );
}

/** `search TEXT`: one page of the ledger events whose text holds every word and phrase. */
export const search: CommandHandler = ledgerCommand(async (context: CommandContext) => {
  const { options } = context;
  const command = commandName(context);
  const text = context.positionals[0] as string;
  const selector = scopeSelector(options, command);
  const sessionId = optionalString(options, 'session-id');
  const agentId = optionalString(options, 'agent-id');
  const types = listOption(options, 'type', true)?.map(foldEventType);
  const givenTypes = types === undefined ? undefined : [...new Set(types)];
  const now = Date.now();
  const fromTsMs = optionalTimeMs(options, 'from', 'start', now);
  const toTsMs = optionalTimeMs(options, 'to', 'end', now);
  const limit = optionalInteger(options, 'limit', { min: 1, max: MAX_LIMIT }) ?? DEFAULT_LIMIT;
  const cursor = optionalString(options, 'cursor');
  const filterJson = await jsonArgument(context, 'metadata-filter');
  const metadata = buildMetadataFilter(listOption(options, 'metadata', false), filterJson?.value);
  if (fromTsMs !== undefined && toTsMs !== undefined && fromTsMs > toTsMs) {
    throw new UsageError(
      `--from (${new Date(fromTsMs).toISOString()}) is after --to (${new Date(toTsMs).toISOString()}): no event can match. Swap them or widen the range.`,
      'VALIDATION_ERROR',
    );
  }
  const request: LedgerSearchInput = {
    text,
    ...selector,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(agentId === undefined ? {} : { agentId }),
    ...(givenTypes === undefined ? {} : { types: givenTypes as LedgerEventType[] }),
    ...(fromTsMs === undefined ? {} : { fromTsMs }),
    ...(toTsMs === undefined ? {} : { toTsMs }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(cursor === undefined ? {} : { cursor }),
    limit,
  };
  // The reference ledger checks every field (the text, the cursor, the filters) before the
  // database is opened, so bad input exits 2 without touching the home.
  await createMemoryLedger().search(request);
  // Opened read-only first, so a search creates no home nor database. The SQLite index is kept
  // lazily (appends never touch it): when it is behind, the read-only connection says so, and the
  // search runs again on a writable one, which indexes the new events first.
  let page: SearchPage;
  try {
    page = await withLedger(context, (ledger) => ledger.search(request), { readOnly: true });
  } catch (error) {
    if (!isIndexBehind(error)) throw error;
    page = await withLedger(context, (ledger) => ledger.search(request));
  }
  const notes: string[] = [];
  if (page.hits.length === 0 && cursor === undefined) {
    notes.push(
      `Nothing in ${isEveryScope(selector) ? 'any scope' : `scope "${scopeFields(selector).scope}"`} holds every word of ${JSON.stringify(text)}${sessionId === undefined && agentId === undefined && givenTypes === undefined && fromTsMs === undefined && toTsMs === undefined && metadata === undefined ? '' : ' within the filters'}. Every word and "quoted phrase" must match; try fewer words.`,
    );
  }
  const receipt = {
    ...scopeFields(selector),
    query: text,
    filters: {
      session_id: sessionId ?? null,
      agent_id: agentId ?? null,
      types: givenTypes ?? [],
      from_ts_ms: fromTsMs ?? null,
      to_ts_ms: toTsMs ?? null,
      metadata: metadata ?? null,
      limit,
      cursor: cursor ?? null,
    },
    count: page.hits.length,
    hits: page.hits,
    next_cursor: page.nextCursor,
    notes,
  };
  return {
    receipt,
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const nowMs = Date.now();
      if (page.hits.length > 0) {
        write(
          renderTable(
            page.hits,
            [
              { header: 'TIME', value: (hit) => relativeTime(hit.ts_ms, nowMs), fixed: true },
              { header: 'TYPE', value: (hit) => hit.type, max: 22, fixed: true },
              { header: 'SESSION', value: (hit) => hit.session_id, max: 24 },
              { header: 'AGENT', value: (hit) => hit.agent_id, max: 16 },
              {
                header: 'SNIPPET',
                value: (hit) => hit.snippet,
                max: 100,
                style: (cut) => styleSnippet(cut, styles, context.globals.color),
              },
            ],
            styles,
          ),
        );
      }
      const count = `${page.hits.length} hit${page.hits.length === 1 ? '' : 's'}`;
      write(
        `${styles.dim(page.nextCursor === null ? count : `${count}; next page: add --cursor ${page.nextCursor}`)}\n`,
      );
      writeNotes(context, notes);
    },
  };
});
