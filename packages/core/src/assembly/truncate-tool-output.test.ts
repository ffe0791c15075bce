import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import { truncateToolOutput } from './truncate-tool-output.js';

const markerLength = (omitted: number) => `\n\n(truncated: ${omitted} chars omitted)\n\n`.length;

describe('truncateToolOutput', () => {
  it('keeps 8,000 characters unchanged and cuts 8,001 to the first and last 4,000', () => {
    const exact = 'a'.repeat(8000);
    expect(truncateToolOutput(exact)).toEqual({ text: exact, omitted: 0 });
    const over = `${'h'.repeat(4000)}MIDDLE${'t'.repeat(4000)}`;
    expect(truncateToolOutput(over)).toEqual({
      text: `${'h'.repeat(4000)}\n\n(truncated: 6 chars omitted)\n\n${'t'.repeat(4000)}`,
      omitted: 6,
    });
  });

  it('never splits a surrogate pair at either cut', () => {
    const emoji = '😀';
    const text = `${'a'.repeat(3)}${emoji}${'b'.repeat(10)}${emoji}${'c'.repeat(2)}`;
    const { text: cut } = truncateToolOutput(text, 8);
    expect(cut.isWellFormed()).toBe(true);
    expect(cut.startsWith('aaa')).toBe(true);
    expect(cut.endsWith('cc')).toBe(true);
  });

  it('rejects bad input naming the argument', () => {
    expect(() => truncateToolOutput(42 as never)).toThrow(/text/);
    try {
      truncateToolOutput('x', 1);
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
      expect((error as Error).message).toContain('maxChars');
    }
  });

  it('bounds the length, keeps a prefix and a suffix, and counts what it omits', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 120 }),
        fc.integer({ min: 2, max: 100 }),
        (text, maxChars) => {
          const { text: result, omitted } = truncateToolOutput(text, maxChars);
          if (text.length <= maxChars) {
            expect(result).toBe(text);
            expect(omitted).toBe(0);
            return;
          }
          expect(omitted).toBeGreaterThan(0);
          expect(result.length).toBeLessThanOrEqual(maxChars + markerLength(omitted));
          expect(result.length).toBe(text.length - omitted + markerLength(omitted));
          const marker = `\n\n(truncated: ${omitted} chars omitted)\n\n`;
          const at = result.indexOf(marker);
          expect(at).toBeGreaterThanOrEqual(Math.floor(maxChars / 2) - 1);
          expect(text.startsWith(result.slice(0, at))).toBe(true);
          expect(text.endsWith(result.slice(at + marker.length))).toBe(true);
          if (text.isWellFormed()) expect(result.isWellFormed()).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('bounds the length at the default limit too', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 7990, max: 8100 }),
        fc.string({ minLength: 1, maxLength: 1 }),
        (length, unit) => {
          const text = unit.repeat(length);
          const { text: result, omitted } = truncateToolOutput(text);
          expect(result.length).toBeLessThanOrEqual(8000 + markerLength(omitted));
          expect(omitted).toBe(Math.max(0, length - 8000));
        },
      ),
      { numRuns: 50 },
    );
  });
});
