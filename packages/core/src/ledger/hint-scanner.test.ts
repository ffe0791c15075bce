// The one-pass scanner replaces per-rule hint calls on the guard's hot path, so it must agree with
// every hint function exactly: a scanner that misses a hint would let a secret through.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from './content-guard.js';
import { type ContentRule, DEFAULT_CONTENT_RULES, hintSpecOf } from './content-rules.js';
import { createHintScanner } from './hint-scanner.js';

const fragments = DEFAULT_CONTENT_RULES.flatMap((rule) => {
  const spec = rule.hint === undefined ? undefined : hintSpecOf(rule.hint);
  const pieces = [...(spec?.literals ?? []), ...(spec?.words ?? [])];
  // Halves and case variants, so texts hold near misses and matches split across fragments.
  return pieces.flatMap((piece) => [
    piece,
    piece.toUpperCase(),
    piece.slice(0, Math.ceil(piece.length / 2)),
    piece.slice(Math.ceil(piece.length / 2)),
    piece.charAt(0).toUpperCase() + piece.slice(1),
  ]);
});
const oddCharacters = [
  'ſ',
  'K',
  'İ',
  'ı',
  '東',
  '\u0000',
  '\n',
  ' ',
  '0',
  '12',
  '345',
  '+',
  '\u001b',
];

const textArbitrary = fc
  .array(
    fc.oneof(
      fc.constantFrom(...fragments),
      fc.constantFrom(...oddCharacters),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('createHintScanner', () => {
  const scanner = createHintScanner(DEFAULT_CONTENT_RULES);

  it('covers every default rule that has a hint', () => {
    DEFAULT_CONTENT_RULES.forEach((rule, index) => {
      expect(scanner.covered[index], rule.id).toBe(rule.hint === undefined ? 0 : 1);
    });
  });

  it('agrees with every default hint function on arbitrary text (property)', () => {
    fc.assert(
      fc.property(textArbitrary, (text) => {
        const found = scanner.scan(text) ?? new Uint8Array(DEFAULT_CONTENT_RULES.length);
        DEFAULT_CONTENT_RULES.forEach((rule, index) => {
          if (rule.hint === undefined) return;
          expect(found[index] === 1, `${rule.id} on ${JSON.stringify(text)}`).toBe(rule.hint(text));
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees at the edges: matches at the start and end, case variants, digit runs', () => {
    const texts = [
      'sk-',
      'xsk-',
      'gh',
      'Password',
      'PASSWORD',
      'pAsS',
      'ſecret',
      'Kelvin Key',
      'tel 12',
      'tel 123',
      '1 2 3',
      'look at the logs',
      'Traceback',
      'DocType',
      '<!doctype',
      'please IGNORE that',
      'a\u001bb',
      '@',
      'x+y',
      '',
      'ab',
    ];
    for (const text of texts) {
      const found = scanner.scan(text) ?? new Uint8Array(DEFAULT_CONTENT_RULES.length);
      DEFAULT_CONTENT_RULES.forEach((rule, index) => {
        if (rule.hint !== undefined)
          expect(found[index] === 1, `${rule.id} on ${text}`).toBe(rule.hint(text));
      });
    }
  });

  it('answers null exactly when no hint holds', () => {
    fc.assert(
      fc.property(textArbitrary, (text) => {
        const anyHint = DEFAULT_CONTENT_RULES.some((rule) => rule.hint?.(text) === true);
        expect(scanner.scan(text) !== null).toBe(anyHint);
      }),
      { numRuns: 1000 },
    );
    expect(scanner.coversAll).toBe(true);
  });

  it('leaves a rule with its own hint function to that function', () => {
    let calls = 0;
    const custom: ContentRule = {
      id: 'ticket',
      kind: 'pii',
      description: 'a ticket number',
      pattern: /TICKET-[0-9]+/g,
      hint: (text) => {
        calls++;
        return text.includes('TICKET-');
      },
    };
    const rules = [...DEFAULT_CONTENT_RULES, custom];
    expect(createHintScanner(rules).covered[rules.length - 1]).toBe(0);
    expect(createHintScanner(rules).coversAll).toBe(false);
    expect(scanText('see TICKET-42 now', { rules })).toEqual(['ticket']);
    expect(scanText('nothing here', { rules })).toEqual([]);
    expect(calls).toBe(2);
  });
});
