// Times for people: relative in tables ("3h ago"), local in detail views. Receipts (`--json`)
// always carry the stored ISO 8601 (UTC) text or epoch milliseconds, never these.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function toMs(time: string | number): number {
  return typeof time === 'number' ? time : Date.parse(time);
}

function two(value: number): string {
  return String(value).padStart(2, '0');
}

/** A local date, `2026-11-21`. */
function localDate(date: Date): string {
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

/**
 * A time in the local time zone, `2026-11-21 06:42:22` (with milliseconds when asked). Text that
 * is not a time is returned as it is.
 */
export function localTime(time: string | number, options: { milliseconds?: boolean } = {}): string {
  const ms = toMs(time);
  if (Number.isNaN(ms)) return String(time);
  const date = new Date(ms);
  const clock = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  const fraction =
    options.milliseconds === true ? `.${String(date.getMilliseconds()).padStart(3, '0')}` : '';
  return `${localDate(date)} ${clock}${fraction}`;
}

/**
 * How long ago (or how far ahead) a time is, for tables: `just now`, `12m ago`, `3h ago`,
 * `2d ago`, `in 5m`; beyond a week, the local date. Text that is not a time is returned as it is.
 */
export function relativeTime(time: string | number, now: number): string {
  const ms = toMs(time);
  if (Number.isNaN(ms)) return String(time);
  const difference = now - ms;
  const distance = Math.abs(difference);
  if (distance < 45_000) return 'just now';
  if (distance >= 7 * DAY) return localDate(new Date(ms));
  const amount =
    distance < HOUR
      ? `${Math.max(1, Math.round(distance / MINUTE))}m`
      : distance < DAY
        ? `${Math.floor(distance / HOUR)}h`
        : `${Math.floor(distance / DAY)}d`;
  return difference >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** A detail view's time: local, then how long ago: `2026-11-21 06:42:22 (3h ago)`. */
export function localAndRelative(time: string | number, now: number): string {
  const ms = toMs(time);
  if (Number.isNaN(ms)) return String(time);
  return `${localTime(ms)} (${relativeTime(ms, now)})`;
}
