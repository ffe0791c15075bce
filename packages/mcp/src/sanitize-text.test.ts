import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeText } from './sanitize-text.js';

// Pins the MCP output rule: no terminal escapes, C0/C1 controls, bidi or tag characters reach a client.
const forbidden =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: testing for control characters.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\udb40[\udc00-\udc7f]/;

describe('sanitizeText', () => {
  it('removes ANSI escapes, controls, bidi overrides and tag characters but keeps newlines and tabs', () => {
    const input =
      'ok\u001b[31mred\u001b[0m\u0007 \u202Egnp.exe\u2066x\u2069 \u{E0041}tag\tA\nB\u200B';
    expect(sanitizeText(input)).toBe('okred gnp.exex tag\tA\nB');
  });

  it('never lets a forbidden character through, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(forbidden.test(sanitizeText(text))).toBe(false);
      }),
    );
  });

  it('bounds the output and says how much was cut', () => {
    const out = sanitizeText('x'.repeat(10_000), 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out).toMatch(/truncated: \d+ more characters/);
  });

  it('does not split a surrogate pair when cutting', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 50, maxLength: 400 }),
        fc.integer({ min: 60, max: 300 }),
        (text, max) => {
          const out = sanitizeText(text, max);
          expect(out.length).toBeLessThanOrEqual(max);
          expect(out.isWellFormed()).toBe(true);
        },
      ),
    );
  });
});
