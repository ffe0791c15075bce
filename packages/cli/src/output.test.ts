import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createStyles,
  fitColumnWidths,
  renderTable,
  sanitizeForTerminal,
  truncate,
  useColor,
} from './output.js';

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

describe('tables that fit the terminal', () => {
  const rows = [
    { id: '0f0e0d0c-0b0a-4908-8706-000000000003', status: 'error', text: 'x'.repeat(50) },
    { id: '0f0e0d0c-0b0a-4908-8706-000000000002', status: 'completed', text: 'short' },
  ];
  const columns = [
    { header: 'RUN', value: (row: (typeof rows)[number]) => row.id, fixed: true },
    { header: 'STATUS', value: (row: (typeof rows)[number]) => row.status },
    { header: 'SUMMARY', value: (row: (typeof rows)[number]) => row.text },
  ];

  it('cuts the widest shrinkable column with an ellipsis and keeps fixed columns whole', () => {
    const table = renderTable(rows, columns, createStyles(false, 60));
    for (const line of table.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    expect(table).toContain(rows[0]?.id);
    expect(table).toContain(`${'x'.repeat(10)}…`);
    expect(table).toContain('completed');
    // Without a width (a pipe), nothing is cut.
    expect(renderTable(rows, columns, createStyles(false))).toContain('x'.repeat(50));
  });

  it('colours a cell without breaking the alignment', () => {
    const styled = renderTable(
      rows,
      [{ header: 'STATUS', value: (row) => row.status, style: (text) => `<${text}>` }],
      createStyles(false),
    );
    expect(styled).toBe('STATUS\n<error>\n<completed>\n');
  });

  it('fits every width it can, never below the minimums (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            natural: fc.integer({ min: 1, max: 80 }),
            minimum: fc.integer({ min: 1, max: 10 }),
            fixed: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 10, max: 200 }),
        (specs, width) => {
          const natural = specs.map((spec) => spec.natural);
          const minimums = specs.map((spec) => Math.min(spec.minimum, spec.natural));
          const fixed = specs.map((spec) => spec.fixed);
          const widths = fitColumnWidths(natural, minimums, fixed, width);
          const total = (values: number[]) =>
            values.reduce((sum, value) => sum + value, 0) + 2 * (values.length - 1);
          const floor = natural.map((value, index) => (fixed[index] ? value : minimums[index]));
          widths.forEach((value, index) => {
            expect(value).toBeLessThanOrEqual(natural[index] as number);
            expect(value).toBeGreaterThanOrEqual(floor[index] as number);
            if (fixed[index]) expect(value).toBe(natural[index]);
          });
          if (total(floor as number[]) <= width) expect(total(widths)).toBeLessThanOrEqual(width);
          if (total(natural) <= width) expect(widths).toEqual(natural);
        },
      ),
    );
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
