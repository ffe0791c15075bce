import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { bundlePackageWorker } from '../../../../test-support/bundle-package-worker.js';

/**
 * Bundles a reliability worker of this folder (`<name>.ts`) into one ESM file under this package's
 * `node_modules/.cache`, where Node resolves `better-sqlite3` like the package does (see
 * `test-support/bundle-package-worker.ts`). Returns the bundle's path.
 */
export function buildWorker(
  name:
    | 'ledger-worker'
    | 'disk-full-worker'
    | 'conformance-child'
    | 'session-committer' = 'ledger-worker',
): Promise<string> {
  return bundlePackageWorker(build as never, {
    packageRoot: fileURLToPath(new URL('../../', import.meta.url)),
    entry: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)),
    name,
    external: ['better-sqlite3'],
  });
}
