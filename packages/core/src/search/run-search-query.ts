// The run search call's input, its answer, and the cursor that pages through it.
import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { SCOPE_MAX_LENGTH } from '../ledger/scope.js';
import { runTimestampSchema } from '../schema/run-record.js';
import { uuidSchema } from '../schema/session-state.js';
import { SEARCH_TEXT_MAX_LENGTH } from './search-match.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from './search-query.js';

/** The most record types one run search may name. */
export const RUN_SEARCH_MAX_TYPES = 32;

/**
 * `RunStore.search()` input: the text, the filters, and paging. Runs are not scoped in the
 * ledger's sense: `scope` and `sessionId` match what each run's header names (`scope`, as
 * `list({ scope })` reads it; `session_id`), which is how task episodes are filed.
 */
export const runSearchQuerySchema = z.strictObject({
  /** Words and `"quoted phrases"`; every one must match. Nothing else is syntax. */
  text: z
    .string()
    .max(SEARCH_TEXT_MAX_LENGTH, `must be at most ${SEARCH_TEXT_MAX_LENGTH} characters`)
    .refine((text) => text.trim() !== '', 'must not be empty: give the words to search for'),
  /** Only records of this run (case-insensitive). */
  runId: uuidSchema.optional(),
  /** Only records of these types (`tool.output`, `agent.event`, `x.acme.note`…). */
  types: z
    .array(z.string().min(1).max(128))
    .min(1)
    .max(RUN_SEARCH_MAX_TYPES, `must name at most ${RUN_SEARCH_MAX_TYPES} types`)
    .optional(),
  /** Only runs whose header names this scope (no `scope`, or an empty one, is `default`). */
  scope: z.string().min(1).max(SCOPE_MAX_LENGTH).optional(),
  /** Only runs whose header names this session (case-insensitive). */
  sessionId: z.string().min(1).max(256).optional(),
  /** Only records whose `ts` is at or after this instant (ISO 8601). */
  from: runTimestampSchema.optional(),
  /** Only records whose `ts` is at or before this instant (ISO 8601). */
  to: runTimestampSchema.optional(),
  /** @default 20 */
  limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT),
  /** The `nextCursor` of the previous page of the same search. */
  cursor: z.string().min(1).max(400).optional(),
});
export type RunSearchQuery = z.input<typeof runSearchQuerySchema>;

/** One run record a search found. */
export interface RunSearchHit {
  /** The run id (lowercase). */
  readonly run_id: string;
  /**
   * The record's place in its run, counted as run positions are (the header is 1):
   * `readAfter(run_id, position - 1)` starts with it.
   */
  readonly position: number;
  /** The record's type (`tool.output`, `agent.event`…). */
  readonly type: string;
  /** The record's `ts` as ISO 8601 UTC, or null when it has none. */
  readonly ts: string | null;
  /** How well the record matches: higher is better. Comparable within one search only. */
  readonly score: number;
  /** The text around the matches, matched words between `«` and `»`, cuts as `…`. */
  readonly snippet: string;
}

/** One page of run search hits, best first (ties by run id, then position). */
export interface RunSearchPage {
  readonly hits: readonly RunSearchHit[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** Where a run search page ended: the last hit's score, run and position. */
export interface RunSearchAfter {
  readonly score: number;
  readonly runId: string;
  readonly position: number;
}

/** True when a hit `(score, runId, position)` comes after `after` in a run search's order. */
export function isAfterRunSearchPoint(
  score: number,
  runId: string,
  position: number,
  after: RunSearchAfter,
): boolean {
  if (score !== after.score) return score < after.score;
  if (runId !== after.runId) return runId > after.runId;
  return position > after.position;
}

/** The opaque cursor of a position in a run search's order. */
export function encodeRunSearchCursor(after: RunSearchAfter): string {
  return `r1.${btoa(JSON.stringify([after.score, after.runId, after.position]))}`;
}

/** The position a cursor names; `VALIDATION_ERROR` for anything `encodeRunSearchCursor` did not make. */
export function decodeRunSearchCursor(cursor: string): RunSearchAfter {
  const bad = () =>
    new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `run search cursor ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of a run search page. Pass the nextCursor of the previous page of the same search, or leave cursor out to start from the best hits.`,
      details: { field: 'cursor', value: cursor.slice(0, 40) },
    });
  if (!cursor.startsWith('r1.')) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(atob(cursor.slice(3)));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    typeof value[0] !== 'number' ||
    !Number.isFinite(value[0]) ||
    typeof value[1] !== 'string' ||
    !uuidSchema.safeParse(value[1]).success ||
    !Number.isSafeInteger(value[2]) ||
    value[2] < 1
  ) {
    throw bad();
  }
  return { score: value[0], runId: value[1].toLowerCase(), position: value[2] };
}
