// renderTsVector's fast paths against the implementation they replaced, kept here as the
// reference model: the stored vectors (and so every PostgreSQL search answer) must not change by
// a single byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTsVector } from './search-match.js';
import { foldSearchText, searchTokens } from './search-text.js';

/** The tokens by the definition: each run of token characters and marks, folded, split again. */
function referenceTokens(text: string): string[] {
  return [...text.matchAll(/[\p{L}\p{N}\p{Co}\p{M}]+/gu)].flatMap(
    (span) => foldSearchText(span[0]).match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [],
  );
}

/** renderTsVector as it was before the one-pass ASCII path (a Map of position arrays). */
function referenceTsVector(text: string): string {
  const quote = (token: string) =>
    /['\\]/.test(token)
      ? `'${token.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
      : `'${token}'`;
  const utf8 = (token: string) => {
    let bytes = 0;
    for (let index = 0; index < token.length; index++) {
      const unit = token.charCodeAt(index);
      bytes += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 2 : 3;
    }
    return bytes;
  };
  const positions = new Map<string, number[]>();
  let bytes = 0;
  let position = 0;
  for (const token of referenceTokens(text)) {
    position = Math.min(position + 1, 16383);
    const known = positions.get(token);
    if (known !== undefined) {
      const room = known.length < 256 && bytes + 2 <= 1_000_000;
      if (room && known[known.length - 1] !== position) {
        known.push(position);
        bytes += 2;
      }
      continue;
    }
    const size = utf8(token);
    if (size >= 2046) continue;
    if (bytes + size + 12 > 1_000_000) continue;
    bytes += size + 12;
    positions.set(token, [position]);
  }
  let vector = '';
  for (const [token, at] of positions) {
    vector += `${vector === '' ? '' : ' '}${quote(token)}:${at.join(',')}`;
  }
  return vector;
}

/** Words that repeat (so positions group), with case, digits and punctuation between them. */
const word = fc.oneof(
  fc.constantFrom('the', 'The', 'THE', 'of', 'a', 'A1', '42', 'x', 'run', 'Run-id', "it's"),
  fc.string({ unit: fc.constantFrom(...'abcAB01'.split('')), minLength: 1, maxLength: 4 }),
);
const separator = fc.constantFrom(' ', ', ', '\n', '.', '-', '"', '\\', "'", ':', '\t', '  ');
const prose = fc
  .array(fc.tuple(word, separator), { maxLength: 120 })
  .map((pairs) => pairs.map(([each, between]) => each + between).join(''));
const unicodeWord = fc.oneof(
  word,
  fc.constantFrom(
    'café',
    'CAFÉ',
    'e\u0301',
    'İstanbul',
    'ΣΊΣΥΦΟΣ',
    'straße',
    '東京',
    'данные',
    'ǅ',
    '٣',
    'ﬁle',
    '\u200b',
    '\uE000',
    '🎉',
    '\uD800',
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }),
);
const unicodeProse = fc
  .array(fc.tuple(unicodeWord, separator), { maxLength: 80 })
  .map((pairs) => pairs.map(([each, between]) => each + between).join(''));

describe('renderTsVector against the implementation it replaced', () => {
  it('gives the same vector for ASCII prose, any ASCII and any string (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          prose,
          fc.string({ unit: 'binary-ascii', maxLength: 200 }),
          fc.string({ maxLength: 100 }),
          fc.string({ unit: 'binary', maxLength: 100 }),
        ),
        (text) => {
          expect(renderTsVector(text)).toBe(referenceTsVector(text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('gives the same vector for unicode-heavy text, twice over (property)', () => {
    fc.assert(
      fc.property(unicodeProse, (text) => {
        const expected = referenceTsVector(text);
        expect(renderTsVector(text)).toBe(expected);
        // The second time the non-ASCII runs' tokens are remembered ones: still the same.
        expect(renderTsVector(text)).toBe(expected);
        expect(searchTokens(text)).toEqual(referenceTokens(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the same vector at PostgreSQL's limits (long tokens, positions, the 1 MB budget)", () => {
    const texts = [
      `short ${'x'.repeat(3000)} end ${'x'.repeat(3000)} short`,
      `${'a'.repeat(2045)} ${'a'.repeat(2046)} ${'a'.repeat(2045)}`,
      'w '.repeat(20_000),
      'W, w; '.repeat(300),
      Array.from({ length: 17_000 }, (_, index) => `t${index % 9000}`).join(' '),
      Array.from({ length: 2000 }, (_, index) => `${index}${'y'.repeat(1000)}`).join(' '),
      // Past the budget, known tokens still gain positions until the budget ends.
      Array.from({ length: 1100 }, (_, index) => `${index}${'z'.repeat(900)} k k`).join(' '),
      // A text whose table outgrows the shared one (more than 65,536 code units).
      Array.from({ length: 20_000 }, (_, index) => `v${index % 5000}`).join(' '),
      `é ${Array.from({ length: 2000 }, (_, index) => `${index}${'ÿ'.repeat(600)}`).join(' ')}`,
    ];
    for (const text of texts) expect(renderTsVector(text)).toBe(referenceTsVector(text));
  });

  it('gives the same vector whichever text came before (the shared table is reset per call)', () => {
    const texts = fc.sample(fc.oneof(prose, unicodeProse), { numRuns: 200, seed: 11 });
    const alone = texts.map(referenceTsVector);
    // Interleaved with long texts that grow the shared table, then short ones again.
    texts.forEach((text, index) => {
      if (index % 50 === 0) renderTsVector('q '.repeat(5000 + index));
      expect(renderTsVector(text)).toBe(alone[index]);
    });
  });
});
