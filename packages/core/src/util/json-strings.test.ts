import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { rewriteJsonStrings } from './json-strings.js';
import { utf8ByteLength } from './utf8.js';

/** The reference: the same rewrite over the parsed value (array items carry their parent's key). */
function rewriteValue(
  node: unknown,
  key: string | undefined,
  replace: (value: string, key: string | undefined) => string,
): unknown {
  if (typeof node === 'string') return replace(node, key);
  if (Array.isArray(node)) return node.map((item) => rewriteValue(item, key, replace));
  if (typeof node === 'object' && node !== null) {
    return Object.fromEntries(
      Object.entries(node).map(([entryKey, value]) => [
        entryKey,
        rewriteValue(value, entryKey, replace),
      ]),
    );
  }
  return node;
}

/** JSON text of `value`, with whitespace of random widths (what other writers may produce). */
const jsonText = fc
  .tuple(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 0, 1, 2, '\t'))
  .map(([value, space]) => JSON.stringify(value, null, space));

describe('rewriteJsonStrings', () => {
  test.prop([jsonText])('keeps the text byte for byte when no string changes', (text) => {
    expect(rewriteJsonStrings(text, (value) => value)).toBe(text);
  });

  test.prop([jsonText])(
    'rewrites exactly the string values, with the key each belongs to',
    (text) => {
      const replace = (value: string, key: string | undefined) => `${key ?? '-'}:${value.length}`;
      const rewritten = rewriteJsonStrings(text, replace);
      expect(JSON.parse(rewritten)).toEqual(rewriteValue(JSON.parse(text), undefined, replace));
    },
  );

  test.prop([jsonText])('reports the stored size of each string, quotes included', (text) => {
    const sizes: number[] = [];
    rewriteJsonStrings(text, (value, _key, encodedBytes) => {
      sizes.push(encodedBytes);
      return value;
    });
    const expected: number[] = [];
    rewriteValue(JSON.parse(text), undefined, (value) => {
      expected.push(utf8ByteLength(JSON.stringify(value)));
      return value;
    });
    // JSON.stringify writes the shortest escapes, so a stored string is never smaller.
    expect(sizes).toHaveLength(expected.length);
    for (const [index, size] of sizes.entries()) {
      expect(size).toBeGreaterThanOrEqual(expected[index] as number);
    }
  });

  it('never rounds a number, reorders keys or touches escapes of unchanged strings', () => {
    const text = '{"z":12345678901234567890,"a":"\\u00e9t\\u00e9","secret":"AKIA","n":1e2}';
    const rewritten = rewriteJsonStrings(text, (value, key) => (key === 'secret' ? 'X' : value));
    expect(rewritten).toBe('{"z":12345678901234567890,"a":"\\u00e9t\\u00e9","secret":"X","n":1e2}');
  });

  it('gives array items their array’s key, and a top-level string none', () => {
    const keys: Array<string | undefined> = [];
    rewriteJsonStrings('{"tags":["a",{"b":"c"}],"d":"e"}', (value, key) => {
      keys.push(key);
      return value;
    });
    expect(keys).toEqual(['tags', 'b', 'd']);
    expect(rewriteJsonStrings('"top"', (_value, key) => String(key))).toBe('"undefined"');
  });
});
