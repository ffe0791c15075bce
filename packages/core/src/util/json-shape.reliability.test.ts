// Pins "no silent change of a JSON value on its way in" (issue 29 item 5): two independent checks
// of a JSON text's shape must agree on every text, the text scanner behind `safeJsonParse` (after
// JSON.parse) and the exact parser behind `parseJsonExact` (which builds the value; a big integer
// sends a text there). On texts with whitespace, escaped keys and a key repeated in a random
// object, both name the same key; on nesting from 400 to 700 levels, both refuse exactly above 512.
// 300 cases per property per `pnpm test`; RELIABILITY_FULL=1 runs 5,000. The seed is printed and
// replayable (FC_SEED).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeParseJsonExact } from './exact-json.js';
import { safeJsonParse } from './json.js';
import { MAX_JSON_DEPTH } from './json-shape.js';

const FULL = process.env.RELIABILITY_FULL === '1';

function parameters(label: string): { numRuns: number; seed: number } {
  const numRuns = FULL ? 5_000 : 300;
  const given = process.env.FC_SEED;
  const seed = given ? Number(given) : (Math.random() * 0x7fffffff) | 0;
  console.log(`[fast-check] ${label}: seed ${seed}, ${numRuns} runs (replay: FC_SEED=${seed})`);
  return { numRuns, seed };
}

/** A JSON text of `value` with random whitespace, random key escapes, and maybe a repeated key. */
function write(value: unknown, random: () => number, repeatAt: number): string {
  let objects = 0;
  const space = () => [' ', '', '\n', '\t', ''][Math.floor(random() * 5)] as string;
  const key = (name: string) =>
    random() < 0.3
      ? `"${[...name].map((character) => `\\u${(character.codePointAt(0) as number).toString(16).padStart(4, '0')}`).join('')}"`
      : JSON.stringify(name);
  const visit = (node: unknown): string => {
    if (typeof node !== 'object' || node === null) return JSON.stringify(node);
    if (Array.isArray(node)) return `[${space()}${node.map(visit).join(`,${space()}`)}${space()}]`;
    const entries = Object.entries(node);
    const parts = entries.map(([name, item]) => `${key(name)}${space()}:${space()}${visit(item)}`);
    if (objects++ === repeatAt && entries.length > 0) {
      const [name] = entries[Math.floor(random() * entries.length)] as [string, unknown];
      parts.splice(Math.floor(random() * (parts.length + 1)), 0, `${key(name)}:null`);
    }
    return `{${space()}${parts.join(`,${space()}`)}${space()}}`;
  };
  return visit(value);
}

/** The key a refusal names, or null when the text was accepted. */
function namedKey(result: { success: boolean; error?: string }): string | null {
  if (result.success) return null;
  return /the key ("(?:[^"\\]|\\.)*") appears twice/.exec(result.error ?? '')?.[1] ?? 'other';
}

describe('the two checks of a JSON text agree', () => {
  it('on repeated keys: the scanner and the exact parser name the same key, or accept', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: -1, max: 8 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })),
        (value, repeatAt, stream) => {
          const iterator = stream[Symbol.iterator]();
          const random = () => iterator.next().value as number;
          const text = write(value, random, repeatAt);
          const scanned = namedKey(safeJsonParse(text) as { success: boolean; error?: string });
          const parsed = namedKey(
            safeParseJsonExact(`[12345678901234567890,${text}]`) as {
              success: boolean;
              error?: string;
            },
          );
          expect(scanned).toBe(parsed);
          if (scanned === null)
            expect(safeJsonParse(text)).toEqual({ success: true, value: JSON.parse(text) });
        },
      ),
      parameters('repeated keys'),
    );
  });

  it(`on nesting: both refuse exactly above ${MAX_JSON_DEPTH} levels`, () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 400, maxLength: 700 }), (levels) => {
        const open = levels.map((object) => (object ? '{"k":' : '[')).join('');
        const close = levels
          .map((object) => (object ? '}' : ']'))
          .reverse()
          .join('');
        const text = `${open}1${close}`;
        const tooDeep = levels.length > MAX_JSON_DEPTH;
        expect(safeJsonParse(text).success).toBe(!tooDeep);
        const exact = safeParseJsonExact(`{"n":12345678901234567890,"v":${text}}`);
        // Wrapped one level deeper.
        expect(exact.success).toBe(levels.length + 1 <= MAX_JSON_DEPTH);
      }),
      parameters('nesting'),
    );
  });
});
