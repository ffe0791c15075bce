import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/episodic-error.js';
import { createLedger } from '../store/ledger-store.js';
import { createMemoryLedger, createMemoryLedgerAdapter } from '../store/memory-ledger.js';
import { parseSearchText, renderFts5Match, renderTsQuery, renderTsVector } from './search-match.js';
import { decodeSearchCursor, encodeSearchCursor } from './search-query.js';
import { searchSnippet } from './search-rank.js';
import {
  foldSearchText,
  searchTextOfLedgerRow,
  searchTokenSpans,
  searchTokens,
} from './search-text.js';

const hostileAlphabet = fc.constantFrom(
  ...'"\'*^:()-+{}[],.;\\/|&!<>~@#$%_ \t\n\u0000NEARANDORNOTnearandornot abcxyz09ÉéüßΣσ東京🎉\u0301\u200b'.split(
    '',
  ),
  ' NEAR(',
  ' AND ',
  ' OR ',
  ' NOT ',
  'col:',
  '<->',
);
const hostileText = fc.oneof(
  fc.string({ unit: hostileAlphabet, maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
);

describe('parseSearchText', () => {
  it('makes terms and phrases of folded letters and digits; everything else is a separator', () => {
    expect(parseSearchText('Billing "Service Down" foo-bar NEAR(a b) x* ^y col:z')).toEqual({
      phrases: [
        { tokens: ['billing'] },
        { tokens: ['service', 'down'] },
        { tokens: ['foo', 'bar'] },
        { tokens: ['near', 'a'] },
        { tokens: ['b'] },
        { tokens: ['x'] },
        { tokens: ['y'] },
        { tokens: ['col', 'z'] },
      ],
    });
    // An unbalanced quote runs to the end; repeated clauses count once.
    expect(parseSearchText('a "b c').phrases).toEqual([{ tokens: ['a'] }, { tokens: ['b', 'c'] }]);
    expect(parseSearchText('a A á').phrases).toEqual([{ tokens: ['a'] }]);
    expect(renderFts5Match(parseSearchText('"and or" NOT'))).toBe('"and or" "not"');
  });

  it('refuses text with no word, or too many clauses, naming the field and the fix', () => {
    for (const text of ['***', '""', '   ', '^ : ( )']) {
      const error = (() => {
        try {
          parseSearchText(text);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
      expect((error as Error).message).toMatch(/text.*no word/s);
    }
    const many = Array.from({ length: 17 }, (_, index) => `w${index}`).join(' ');
    expect(() => parseSearchText(many)).toThrow(/more than 16/);
  });

  it('never yields FTS5 syntax for any text (property)', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        let match: ReturnType<typeof parseSearchText>;
        try {
          match = parseSearchText(text);
        } catch (error) {
          expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
          return;
        }
        for (const phrase of match.phrases) {
          expect(phrase.tokens.length).toBeGreaterThan(0);
          for (const token of phrase.tokens) expect(token).toMatch(/^[\p{L}\p{N}\p{Co}]+$/u);
        }
        // Only quoted strings joined by spaces: no bareword, operator, column or prefix.
        expect(renderFts5Match(match)).toMatch(
          /^"[\p{L}\p{N}\p{Co} ]+"( "[\p{L}\p{N}\p{Co} ]+")*$/u,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('memory search never throws but VALIDATION_ERROR, and finds only events holding every word (property)', async () => {
    const ledger = createMemoryLedger();
    const texts = fc.sample(hostileText, { numRuns: 60, seed: 7 });
    await ledger.appendBatch(
      texts.map((summary, index) => ({
        event_id: `e${index}`,
        scope: 'p',
        session_id: 's',
        agent_id: 'a',
        type: 'conversation.user' as const,
        summary: summary.replaceAll('\u0000', ' ') || 'empty',
        ts_ms: 1 + index,
      })),
      { redact: true },
    );
    const stored = new Map(
      (await ledger.query({ scope: 'p', limit: 500, includePayload: true })).events.map((event) => [
        event.event_id,
        new Set(searchTokens(searchTextOfLedgerRow({ summary: event.summary }))),
      ]),
    );
    let found = 0;
    // Half the queries are stored texts (or pieces of them), so many find something.
    const queries = fc.oneof(
      hostileText,
      fc
        .tuple(fc.constantFrom(...texts), fc.nat(), fc.nat())
        .map(([text, a, b]) =>
          text.slice(Math.min(a, b) % (text.length + 1), Math.max(a, b) % (text.length + 1)),
        ),
    );
    await fc.assert(
      fc.asyncProperty(queries, async (text) => {
        let hits: readonly { event_id: string }[];
        try {
          hits = (await ledger.search({ scope: 'p', text: text.slice(0, 500), limit: 100 })).hits;
        } catch (error) {
          expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
          return;
        }
        const words = searchTokens(text.slice(0, 500));
        found += hits.length;
        for (const hit of hits) {
          for (const word of words) expect(stored.get(hit.event_id)?.has(word)).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );
    expect(found).toBeGreaterThan(100);
  });
});

describe('searchTextOfLedgerRow', () => {
  it('is the summary, then the string leaves of payload and refs; keys, numbers and metadata are not text', () => {
    expect(
      searchTextOfLedgerRow({
        summary: 'sum',
        payload_json: JSON.stringify({ key: 'v1', list: ['v2', 3, true, { deep: 'v3' }], n: 4 }),
        refs_json: JSON.stringify({ record_ref: 'obs:42' }),
      }),
    ).toBe('sum\nv1\nv2\nv3\nobs:42');
    expect(
      searchTextOfLedgerRow({
        summary: '[REDACTED]',
        payload_json: '"[REDACTED]"',
        refs_json: null,
      }),
    ).toBe('[REDACTED]\n[REDACTED]');
    // Text another tool stored that is not JSON is still searchable text.
    expect(searchTextOfLedgerRow({ summary: 's', payload_json: 'not json', refs_json: null })).toBe(
      's\nnot json',
    );
  });
});

describe('search cursors', () => {
  it('round-trip, and anything else is a VALIDATION_ERROR naming the cursor', () => {
    const after = { score: 0.1 + 0.2, sequence: 42 };
    expect(decodeSearchCursor(encodeSearchCursor(after))).toEqual(after);
    for (const bad of [
      'x',
      's1.',
      's1.!!',
      `s1.${btoa('[1]')}`,
      `s1.${btoa('["a",1]')}`,
      `s1.${btoa('[1,-1]')}`,
    ]) {
      expect(() => decodeSearchCursor(bad)).toThrow(/cursor/);
    }
  });
});

describe('Ledger.search without an index', () => {
  it('is UNSUPPORTED with a fix, after validating the input', async () => {
    const { search: _search, ...adapter } = createMemoryLedgerAdapter();
    const ledger = createLedger({
      ...adapter,
      capabilities: { ...adapter.capabilities, search: false },
    });
    await expect(ledger.search({ scope: 'p', text: '' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(ledger.search({ scope: 'p', text: 'x' })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringMatching(/keeps no search index.*query\(\)/),
    });
  });
});

describe('PostgreSQL renderings (tsquery, tsvector)', () => {
  it('renders phrases as followed-by chains joined by AND, operators as quoted words', () => {
    expect(renderTsQuery(parseSearchText('"billing service" Café'))).toBe(
      "('billing' <-> 'service') & ('cafe')",
    );
    expect(renderTsQuery(parseSearchText('a & !b <-> c:*'))).toBe("('a') & ('b') & ('c')");
    expect(renderTsQuery(parseSearchText('"and or" NOT'))).toBe("('and' <-> 'or') & ('not')");
  });

  it('never yields tsquery syntax for any text (property)', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        let match: ReturnType<typeof parseSearchText>;
        try {
          match = parseSearchText(text);
        } catch (error) {
          expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
          return;
        }
        const phrase = "\\('[\\p{L}\\p{N}\\p{Co}]+'( <-> '[\\p{L}\\p{N}\\p{Co}]+')*\\)";
        expect(renderTsQuery(match)).toMatch(new RegExp(`^${phrase}( & ${phrase})*$`, 'u'));
      }),
      { numRuns: 3000 },
    );
  });

  it('a tsvector holds core tokens with their positions, folded, each token once', () => {
    expect(renderTsVector('Café café, CAFE-bar 42')).toBe("'cafe':1,2,3 'bar':4 '42':5");
    expect(renderTsVector('')).toBe('');
    expect(renderTsVector('*** ---')).toBe('');
    // Quotes and backslashes are separators, never inside a lexeme.
    expect(renderTsVector("it's a\\b")).toBe("'it':1 's':2 'a':3 'b':4");
  });

  it('leaves out what PostgreSQL cannot hold: huge tokens, positions past 16383, 257th position', () => {
    expect(renderTsVector(`short ${'x'.repeat(3000)} end`)).toBe("'short':1 'end':3");
    const many = renderTsVector('w '.repeat(20_000));
    expect(many.split(',')).toHaveLength(256);
    const long = renderTsVector(
      `${Array.from({ length: 17_000 }, (_, index) => `t${index}`).join(' ')}`,
    );
    expect(long).toContain("'t16382':16383 't16383':16383");
    expect(long).not.toContain(':16384');
    // Under the 1 MB limit even for a text of many distinct long tokens.
    const wide = renderTsVector(
      Array.from({ length: 2000 }, (_, index) => `${index}${'y'.repeat(1000)}`).join(' '),
    );
    expect(new TextEncoder().encode(wide).length).toBeLessThan(1_048_575);
  });
});

describe('searchTokens', () => {
  it("ASCII text's fast path gives the tokens of the general path (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (text) => {
        const general = searchTokenSpans(text).map((each) => each.token);
        expect(searchTokens(text)).toEqual(general);
        // The general path over the same text with one non-ASCII character appended.
        expect(searchTokens(`${text} é`)).toEqual([...general, 'e']);
      }),
      { numRuns: 2000 },
    );
  });

  it("mixed text's ASCII runs give the tokens of the general path (property)", () => {
    const unit = fc.oneof(
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 3 }),
      fc.constantFrom(
        'é',
        'É',
        'e\u0301',
        'İ',
        'Σ',
        'ς',
        'ß',
        '東京',
        'данные',
        'ǅ',
        '٣',
        '\u200b',
        '\uE000',
        '🎉',
      ),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = units.join('');
        expect(searchTokens(text)).toEqual(searchTokenSpans(text).map((each) => each.token));
        // The general fold of each run, written out: the reference both paths must give.
        const reference = [...text.matchAll(/[\p{L}\p{N}\p{Co}\p{M}]+/gu)].flatMap((span) =>
          (foldSearchText(span[0]).match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []).map((token) => ({
            token,
            start: span.index,
            end: span.index + span[0].length,
          })),
        );
        expect(searchTokenSpans(text)).toEqual(reference);
        expect(searchTokens(text)).toEqual(reference.map((each) => each.token));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('searchSnippet', () => {
  it('marks each phrase occurrence as one span, as the memory ledger does', () => {
    expect(searchSnippet('outage outage outage', parseSearchText('outage'))).toBe(
      '«outage» «outage» «outage»',
    );
    expect(searchSnippet('reported by the pager at night', parseSearchText('"the pager"'))).toBe(
      'reported by «the pager» at night',
    );
    expect(searchSnippet('un café latte', parseSearchText('CAFE'))).toBe('un «café» latte');
    expect(searchSnippet('', parseSearchText('x'))).toBe('');
    expect(searchSnippet('no match here', parseSearchText('zzz'))).toBe('no match here');
  });
});
