import { EpisodicError } from '../errors/index.js';
import { UUID_PATTERN } from '../schema/session-state.js';
import { describeValue } from '../validation/describe-value.js';

// Ids as people type them: the first characters of an id, as tables show them (`7c1d7358`), stand
// for the one stored id that starts with them. The rules live here, once; a store only supplies the
// ids that start with a prefix (an indexed range scan, `idPrefixRange`), within the caller's scope.

/** The fewest characters a prefix may have. */
export const ID_PREFIX_MIN_LENGTH = 6;

/** How many candidates an ambiguity error names. */
const SHOWN_CANDIDATES = 5;

/**
 * How many ids a store returns for one prefix at most: enough to count an ambiguity, bounded so
 * a short prefix over a large store stays cheap (the count then says "at least").
 */
export const ID_PREFIX_CANDIDATE_LIMIT = 100;

/** The kinds of id a prefix may stand for. */
export type IdKind = 'run' | 'session' | 'task' | 'event';

const NOUNS: Record<IdKind, string> = {
  run: 'run',
  session: 'session',
  task: 'task episode',
  event: 'event',
};

const LISTS: Record<IdKind, string> = {
  run: 'episodic runs list',
  session: 'episodic sessions list',
  task: 'episodic tasks list',
  event: 'episodic episodes query',
};

const UUID_EXAMPLE = '7c1d7358-2f4e-4b7a-9c1d-0e5f6a7b8c9d';

/** Each character a UUID prefix may have at this position (hex, or the hyphen at 8, 13, 18, 23). */
const UUID_PREFIX =
  /^[0-9a-f]{1,8}$|^[0-9a-f]{8}-[0-9a-f]{0,4}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{0,4}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{0,4}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{0,12}$/;

/** An event id's characters (seed 002: letters, digits, ".", "_", ":", "-"). */
const EVENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const MAX_EVENT_ID_LENGTH = 128;

/** What a reference to an id turned out to be: a whole id, or a prefix of one. */
export type IdReference = { kind: 'id'; id: string } | { kind: 'prefix'; prefix: string };

function whatAnIdLooksLike(kind: IdKind): string {
  return kind === 'event'
    ? `An event id is letters, digits, ".", "_", ":" or "-" (e.g. a ULID such as 01JH4Z5Q8K2M3N4P5Q6R7S8T9V); give the whole id or its first ${ID_PREFIX_MIN_LENGTH} or more characters`
    : `A ${NOUNS[kind]} id is a UUID such as ${UUID_EXAMPLE}; give the whole id or its first ${ID_PREFIX_MIN_LENGTH} or more characters (e.g. ${UUID_EXAMPLE.slice(0, 8)}), as "${LISTS[kind]}" shows them`;
}

function badReference(kind: IdKind, subject: string, value: unknown, why: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `${subject}${value === undefined || value === '' ? '' : ` ${describeValue(value)}`} ${why}. ${whatAnIdLooksLike(kind)}.`,
    details: { field: subject, kind },
  });
}

/**
 * Reads what a person typed for an id of `kind`: a whole id (a UUID, lowercased; for events any
 * valid event id) or a prefix of at least `ID_PREFIX_MIN_LENGTH` characters (hex and hyphens in
 * their places for a UUID, case-insensitive). Anything else is a `VALIDATION_ERROR` that says what
 * an id looks like. An event reference is both an id and a prefix (event ids have no fixed form):
 * callers look it up whole first, then as a prefix.
 */
export function parseIdReference(value: unknown, kind: IdKind, subject: string): IdReference {
  if (typeof value !== 'string' || value.length === 0) {
    throw badReference(kind, subject, value, 'is missing');
  }
  if (kind === 'event') {
    if (value.length > MAX_EVENT_ID_LENGTH || !EVENT_ID.test(value)) {
      throw badReference(kind, subject, value, 'is not an event id');
    }
    return value.length < ID_PREFIX_MIN_LENGTH
      ? { kind: 'id', id: value }
      : { kind: 'prefix', prefix: value };
  }
  if (UUID_PATTERN.test(value)) return { kind: 'id', id: value.toLowerCase() };
  const lower = value.toLowerCase();
  if (!UUID_PREFIX.test(lower)) {
    throw badReference(kind, subject, value, 'is not a UUID or the start of one');
  }
  if (lower.length < ID_PREFIX_MIN_LENGTH) {
    throw badReference(
      kind,
      subject,
      value,
      `is too short to find one ${NOUNS[kind]} (${lower.length} characters)`,
    );
  }
  return { kind: 'prefix', prefix: lower };
}

/**
 * The range of stored ids that start with `prefix`: `from <= id < to`, for an indexed range
 * query (`id >= ? AND id < ?`) instead of a scan. `to` appends "~", which sorts after every
 * character an id may hold (hex, letters, digits, ".", "_", ":", "-") in byte order.
 */
export function idPrefixRange(prefix: string): { from: string; to: string } {
  return { from: prefix, to: `${prefix}~` };
}

/**
 * The one id among `candidates` (the ids a store found starting with `prefix`, already limited to
 * what the caller may see) that the prefix stands for. None is `NOT_FOUND`; several are a
 * `VALIDATION_ERROR` naming a few of them and how many there are (`atLeast` when the store stopped
 * at `ID_PREFIX_CANDIDATE_LIMIT`). Only the given candidates are ever named or counted.
 */
export function resolveIdPrefix(
  prefix: string,
  candidates: readonly string[],
  kind: IdKind,
  options: { atLeast?: boolean } = {},
): string {
  const matching = [...new Set(candidates.filter((id) => id.startsWith(prefix)))].sort();
  if (matching.length === 1) return matching[0] as string;
  const noun = NOUNS[kind];
  if (matching.length === 0) {
    throw new EpisodicError({
      code: 'NOT_FOUND',
      message: `No ${noun} id starts with "${prefix}". Check the id ("${LISTS[kind]}" shows the ones stored).`,
      details: { prefix, kind },
    });
  }
  const shown = matching.slice(0, SHOWN_CANDIDATES);
  const count = `${options.atLeast === true ? 'at least ' : ''}${matching.length}`;
  throw new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `"${prefix}" is the start of ${count} ${noun} ids: ${shown.join(', ')}${matching.length > shown.length ? ', …' : ''}. Give more characters of the one you mean.`,
    details: {
      prefix,
      kind,
      candidates: shown,
      count: matching.length,
      atLeast: options.atLeast === true,
    },
  });
}
