import { textLines } from '@episodic/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bufferLines } from './sqlite-session-store.js';

describe('bufferLines', () => {
  it('gives the lines textLines gives for the same text, whatever the characters', () => {
    const line = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .map((text) => text.replaceAll('\n', ''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.boolean(), (lines, trailing) => {
        const text = lines.join('\n') + (trailing && lines.length > 0 ? '\n' : '');
        expect([...bufferLines(Buffer.from(text, 'utf8'))]).toEqual([...textLines(text)]);
      }),
      { numRuns: 500 },
    );
  });

  it('gives nothing for no bytes, and a last line without its newline', () => {
    expect([...bufferLines(Buffer.alloc(0))]).toEqual([]);
    expect([...bufferLines(Buffer.from('a\n€\nlast'))]).toEqual(['a', '€', 'last']);
  });
});
