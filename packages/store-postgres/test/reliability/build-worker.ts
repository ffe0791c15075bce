import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { bundleWorker } from '../../../../test-support/bundle-worker.js';

/** The child scripts of this folder. */
export type WorkerName = 'conformance-child' | 'postgres-worker';

/**
 * Bundles a child script of this folder (`<name>.ts`) into one ESM file under this package's
 * `node_modules/.cache`, where Node resolves `pg` like the package does (see
 * `test-support/bundle-worker.ts`). Returns the bundle's path.
 */
export function buildWorker(name: WorkerName): Promise<string> {
  return bundleWorker({
    build: build as never,
    entry: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)),
    packageDirectory: fileURLToPath(new URL('../../', import.meta.url)),
    external: ['pg'],
  });
}
