import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/write-your-own-store.md shows this package: its code blocks must be excerpts of the real
// files, and its line counts must be the files' counts.
const root = join(import.meta.dirname, '..', '..', '..');
const source = join(root, 'apps', 'store-example', 'src');
const guide = readFileSync(join(root, 'docs', 'write-your-own-store.md'), 'utf8');

/** Non-blank lines that are not comments only, of the non-test `.ts` files under `paths`. */
function countLines(paths: readonly string[]): number {
  const files = paths.flatMap((path) => {
    const full = join(source, path);
    if (!statSync(full).isDirectory()) return [full];
    return readdirSync(full)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => join(full, name));
  });
  const code = (line: string) => !/^\s*($|\/\/|\/\*|\*)/.test(line);
  return files.reduce(
    (total, file) => total + readFileSync(file, 'utf8').split('\n').filter(code).length,
    0,
  );
}

const ADAPTERS = ['runs', 'sessions', 'ledger', 'artifacts'];
const GLUE = ['core-kit.ts', 'kv-stores.ts'];

describe('docs/write-your-own-store.md', () => {
  it('shows only excerpts of the example, as they are', () => {
    const blocks = [...guide.matchAll(/<!-- excerpt: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)];
    expect(blocks.length).toBeGreaterThan(5);
    for (const [, path, code] of blocks) {
      const file = readFileSync(join(root, path as string), 'utf8');
      expect(file.includes(code as string), `the excerpt of ${path} is not in it`).toBe(true);
    }
    // Every ts block is marked as an excerpt.
    expect(guide.match(/```ts\n/g)?.length).toBe(blocks.length);
  });

  it('states the line counts of the example as they are', () => {
    const row = (part: string) =>
      Number(new RegExp(`\\| \`${part}\`[^|]*\\| (\\d+) \\|`).exec(guide)?.[1]);
    for (const part of ['kv', ...ADAPTERS])
      expect(row(`src/${part}/`), part).toBe(countLines([part]));
    expect(Number(/\| `src\/core-kit\.ts`[^|]*\| (\d+) \|/.exec(guide)?.[1])).toBe(
      countLines(GLUE),
    );
    const total = countLines(['kv', ...ADAPTERS, ...GLUE]);
    expect(guide).toContain(`| **total** | **${total}** |`);
    expect(guide).toContain(
      `The four adapters take ${countLines(ADAPTERS)} lines over a key-value layer of ${countLines(['kv'])}.`,
    );
  });
});
