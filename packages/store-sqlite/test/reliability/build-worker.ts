import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const here = fileURLToPath(new URL('.', import.meta.url));
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const coreSource = fileURLToPath(new URL('../../../core/src/index.ts', import.meta.url));
const coreChildSource = fileURLToPath(
  new URL('../../../core/src/testing/child.ts', import.meta.url),
);

/**
 * Bundles a reliability worker of this folder (`<name>.ts`, TypeScript, importing core from
 * source) into one ESM file under this package's `node_modules/.cache`, where Node resolves
 * `better-sqlite3` like the package does. Each call builds into its own directory (test files run
 * in parallel); the directory is removed when the test process exits. Returns the bundle's path.
 */
export async function buildWorker(
  name:
    | 'ledger-worker'
    | 'disk-full-worker'
    | 'conformance-child'
    | 'session-committer' = 'ledger-worker',
): Promise<string> {
  const outDir = `${packageRoot}node_modules/.cache/episodic-reliability/${randomUUID()}`;
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
  await build({
    entry: { [name]: `${here}${name}.ts` },
    outDir,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    bundle: true,
    splitting: false,
    dts: false,
    sourcemap: false,
    clean: false,
    silent: true,
    config: false,
    external: ['better-sqlite3'],
    noExternal: [/^(?!better-sqlite3).*/],
    define: { __EPISODIC_VERSION__: JSON.stringify('0.0.0-test') },
    esbuildOptions(options) {
      options.alias = {
        '@episodic/core/testing/child': coreChildSource,
        '@episodic/core': coreSource,
      };
    },
  });
  return `${outDir}/${name}.js`;
}
