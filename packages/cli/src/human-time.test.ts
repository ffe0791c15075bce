import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localAndRelative, localTime, relativeTime } from './human-time.js';

const NOW = Date.UTC(2026, 10, 24, 15, 30, 0, 0);

describe('relativeTime', () => {
  it('says how long ago, in the units people read at a glance', () => {
    expect(relativeTime(NOW - 10_000, NOW)).toBe('just now');
    expect(relativeTime(NOW - 90_000, NOW)).toBe('2m ago');
    expect(relativeTime(new Date(NOW - 3 * 3_600_000).toISOString(), NOW)).toBe('3h ago');
    expect(relativeTime(NOW - 49 * 3_600_000, NOW)).toBe('2d ago');
    expect(relativeTime(NOW + 5 * 60_000, NOW)).toBe('in 5m');
    expect(relativeTime(NOW - 30 * 86_400_000, NOW)).toBe(
      localTime(NOW - 30 * 86_400_000).slice(0, 10),
    );
    expect(relativeTime('not a time', NOW)).toBe('not a time');
  });

  it('never grows past a short cell, for any time (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
        const text = relativeTime(ms, NOW);
        expect(text.length).toBeLessThanOrEqual(10);
        expect(text).toMatch(/^(just now|\d+[mhd] ago|in \d+[mhd]|\d{4}-\d{2}-\d{2})$/);
      }),
    );
  });
});

describe('localTime', () => {
  it('prints the local wall-clock time', () => {
    const date = new Date(2026, 0, 31, 9, 5, 7, 42);
    expect(localTime(date.getTime())).toBe('2026-01-31 09:05:07');
    expect(localTime(date.toISOString(), { milliseconds: true })).toBe('2026-01-31 09:05:07.042');
    expect(localAndRelative(date.getTime(), date.getTime() + 7_200_000)).toBe(
      '2026-01-31 09:05:07 (2h ago)',
    );
  });
});
