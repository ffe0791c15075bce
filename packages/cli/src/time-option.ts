import { UsageError } from './usage-error.js';

/**
 * Which end of a day a calendar value means: `start` for a lower bound (`--from`), `end` for an
 * inclusive upper bound (`--to`: all of that day).
 */
export type TimeEdge = 'start' | 'end';

const DAY_MS = 86_400_000;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: DAY_MS,
  w: 7 * DAY_MS,
};
const RELATIVE = /^(\d{1,9})\s*(s|m|h|d|w)(?:\s+ago)?$/;
const EPOCH_MS = /^\d{1,16}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
/** The latest instant a JavaScript Date holds (±8.64e15 ms). */
const MAX_MS = 8_640_000_000_000_000;

/** What every time option accepts, for help texts and errors. */
export const TIME_SYNTAX =
  'an ISO date or time (2026-01-31, 2026-01-31T12:00:00Z), a time ago (30s, 15m, 2h, 3d, 1w), now, today, yesterday, or epoch milliseconds';

/** The local calendar day holding `ms`, as [first ms, last ms]. */
function localDay(year: number, monthIndex: number, day: number): [number, number] {
  const start = new Date(year, monthIndex, day).getTime();
  const next = new Date(year, monthIndex, day + 1).getTime();
  return [start, next - 1];
}

/**
 * Parses a time option into epoch milliseconds. One syntax for every time option of the CLI:
 *
 * - an ISO 8601 time, `2026-01-31T12:00:00Z` (without a zone: local time);
 * - an ISO date, `2026-01-31`, or `today` / `yesterday`: that day in the local time zone, its
 *   first millisecond for `edge: 'start'` and its last for `'end'` (so `--to 2026-01-31` includes
 *   the whole day; set `TZ=UTC` for UTC days);
 * - a time ago: `30s`, `15m`, `2h`, `3d`, `1w` (optionally followed by `ago`), or `now`;
 * - epoch milliseconds: `1767225600000`.
 *
 * Anything else is a `VALIDATION_ERROR` naming the option, the value and the accepted forms.
 */
export function parseTime(raw: string, option: string, edge: TimeEdge, now: number): number {
  const text = raw.trim().toLowerCase();
  const invalid = (why = '') =>
    new UsageError(
      `Invalid --${option} ${JSON.stringify(raw)}${why}: use ${TIME_SYNTAX}.`,
      'VALIDATION_ERROR',
    );
  let ms: number;
  if (text === 'now') {
    ms = now;
  } else if (text === 'today' || text === 'yesterday') {
    const date = new Date(now);
    const day = localDay(
      date.getFullYear(),
      date.getMonth(),
      date.getDate() - (text === 'yesterday' ? 1 : 0),
    );
    ms = edge === 'start' ? day[0] : day[1];
  } else if (RELATIVE.test(text)) {
    const [, amount, unit] = RELATIVE.exec(text) as RegExpExecArray;
    ms = now - Number(amount) * (UNIT_MS[unit as string] as number);
  } else if (EPOCH_MS.test(text)) {
    ms = Number(text);
  } else if (DATE.test(text)) {
    const [, year, month, day] = DATE.exec(text) as RegExpExecArray;
    const [y, m, d] = [Number(year), Number(month), Number(day)];
    const date = new Date(y, m - 1, d);
    // `new Date` rolls 2026-02-31 over into March: refuse dates that do not exist.
    if (date.getFullYear() !== y || date.getMonth() !== m - 1 || date.getDate() !== d) {
      throw invalid(' (no such day)');
    }
    const range = localDay(y, m - 1, d);
    ms = edge === 'start' ? range[0] : range[1];
  } else if (DATE_TIME.test(text)) {
    ms = Date.parse(raw.trim().replace(' ', 'T'));
  } else {
    throw invalid();
  }
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_MS) throw invalid(' (not a valid time)');
  return ms;
}

/** `parseTime` as an ISO 8601 string (UTC), for options whose receipts carry ISO times. */
export function parseTimeIso(raw: string, option: string, edge: TimeEdge, now: number): string {
  return new Date(parseTime(raw, option, edge, now)).toISOString();
}
