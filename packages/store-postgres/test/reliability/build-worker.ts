import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { bundlePackageWorker } from '../../../../test-support/bundle-package-worker.js';

/** The child scripts of this folder. */
export type WorkerName = 'conformance-child' | 'postgres-worker';

/**
 * Bundles a child script of this folder (`<name>.ts`) into one ESM file under this package's
 * `node_modules/.cache`, where Node resolves `pg` like the package does (see
 * `test-support/bundle-package-worker.ts`). Returns the bundle's path.
 */
export function buildWorker(name: WorkerName): Promise<string> {
  return bundlePackageWorker(build as never, {
    packageRoot: fileURLToPath(new URL('../../', import.meta.url)),
    entry: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)),
    name,
    external: ['pg'],
  });
}
