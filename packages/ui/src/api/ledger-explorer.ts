import {
  EpisodicError,
  type Ledger,
  type LedgerEvent,
  type LedgerQueryInput,
} from '@episodic/core';
import { LEDGER_EVENT_TYPES } from '@episodic/core/schemas';
import * as z from 'zod';
import type { LedgerEventResponse, LedgerPageResponse, LedgerRow } from './api-types.js';
import { dateParam, limitParam, listParam, parseQuery } from './query-params.js';

const filterShape = {
  scope: z.string().min(1).max(200).optional(),
  global: z.enum(['1', 'true']).optional(),
  type: listParam.pipe(z.array(z.enum(LEDGER_EVENT_TYPES)).optional()),
  session: z.string().min(1).max(500).optional(),
  agent: z.string().min(1).max(500).optional(),
  from: dateParam('start'),
  to: dateParam('end'),
  cursor: z.string().min(1).max(200).optional(),
};

const pageSchema = z.strictObject({ ...filterShape, limit: limitParam(50, 200) });
const eventSchema = z.strictObject({ ...filterShape, event: z.string().min(1).max(200) });

/** How many events one page reads at most to fill itself when filtering by agent. */
export const AGENT_SCAN_LIMIT = 5000;
/** The ledger's largest page (core's limit). */
const STORE_PAGE = 500;

type Filters = z.output<typeof pageSchema> | z.output<typeof eventSchema>;

/**
 * An event id from the URL (`cursor`, `event`): a whole stored id, or the one event of the scope
 * (of every scope with global=1) whose id starts with the 6 or more characters given; an ambiguous
 * prefix is a `VALIDATION_ERROR` naming the candidates. An id no event of the scope has is kept as
 * given, so the read answers `NOT_FOUND` in its own words (another scope's events stay invisible).
 */
async function eventIdParam(
  ledger: Ledger,
  filters: Filters,
  value: string,
  subject: string,
): Promise<string> {
  const selector =
    filters.global === undefined ? { scope: filters.scope as string } : { global: true as const };
  return ledger.resolveEventId(value, { ...selector, subject, unmatched: 'as-given' });
}

/** The filters with `cursor` (and `event`) resolved from a prefix to the whole event id. */
async function resolveEventIds<Given extends Filters>(
  ledger: Ledger,
  filters: Given,
): Promise<Given> {
  // The scope is checked first: a prefix is never looked up without one.
  ledgerQuery(filters);
  const resolved = { ...filters };
  if (filters.cursor !== undefined) {
    resolved.cursor = await eventIdParam(ledger, filters, filters.cursor, 'cursor');
  }
  if ('event' in filters && 'event' in resolved) {
    resolved.event = await eventIdParam(ledger, filters, filters.event, 'event');
  }
  return resolved;
}

function ledgerQuery(filters: Filters): Omit<LedgerQueryInput, 'limit'> {
  if (filters.scope === undefined && filters.global === undefined) {
    throw new EpisodicError({
      code: 'SCOPE_REQUIRED',
      message:
        'The ledger is read one scope at a time: choose a scope (scope=…), or every scope explicitly (global=1).',
      details: { field: 'scope' },
    });
  }
  return {
    ...(filters.global === undefined ? { scope: filters.scope as string } : { global: true }),
    ...(filters.session === undefined ? {} : { sessionId: filters.session }),
    ...(filters.type === undefined || filters.type.length === 0 ? {} : { types: filters.type }),
    ...(filters.from === undefined ? {} : { fromTsMs: Date.parse(filters.from) }),
    ...(filters.to === undefined ? {} : { toTsMs: Date.parse(filters.to) }),
    ...(filters.cursor === undefined ? {} : { afterId: filters.cursor }),
  };
}

function row(event: LedgerEvent): LedgerRow {
  const {
    payload: _payload,
    schema_version: _schemaVersion,
    created_at: _createdAt,
    metadata,
    ...fields
  } = event;
  return { ...fields, metadata: metadata ?? null };
}

/**
 * Reads events after the cursor until `limit` of them match the agent filter (the ledger filters
 * everything else itself), reading at most `AGENT_SCAN_LIMIT` events.
 */
async function collect(
  ledger: Ledger,
  filters: Filters,
  limit: number,
  includePayload: boolean,
): Promise<{ events: LedgerEvent[]; next: string | null; scanned: number; limited: boolean }> {
  const base = ledgerQuery(filters);
  if (filters.agent === undefined) {
    const page = await ledger.query({ ...base, limit, includePayload });
    return {
      events: page.events,
      next: page.next_after_id,
      scanned: page.events.length,
      limited: false,
    };
  }
  const events: LedgerEvent[] = [];
  let afterId = base.afterId;
  let scanned = 0;
  for (;;) {
    const page = await ledger.query({
      ...base,
      ...(afterId === undefined ? {} : { afterId }),
      limit: STORE_PAGE,
      includePayload,
    });
    for (const event of page.events) {
      scanned++;
      afterId = event.event_id;
      if (event.agent_id !== filters.agent) continue;
      events.push(event);
      if (events.length === limit) {
        const more = event !== page.events.at(-1) || page.next_after_id !== null;
        return { events, next: more ? event.event_id : null, scanned, limited: false };
      }
    }
    if (page.next_after_id === null) return { events, next: null, scanned, limited: false };
    if (scanned >= AGENT_SCAN_LIMIT)
      return { events, next: afterId ?? null, scanned, limited: true };
  }
}

/**
 * `GET /api/ledger`: one page of ledger events of a scope (or of every scope, asked for
 * explicitly), filtered by type, session, agent and time, summaries only; redacted rows come back
 * marked `redacted` with the store's placeholder summary.
 */
export async function ledgerPage(
  ledger: Ledger,
  rawQuery: Record<string, string>,
): Promise<LedgerPageResponse> {
  const filters = await resolveEventIds(ledger, parseQuery(pageSchema, rawQuery, 'ledger query'));
  const found = await collect(ledger, filters, filters.limit, false);
  return {
    scope: filters.global === undefined ? (filters.scope ?? null) : null,
    events: found.events.map(row),
    next_cursor: found.next,
    scanned: found.scanned,
    scan_limited: found.limited,
  };
}

/**
 * `GET /api/ledger/event`: one event with its payload, on demand. The ledger reads by position, so
 * the event is asked for as "the first event after `cursor` under the same filters", and must be
 * the event named by `event`.
 */
export async function ledgerEvent(
  ledger: Ledger,
  rawQuery: Record<string, string>,
): Promise<LedgerEventResponse> {
  const filters = await resolveEventIds(
    ledger,
    parseQuery(eventSchema, rawQuery, 'ledger event query'),
  );
  const found = await collect(ledger, filters, 1, true);
  const event = found.events[0];
  if (event === undefined || event.event_id !== filters.event) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `Event ${filters.event} is not the next event after the given cursor under these filters (it may have been deleted by retention). Reload the page.`,
      details: { eventId: filters.event },
    });
  }
  return { event: { ...row(event), payload: event.payload ?? null } };
}
