// The safe parses refuse what JSON.parse would silently change (a key given twice keeps only its
// last value) or what later recursion would crash on (8000 nested arrays): both safeJsonParse and
// parseJsonExact, on its fast path (JSON.parse, then the scanner) and on its own parser.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonExact, safeParseJsonExact } from './exact-json.js';
import { safeJsonParse } from './json.js';
import { findJsonShapeProblem, MAX_JSON_DEPTH } from './json-shape.js';

/** Writes a key with some of its characters escaped as \uXXXX (the same key to JSON.parse). */
function escapedKey(key: string, mask: readonly boolean[]): string {
  let text = '"';
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    text +=
      mask[index % Math.max(mask.length, 1)] === true
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : JSON.stringify(key[index]).slice(1, -1);
  }
  return `${text}"`;
}

/** Every object in `value` (depth first), with the path to it. */
function objectsOf(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  const children = Object.values(value).flatMap(objectsOf);
  return Array.isArray(value) ? children : [value, ...children];
}

/** `value` as JSON text, with a copy of one key of object number `target` added at its end. */
function withDuplicate(
  value: unknown,
  target: number,
  mask: readonly boolean[],
): { text: string; key: string } | null {
  let seen = 0;
  let key: string | null = null;
  const write = (node: unknown): string => {
    if (typeof node !== 'object' || node === null) return JSON.stringify(node);
    if (Array.isArray(node)) return `[${node.map(write).join(',')}]`;
    const entries = Object.entries(node);
    const mine = seen++ === target && entries.length > 0;
    const parts = entries.map(([name, item]) => `${JSON.stringify(name)}:${write(item)}`);
    if (mine) {
      const [name] = entries[0] as [string, unknown];
      key = name;
      parts.push(`${escapedKey(name, mask)}:0`);
    }
    return `{${parts.join(',')}}`;
  };
  const text = write(value);
  return key === null ? null : { text, key };
}

const json = fc.jsonValue({ maxDepth: 5 });

describe('findJsonShapeProblem', () => {
  it('property: no problem, and the same value as JSON.parse, on every text JSON.stringify writes', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, undefined, pretty ? 2 : undefined);
        expect(findJsonShapeProblem(text)).toBeNull();
        expect(safeJsonParse(text)).toEqual({ success: true, value: JSON.parse(text) });
        // Its values (bigints beyond 2^53) are checked against JSON.parse in exact-json.test.ts.
        expect(safeParseJsonExact(text).success).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('property: a key given twice in any object at any depth is found and named, even written with escapes', () => {
    fc.assert(
      fc.property(
        json.filter((value) =>
          objectsOf(value).some((node) => Object.keys(node as object).length > 0),
        ),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
        (value, pick, mask) => {
          const objects = objectsOf(value);
          const candidates = objects
            .map((node, index) => ({ node, index }))
            .filter(({ node }) => Object.keys(node as object).length > 0);
          const target = candidates[pick % candidates.length]?.index as number;
          const built = withDuplicate(value, target, mask);
          if (built === null) return;
          const problem = findJsonShapeProblem(built.text);
          expect(problem?.message).toContain('appears twice');
          const failure = safeJsonParse(built.text);
          expect(failure.success).toBe(false);
          // Another duplicate may come first in the text; the first one is named.
          expect(() => parseJsonExact(built.text)).toThrow(/appears twice/);
          // A copy added to an escape-free text is the only duplicate, so its key is named.
          if (findJsonShapeProblem(JSON.stringify(value)) === null) {
            expect(problem?.message).toContain(
              `the key ${JSON.stringify(built.key)} appears twice`,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('names the key and the object: {"a":1,"a":2}, "a" and "\\u0061", nested keys', () => {
    expect(safeJsonParse('{"a":1,"a":2}')).toEqual({
      success: false,
      error: expect.stringContaining(
        'the key "a" appears twice in the object at $ (the second at position 7)',
      ),
    });
    expect(safeJsonParse('{"a":1,"\\u0061":2}').success).toBe(false);
    expect(findJsonShapeProblem('{"x":[{"b":1},{"c c":{"d":1,"d":2}}]}')?.message).toContain(
      'the key "d" appears twice in the object at $.x[1]["c c"]',
    );
    // Equal keys in different objects, and a key equal to a string value, are fine.
    expect(findJsonShapeProblem('[{"a":1},{"a":2},{"b":"a","a":"b"}]')).toBeNull();
    expect(findJsonShapeProblem('{"a\\"":1,"a":2,"\\\\":3,"\\\\\\"":4}')).toBeNull();
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH}, naming where, and keeps ${MAX_JSON_DEPTH}`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    expect(safeJsonParse(nested(MAX_JSON_DEPTH)).success).toBe(true);
    expect(parseJsonExact(nested(MAX_JSON_DEPTH))).toBeDefined();
    const deep = nested(8000);
    const failure = safeJsonParse(deep);
    expect(failure).toEqual({
      success: false,
      error: expect.stringContaining(`nested more than ${MAX_JSON_DEPTH} arrays and objects deep`),
    });
    expect(failure.success === false && failure.error).toContain(`(position ${MAX_JSON_DEPTH})`);
    expect(() => parseJsonExact(deep)).toThrow(/nested more than 512/);
    // The exact parser's own path (a long number sends it there) refuses the same way.
    const deepWithBigNumber = `{"n":12345678901234567890,"x":${nested(600)}}`;
    expect(safeParseJsonExact(deepWithBigNumber)).toEqual({
      success: false,
      error: expect.stringMatching(
        /nested more than 512 arrays and objects deep at \$\.x\[0\]\[0\]\[0\]…\(504 more\)…\[0\]\[0\]\[0\]\[0\] \(position 541\)/,
      ),
    });
  });

  it("the exact parser's own path names duplicates the same way", () => {
    const text = '{"n":12345678901234567890,"o":{"k":1,"\\u006b":2}}';
    expect(safeParseJsonExact(text)).toEqual({
      success: false,
      error: expect.stringContaining(
        'the key "k" appears twice in the object at $.o (the second at position 37)',
      ),
    });
  });

  it('stops without throwing on text that is not JSON', () => {
    for (const text of ['{"a', '{"a":1,"a', '"\\', ']]]', '{{{', '']) {
      expect(() => findJsonShapeProblem(text)).not.toThrow();
    }
  });
});
