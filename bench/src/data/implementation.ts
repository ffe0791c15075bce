import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built packages whose code writes and reads session data sets. */
const STORAGE_PACKAGES = ['@episodic/core', '@episodic/store-fs', '@episodic/store-sqlite'];

/** Relative imports of a built module (`from "./chunk-….js"`, `import("./….js")`). */
const RELATIVE_IMPORT = /(?:from\s*|import\s*\(\s*)["'](\.\/[^"']+\.js)["']/g;

let cached: string | undefined;

/**
 * A short hash of the built code of core and both stores: each package's entry point and every
 * chunk it imports, transitively (stale chunks an earlier build left in `dist` do not count).
 * Session data sets are keyed by it as well as by `DATA_VERSION`: the session storage format
 * changes with the implementation, so a data set written by an older build is rebuilt rather than
 * measured as if the current build had written it.
 */
export function implementationKey(): string {
  if (cached !== undefined) return cached;
  const hash = createHash('sha256');
  for (const name of STORAGE_PACKAGES) {
    const entry = fileURLToPath(import.meta.resolve(name));
    const dist = dirname(entry);
    const pending = [entry];
    const seen = new Set<string>();
    while (pending.length > 0) {
      const file = pending.shift() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      const code = readFileSync(file);
      hash.update(`${name}/${file.slice(dist.length)}\n`);
      hash.update(code);
      for (const match of code.toString('utf8').matchAll(RELATIVE_IMPORT)) {
        pending.push(join(dirname(file), match[1] as string));
      }
    }
  }
  cached = hash.digest('hex').slice(0, 12);
  return cached;
}
