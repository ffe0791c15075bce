import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `@episodic/core/internal` is core's own: every other package, app, the bench and the scripts
// import the public entry of their audience (`@episodic/core`, `/adapter`, `/schemas`), so what
// they use is under semver and in an API report. Build aliases may still name it (they map every
// entry to source); an import statement may not.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const IMPORT = /(?:from\s*|import\s*\(\s*)['"]@episodic\/core\/internal['"]/;
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

/** Every source file below `dir`, skipping dependencies and build output. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (SOURCE.test(entry.name)) files.push(path);
  }
  return files;
}

function roots(): string[] {
  const found = ['bench', 'scripts', 'test-support'].map((name) => join(repo, name));
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(repo, group), { withFileTypes: true })) {
      if (entry.isDirectory() && !(group === 'packages' && entry.name === 'core')) {
        found.push(join(repo, group, entry.name));
      }
    }
  }
  return found;
}

describe('@episodic/core/internal', () => {
  it('is imported by no package other than core', () => {
    const importers = roots()
      .flatMap((root) => sourceFiles(root))
      .filter((file) => IMPORT.test(readFileSync(file, 'utf8')))
      .map((file) => relative(repo, file));
    expect(importers).toEqual([]);
  });

  it('finds an import when there is one (the check can fail)', () => {
    expect(IMPORT.test("import { x } from '@episodic/core/internal';")).toBe(true);
    expect(IMPORT.test("await import('@episodic/core/internal')")).toBe(true);
    expect(IMPORT.test("'@episodic/core/internal': 'packages/core/src/internal.ts',")).toBe(false);
  });
});
