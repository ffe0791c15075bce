import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStyles, renderTable, sanitizeForTerminal, truncate, useColor } from './output.js';

function unsafe(text: string): string[] {
  return [...text].filter((character) => {
    const code = character.codePointAt(0) as number;
    return (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      (code >= 0xe0000 && code <= 0xe007f)
    );
  });
}

describe('sanitizeForTerminal', () => {
  it('makes escapes visible and keeps ordinary text', () => {
    expect(sanitizeForTerminal('a\u001b[31mb')).toBe('a\\u{1b}[31mb');
    expect(sanitizeForTerminal('line\nnext\ttab')).toBe('line next tab');
    expect(sanitizeForTerminal('evil\u202etxt.exe')).toBe('evil\\u{202e}txt.exe');
    expect(sanitizeForTerminal('naïve 日本 🙂')).toBe('naïve 日本 🙂');
  });

  it('never leaves a control, bidi or tag character (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(unsafe(sanitizeForTerminal(text))).toEqual([]);
      }),
    );
  });
});

describe('truncate', () => {
  it('shortens with an ellipsis and never splits a surrogate pair (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.integer({ min: 1, max: 30 }),
        (text, max) => {
          const result = truncate(text, max);
          expect(result.length).toBeLessThanOrEqual(Math.max(max, 1));
          expect(result.isWellFormed()).toBe(text.isWellFormed());
          if (text.length <= max) expect(result).toBe(text);
          else expect(result.endsWith('…')).toBe(true);
        },
      ),
    );
  });
});

describe('renderTable', () => {
  it('lines up columns and right-aligns numbers', () => {
    const table = renderTable(
      [
        { name: 'alpha', count: 5 },
        { name: 'b', count: 120 },
      ],
      [
        { header: 'NAME', value: (row) => row.name },
        { header: 'COUNT', value: (row) => row.count, align: 'right' },
      ],
      createStyles(false),
    );
    expect(table).toBe('NAME   COUNT\nalpha      5\nb        120\n');
  });
});

describe('useColor', () => {
  it('colours only on a terminal, and never with --no-color or NO_COLOR', () => {
    expect(useColor(true, false, {})).toBe(true);
    expect(useColor(false, false, {})).toBe(false);
    expect(useColor(true, true, {})).toBe(false);
    expect(useColor(true, false, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(true, false, { NO_COLOR: '' })).toBe(true);
    expect(useColor(false, false, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor(false, false, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor(true, false, { TERM: 'dumb' })).toBe(false);
  });
});
