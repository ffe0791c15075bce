import {
  createMemoryLedger,
  createMemoryRunStore,
  EpisodicError,
  type LedgerEventType,
  type LedgerSearchInput,
  type RunSearchPage,
  type RunSearchQuery,
  type SearchPage,
} from '@episodic/core';
import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';

import type { CommandContext, CommandHandler } from '../command-spec.js';
import { foldEventType } from '../event-type.js';
import { relativeTime } from '../human-time.js';
import { runIdArgument } from '../id-arguments.js';
import { withLedger } from '../ledger-access.js';
import { commandName, ledgerCommand, scopeFields } from '../ledger-command.js';
import { buildMetadataFilter } from '../metadata-conditions.js';
import { writeNotes } from '../notes.js';
import {
  flag,
  isEveryScope,
  jsonArgument,
  listOption,
  optionalInteger,
  optionalString,
  optionalTimeMs,
  scopeSelector,
} from '../option-values.js';
import { type Column, createStyles, renderTable, type Styles } from '../output.js';
import { styleSnippet } from '../search-snippet.js';
import { withRunStores } from '../stores.js';
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

/** Options of the ledger search that a run search does not take (runs are not scoped). */
const LEDGER_ONLY_OPTIONS = [
  'scope',
  'global',
  'all-scopes',
  'agent-id',
  'metadata',
  'metadata-filter',
] as const;
/** Options of the run search that a ledger search does not take. */
const RUNS_ONLY_OPTIONS = ['run'] as const;

/**
 * `search TEXT`: one page of the ledger events (or, with `--runs`, the run records) whose text
 * holds every word and phrase.
 */
export const search: CommandHandler = ledgerCommand(async (context: CommandContext) => {
  const { options } = context;
  if (flag(options, 'runs')) return searchRuns(context);
  for (const name of RUNS_ONLY_OPTIONS) {
    if (options[name] !== undefined) {
      throw new UsageError(
        `--${name} narrows a run search: add --runs, or leave --${name} out to search the ledger.`,
        'VALIDATION_ERROR',
      );
    }
  }
  const command = commandName(context);
  const text = context.positionals[0] as string;
  const selector = scopeSelector(options, command);
  const sessionId = optionalString(options, 'session-id');
  const agentId = optionalString(options, 'agent-id');
  const types = listOption(options, 'type', true)?.map(foldEventType);
  const givenTypes = types === undefined ? undefined : [...new Set(types)];
  const unknownType = givenTypes?.find(
    (type) => !(LEDGER_EVENT_TYPES as readonly string[]).includes(type),
  );
  if (unknownType !== undefined) {
    throw new UsageError(
      `--type ${JSON.stringify(unknownType)} is not a ledger event type; use one of ${LEDGER_EVENT_TYPES.join(', ')} (run record types such as tool.output need --runs).`,
      'VALIDATION_ERROR',
    );
  }
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
      writeHitPage(write, context, styles, page, notes, [
        { header: 'TIME', value: (hit) => relativeTime(hit.ts_ms, nowMs), fixed: true },
        { header: 'TYPE', value: (hit) => hit.type, max: 22, fixed: true },
        { header: 'SESSION', value: (hit) => hit.session_id, max: 24 },
        { header: 'AGENT', value: (hit) => hit.agent_id, max: 16 },
      ]);
    },
  };
});

