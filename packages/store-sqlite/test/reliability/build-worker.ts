import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { afterAll, beforeAll } from 'vitest';
import { bundleWorker } from '../../../../test-support/bundle-worker.js';
import {
  startWorker,
  temporaryDirectory,
  type Worker,
} from '../../../../test-support/worker-process.js';

/** The child scripts of this folder. */
export type WorkerName =
  | 'ledger-worker'
  | 'disk-full-worker'
  | 'conformance-child'
  | 'session-committer';

/**
 * Bundles a reliability worker of this folder (`<name>.ts`) into one ESM file under this package's
 * `node_modules/.cache`, where Node resolves `better-sqlite3` like the package does (see
 * `test-support/bundle-worker.ts`). Returns the bundle's path.
 */
export function buildWorker(name: WorkerName = 'ledger-worker'): Promise<string> {
  return bundleWorker({
    build: build as never,
    entry: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)),
    packageDirectory: fileURLToPath(new URL('../../', import.meta.url)),
    external: ['better-sqlite3'],
  });
}

/**
 * For one reliability test file: bundles worker `name` once before its tests and gives the file a
 * temporary directory (removed after them); `start(args, env)` runs the worker.
 */
export function useWorker(name: WorkerName = 'ledger-worker') {
  const directory = temporaryDirectory();
  let script = '';
  beforeAll(async () => {
    script = await buildWorker(name);
  }, 300_000);
  afterAll(() => directory.remove());
  return {
    directory: directory.path,
    start: (args: string[], env?: NodeJS.ProcessEnv): Worker => startWorker(script, args, env),
  };
}
