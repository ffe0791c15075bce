// The search call's input, its answer, and the cursor that pages through it.
import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import {
  type LedgerEventType,
  ledgerEventTypeSchema,
  scopeSelectorShape,
  storedSessionIdSchema,
  tsMsSchema,
} from '../schema/ledger-event.js';
import { SEARCH_TEXT_MAX_LENGTH } from './search-match.js';

/** The most hits one search page returns. */
export const SEARCH_MAX_LIMIT = 100;
/** The hits of a page when no `limit` is given. */
export const SEARCH_DEFAULT_LIMIT = 20;
/** What opens a matched word in a snippet. */
export const SNIPPET_MATCH_START = '«';
/** What closes a matched word in a snippet. */
export const SNIPPET_MATCH_END = '»';
/** What stands for text left out of a snippet. */
export const SNIPPET_ELLIPSIS = '…';

/** `Ledger.search()` input: the text, the scope, the filters of `query()`, and paging. */
export const ledgerSearchQuerySchema = z.strictObject({
  /** Words and `"quoted phrases"`; every one must match. Nothing else is syntax. */
  text: z
    .string()
    .max(SEARCH_TEXT_MAX_LENGTH, `must be at most ${SEARCH_TEXT_MAX_LENGTH} characters`)
    .refine((text) => text.trim() !== '', 'must not be empty: give the words to search for'),
  ...scopeSelectorShape,
  sessionId: storedSessionIdSchema.optional(),
  /** Only events of this agent. */
  agentId: z.string().min(1).max(256).optional(),
  /** Inclusive lower bound on `ts_ms`. */
  fromTsMs: tsMsSchema.optional(),
  /** Inclusive upper bound on `ts_ms`. */
  toTsMs: tsMsSchema.optional(),
  /** One or more event types. */
  types: z.array(ledgerEventTypeSchema).min(1).optional(),
  /** A metadata filter on each event's own metadata, as in `query()`. */
  metadata: z.unknown().optional(),
  /** An access policy, as in `query()`: hidden events are never found nor counted. */
  policy: z.unknown().optional(),
  /** @default 20 */
  limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT),
  /** The `nextCursor` of the previous page of the same search. */
  cursor: z.string().min(1).max(200).optional(),
});
export type LedgerSearchQuery = z.input<typeof ledgerSearchQuerySchema>;

/** One event a search found. */
export interface SearchHit {
  readonly event_id: string;
  readonly session_id: string;
  readonly agent_id: string;
  readonly type: LedgerEventType;
  readonly ts_ms: number;
  /** How well the event matches: higher is better. Comparable within one search only. */
  readonly score: number;
  /**
   * A short excerpt of the event's text around the matches, each matched word between `«` and
   * `»` (`SNIPPET_MATCH_START`, `SNIPPET_MATCH_END`), text left out as `…`.
   */
  readonly snippet: string;
}

/** One page of search hits, best first (ties in insertion order). */
export interface SearchPage {
  readonly hits: readonly SearchHit[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** Where a page ended: the last hit's score and sequence. */
export interface SearchAfter {
  readonly score: number;
  readonly sequence: number;
}

/** The opaque cursor of a position in a search's order. */
export function encodeSearchCursor(after: SearchAfter): string {
  return `s1.${btoa(JSON.stringify([after.score, after.sequence]))}`;
}

/** The position a cursor names; `VALIDATION_ERROR` for anything `encodeSearchCursor` did not make. */
export function decodeSearchCursor(cursor: string): SearchAfter {
  const bad = () =>
    new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `search cursor ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of a search page. Pass the nextCursor of the previous page of the same search, or leave cursor out to start from the best hits.`,
      details: { field: 'cursor', value: cursor.slice(0, 40) },
    });
  if (!cursor.startsWith('s1.')) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(atob(cursor.slice(3)));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof value[0] !== 'number' ||
    !Number.isFinite(value[0]) ||
    !Number.isSafeInteger(value[1]) ||
    value[1] < 0
  ) {
    throw bad();
  }
  return { score: value[0], sequence: value[1] };
}