/** `search TEXT --runs`: one page of the run records whose text holds every word and phrase. */
async function searchRuns(context: CommandContext) {
  const { options } = context;
  for (const name of LEDGER_ONLY_OPTIONS) {
    if (options[name] !== undefined) {
      throw new UsageError(
        `--${name} does not apply to --runs: runs are not scoped (as in runs list). Narrow a run search with --run, --session-id, --type, --from and --to.`,
        'VALIDATION_ERROR',
      );
    }
  }
  const text = context.positionals[0] as string;
  const runOption = optionalString(options, 'run');
  const sessionId = optionalString(options, 'session-id');
  const types = listOption(options, 'type', true)?.map((type) => type.trim());
  const givenTypes = types === undefined ? undefined : [...new Set(types)];
  const now = Date.now();
  const fromTsMs = optionalTimeMs(options, 'from', 'start', now);
  const toTsMs = optionalTimeMs(options, 'to', 'end', now);
  const limit = optionalInteger(options, 'limit', { min: 1, max: MAX_LIMIT }) ?? DEFAULT_LIMIT;
  const cursor = optionalString(options, 'cursor');
  if (fromTsMs !== undefined && toTsMs !== undefined && fromTsMs > toTsMs) {
    throw new UsageError(
      `--from (${new Date(fromTsMs).toISOString()}) is after --to (${new Date(toTsMs).toISOString()}): no record can match. Swap them or widen the range.`,
      'VALIDATION_ERROR',
    );
  }
  const base: RunSearchQuery = {
    text,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(givenTypes === undefined ? {} : { types: givenTypes }),
    ...(fromTsMs === undefined ? {} : { from: new Date(fromTsMs).toISOString() }),
    ...(toTsMs === undefined ? {} : { to: new Date(toTsMs).toISOString() }),
    ...(cursor === undefined ? {} : { cursor }),
    limit,
  };
  // The reference run store checks every field before the home is opened (bad input exits 2).
  await createMemoryRunStore().search(base);
  const runId =
    runOption === undefined ? undefined : await runIdArgument(context, runOption, '--run');
  const request: RunSearchQuery = { ...base, ...(runId === undefined ? {} : { runId }) };
  const searchWith = (readOnly: boolean) =>
    withRunStores(
      context,
      async (stores) => {
        try {
          return await stores.runs.search(request);
        } catch (error) {
          if (isIndexBehind(error) || !EpisodicError.hasCode(error, 'UNSUPPORTED')) throw error;
          throw new EpisodicError({
            code: 'UNSUPPORTED',
            message: `The ${stores.runs.name} run store of ${stores.location.store === 'fs' ? 'this home keeps runs as files, which have no search index yet' : 'this home keeps no search index of runs'}. Search runs in a SQLite store, or find them with runs list and runs show.`,
            details: { store: stores.runs.name },
          });
        }
      },
      readOnly ? { readOnly: true } : {},
    );
  // Read-only first (a search creates no home); writable only when the index is behind.
  let page: RunSearchPage;
  try {
    page = await searchWith(true);
  } catch (error) {
    if (!isIndexBehind(error)) throw error;
    page = await searchWith(false);
  }
  const notes: string[] = [];
  if (page.hits.length === 0 && cursor === undefined) {
    notes.push(
      `No run record holds every word of ${JSON.stringify(text)}${runId === undefined && sessionId === undefined && givenTypes === undefined && fromTsMs === undefined && toTsMs === undefined ? '' : ' within the filters'}. Every word and "quoted phrase" must match; try fewer words.`,
    );
  }
  const receipt = {
    runs: true,
    query: text,
    filters: {
      run_id: runId ?? null,
      session_id: sessionId ?? null,
      types: givenTypes ?? [],
      from_ts_ms: fromTsMs ?? null,
      to_ts_ms: toTsMs ?? null,
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
    render: (write: (text: string) => void) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      const nowMs = Date.now();
      writeHitPage(write, context, styles, page, notes, [
        {
          header: 'TIME',
          value: (hit) => (hit.ts === null ? '-' : relativeTime(Date.parse(hit.ts), nowMs)),
          fixed: true,
        },
        { header: 'RUN', value: (hit) => hit.run_id.slice(0, 8), fixed: true },
        { header: '#', value: (hit) => String(hit.position), fixed: true },
        { header: 'TYPE', value: (hit) => hit.type, max: 22, fixed: true },
      ]);
    },
  };
}

/**
 * A page of hits for people: a table of `columns` and the snippet (matched words styled), then
 * the count and how to ask for the next page, then the notes.
 */
function writeHitPage<Hit extends { readonly snippet: string }>(
  write: (text: string) => void,
  context: CommandContext,
  styles: Styles,
  page: { readonly hits: readonly Hit[]; readonly nextCursor: string | null },
  notes: readonly string[],
  columns: Column<Hit>[],
): void {
  if (page.hits.length > 0) {
    const snippet: Column<Hit> = {
      header: 'SNIPPET',
      value: (hit) => hit.snippet,
      max: 100,
      style: (cut) => styleSnippet(cut, styles, context.globals.color),
    };
    write(renderTable(page.hits, [...columns, snippet], styles));
  }
  const count = `${page.hits.length} hit${page.hits.length === 1 ? '' : 's'}`;
  write(
    `${styles.dim(page.nextCursor === null ? count : `${count}; next page: add --cursor ${page.nextCursor}`)}\n`,
  );
  writeNotes(context, notes);
}
