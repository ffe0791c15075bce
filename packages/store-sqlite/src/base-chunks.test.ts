import { textLines } from '@episodic/core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseChunks, chunkLines, splitBaseBytes } from './base-chunks.js';

const line = fc
  .string({ unit: 'grapheme', maxLength: 40 })
  .map((text) => text.replaceAll('\n', ''));
const bytesOf = (chunks: readonly string[]) => chunks.map((chunk) => Buffer.from(chunk, 'utf8'));
/** The lines of a base stored as these rows, read as a load reads them. */
const linesOf = (chunks: readonly Buffer[]) => [
  ...chunkLines('s', chunks[0] ?? Buffer.alloc(0), chunks.length, (chunk) => chunks[chunk]),
];

describe('baseChunks', () => {
  it('groups whole lines, each ending in a newline, and reads back as the same lines', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 120 }),
        (lines, chunkChars) => {
          const chunks = baseChunks(lines, chunkChars);
          for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true);
          expect(chunks.join('')).toBe(`${lines.join('\n')}\n`);
          expect(linesOf(bytesOf(chunks))).toEqual(lines);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives no rows for no lines, and one row per line when a line alone fills one', () => {
    expect(baseChunks([])).toEqual([]);
    expect(baseChunks(['abc', 'de', ''], 3)).toEqual(['abc\n', 'de\n', '\n']);
    expect(baseChunks(['a', 'b', 'c'], 4)).toEqual(['a\nb\n', 'c\n']);
  });
});

describe('splitBaseBytes', () => {
  it('cuts stored bytes after newlines, gives them back exactly, and the lines textLines gives', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        (lines, trailing, chunkBytes) => {
          const text = lines.join('\n') + (trailing && lines.length > 0 ? '\n' : '');
          const bytes = Buffer.from(text, 'utf8');
          const chunks = splitBaseBytes(bytes, chunkBytes);
          expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
          for (const chunk of chunks.slice(0, -1)) expect(chunk.at(-1)).toBe(0x0a);
          expect(linesOf(chunks)).toEqual([...textLines(text)]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps bytes that are not UTF-8 as they are', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x0a, 0xc3, 0x28, 0x0a, 0x7d]);
    expect(Buffer.concat(splitBaseBytes(bytes, 1)).equals(bytes)).toBe(true);
    expect(splitBaseBytes(bytes, 1).map((chunk) => chunk.length)).toEqual([3, 3, 1]);
  });
});

describe('chunkLines', () => {
  it('gives nothing for no rows, and a last line without its newline', () => {
    expect(linesOf([])).toEqual([]);
    expect(linesOf([Buffer.alloc(0), Buffer.from('a\n€\n'), Buffer.from('last')])).toEqual([
      'a',
      '€',
      'last',
    ]);
  });

  it('reads each later row once, when the one before is used up, and never after the last', () => {
    const rows = bytesOf(['a\nb\n', 'c\n', 'd\n']);
    const reads: number[] = [];
    const lines = chunkLines('s', rows[0] as Buffer, rows.length, (chunk) => {
      reads.push(chunk);
      return rows[chunk];
    })[Symbol.iterator]();
    expect([lines.next().value, lines.next().value]).toEqual(['a', 'b']);
    expect(reads).toEqual([]);
    expect(lines.next().value).toBe('c');
    expect(reads).toEqual([1]);
    expect([lines.next().value, lines.next().done]).toEqual(['d', true]);
    expect(reads).toEqual([1, 2]);
  });

  it('says CONFLICT when a later row is gone (the base was replaced), never a line of another', () => {
    const lines = chunkLines(
      '6a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
      Buffer.from('a\n'),
      2,
      () => undefined,
    )[Symbol.iterator]();
    expect(lines.next().value).toBe('a');
    expect(() => lines.next()).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        message: expect.stringContaining(
          'was replaced (by a fold or a save) while it was being read',
        ),
      }),
    );
  });
});
