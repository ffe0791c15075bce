import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built packages whose code writes and reads session data sets. */
const STORAGE_PACKAGES = ['@episodic/core', '@episodic/store-fs', '@episodic/store-sqlite'];

let cached: string | undefined;

/**
 * A short hash of the built code of core and both stores (every `.js` file next to each package's
 * entry point). Session data sets are keyed by it as well as by `DATA_VERSION`: the session storage
 * format changes with the implementation, so a data set written by an older build is rebuilt
 * rather than measured as if the current build had written it.
 */
export function implementationKey(): string {
  if (cached !== undefined) return cached;
  const hash = createHash('sha256');
  for (const name of STORAGE_PACKAGES) {
    const dist = dirname(fileURLToPath(import.meta.resolve(name)));
    for (const file of readdirSync(dist).sort()) {
      if (!file.endsWith('.js')) continue;
      hash.update(`${name}/${file}\n`);
      hash.update(readFileSync(join(dist, file)));
    }
  }
  cached = hash.digest('hex').slice(0, 12);
  return cached;
}
