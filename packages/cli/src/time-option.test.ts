import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTime, parseTimeIso } from './time-option.js';
import { UsageError } from './usage-error.js';

const NOW = Date.UTC(2026, 10, 24, 15, 30, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The usage error `parseTime` raises, or fails the test. */
function refusal(raw: string): UsageError {
  try {
    parseTime(raw, 'from', 'start', NOW);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

// Instants a Date can show as a four-digit-year ISO string.
const instant = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });

describe('parseTime', () => {
  it('reads ISO times, epoch milliseconds and times ago exactly (property)', () => {
    fc.assert(
      fc.property(instant, (ms) => {
        expect(parseTime(new Date(ms).toISOString(), 'from', 'start', NOW)).toBe(ms);
        expect(parseTime(String(ms), 'from', 'end', NOW)).toBe(ms);
      }),
    );
  });

  it('reads a time ago as now minus the amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom<[string, number]>(
          ['s', 1000],
          ['m', 60_000],
          ['h', HOUR],
          ['d', DAY],
          ['w', 7 * DAY],
        ),
        fc.constantFrom('', ' ago', ' AGO'),
        (amount, [unit, size], suffix) => {
          expect(parseTime(`${amount}${unit}${suffix}`, 'from', 'start', NOW)).toBe(
            NOW - amount * size,
          );
        },
      ),
    );
    expect(parseTime('now', 'to', 'end', NOW)).toBe(NOW);
    expect(parseTime(' 2h ', 'from', 'start', NOW)).toBe(NOW - 2 * HOUR);
  });

  it('reads a calendar day as its first or last local millisecond (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1971, max: 9998 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        (year, month, day) => {
          const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          const start = parseTime(text, 'from', 'start', NOW);
          const end = parseTime(text, 'to', 'end', NOW);
          expect(start).toBe(new Date(year, month - 1, day).getTime());
          expect(end + 1).toBe(new Date(year, month - 1, day + 1).getTime());
          // A day is 24 hours, or between 23 and 25 on a day the clocks change.
          expect(end + 1 - start).toBeGreaterThanOrEqual(23 * HOUR);
          expect(end + 1 - start).toBeLessThanOrEqual(25 * HOUR);
          // Every instant of the day lies inside [start, end].
          expect(new Date(start).getDate()).toBe(day);
          expect(new Date(end).getDate()).toBe(day);
        },
      ),
    );
  });

  it('reads today and yesterday in the local time zone', () => {
    const today = new Date(NOW);
    const start = new Date(today.getFullYear(), today.getMonth(), today.getDate()).getTime();
    expect(parseTime('today', 'from', 'start', NOW)).toBe(start);
    expect(parseTime('Yesterday', 'from', 'start', NOW)).toBe(
      new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1).getTime(),
    );
    expect(parseTime('yesterday', 'to', 'end', NOW)).toBe(start - 1);
    expect(parseTime('today', 'to', 'end', NOW)).toBeGreaterThan(NOW);
  });

  it('reads ISO times with offsets, without seconds and without a zone (local)', () => {
    expect(parseTime('2026-01-31T12:00:00+02:00', 'from', 'start', NOW)).toBe(
      Date.UTC(2026, 0, 31, 10),
    );
    expect(parseTime('2026-01-31T12:00Z', 'from', 'start', NOW)).toBe(Date.UTC(2026, 0, 31, 12));
    expect(parseTime('2026-01-31 12:00', 'from', 'start', NOW)).toBe(
      new Date(2026, 0, 31, 12).getTime(),
    );
    expect(parseTimeIso('2026-01-31T12:00:00.5Z', 'from', 'start', NOW)).toBe(
      '2026-01-31T12:00:00.500Z',
    );
  });

  it('refuses anything else, naming the option, the value and the forms (property)', () => {
    for (const raw of [
      '',
      'soon',
      '2h later',
      '-5',
      '1.5h',
      '2026-02-30',
      '2026-13-01',
      '2026-01-31T25:00:00Z',
      '31/01/2026',
      '99999999999999999',
    ]) {
      const error = refusal(raw);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(`--from ${JSON.stringify(raw)}`);
      expect(error.message).toMatch(/ISO date or time.*2h.*yesterday.*epoch milliseconds/);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (raw) => {
        let result: number | undefined;
        try {
          result = parseTime(raw, 'from', 'start', NOW);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          return;
        }
        expect(Number.isFinite(result)).toBe(true);
      }),
    );
  });
});
