import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The memory stores are written against the public seam like any other backend: every name they
// import must be exported by `@episodic/core/adapter` or `@episodic/core` (the root). A name they
// need that neither exports is a hole in the seam a backend outside this repository would hit.

const storeDir = new URL('./', import.meta.url);
const sourceDir = new URL('../', import.meta.url);

/** The names listed by the `{ … }` blocks of `keyword { … } from '…'` statements of `text`. */
function listedNames(text: string, keyword: 'export' | 'import'): Map<string, string> {
  const names = new Map<string, string>();
  const statement = new RegExp(
    `${keyword}(?:\\s+type)?\\s*\\{([^}]*)\\}\\s*from\\s*'([^']+)'`,
    'g',
  );
  for (const [, list = '', from = ''] of text.matchAll(statement)) {
    for (const part of list.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0];
      if (name) names.set(name, from);
    }
  }
  return names;
}

const entryNames = new Set([
  ...listedNames(readFileSync(new URL('adapter.ts', sourceDir), 'utf8'), 'export').keys(),
  ...listedNames(readFileSync(new URL('index.ts', sourceDir), 'utf8'), 'export').keys(),
]);

const memoryStores = readdirSync(storeDir).filter(
  (name) => name.startsWith('memory-') && name.endsWith('.ts') && !name.endsWith('.test.ts'),
);

describe('the memory stores import only the public seam', () => {
  it('finds the memory stores and the entry points', () => {
    expect(memoryStores).toEqual(
      expect.arrayContaining([
        'memory-artifact-store.ts',
        'memory-ledger.ts',
        'memory-run-store.ts',
        'memory-session-store.ts',
      ]),
    );
    expect(entryNames).toContain('RunStoreAdapter');
    expect(entryNames).toContain('createRunStore');
  });

  it.each(memoryStores)('%s imports only names of @episodic/core/adapter or the root', (file) => {
    const imports = listedNames(readFileSync(new URL(file, storeDir), 'utf8'), 'import');
    expect(imports.size).toBeGreaterThan(0);
    const outside = [...imports]
      .filter(([name, from]) => from.startsWith('.') && !entryNames.has(name))
      .map(([name, from]) => `${name} (from ${from})`);
    expect(outside).toEqual([]);
  });
});
