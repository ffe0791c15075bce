import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll } from 'vitest';

const repository = fileURLToPath(new URL('../', import.meta.url));

/** Where the Episodic packages' sources are, for bundling them into a worker from source. */
const SOURCES: Readonly<Record<string, string>> = {
  '@episodic/core/testing/child': 'packages/core/src/testing/child.ts',
  '@episodic/core/adapter': 'packages/core/src/adapter.ts',
  '@episodic/core/internal': 'packages/core/src/internal.ts',
  '@episodic/core/schemas': 'packages/core/src/schemas.ts',
  '@episodic/core': 'packages/core/src/index.ts',
  '@episodic/store-fs': 'packages/store-fs/src/index.ts',
  '@episodic/store-sqlite': 'packages/store-sqlite/src/index.ts',
  '@episodic/store-postgres/url': 'packages/store-postgres/src/url.ts',
  '@episodic/store-postgres': 'packages/store-postgres/src/index.ts',
};

/** Options of `bundleWorker`. */
export interface BundleWorkerOptions {
  /** tsup's `build`, from the calling package (tsup is a package dev dependency, not a root one). */
  readonly build: (options: Record<string, unknown>) => Promise<unknown>;
  /** The worker script (TypeScript) to bundle. */
  readonly entry: string;
  /** The package whose `node_modules` the bundle is written under (and resolves externals from). */
  readonly packageDirectory: string;
  /** Packages left to Node to resolve at run time (native addons, frameworks). */
  readonly external?: ReadonlyArray<string | RegExp>;
}

/**
 * Bundles a reliability worker (TypeScript, importing the Episodic packages from source) into one
 * ESM file under the package's `node_modules/.cache`, where Node resolves the externals (e.g.
 * `better-sqlite3`) like the package does. Each call builds into its own directory (test files
 * run in parallel); the directory is removed when the test process exits. Returns the bundle's path.
 */
export async function bundleWorker(options: BundleWorkerOptions): Promise<string> {
  const name = options.entry.replace(/^.*\//, '').replace(/\.ts$/, '');
  const outDir = join(
    options.packageDirectory,
    'node_modules/.cache/episodic-reliability',
    randomUUID(),
  );
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
  const external = options.external ?? ['better-sqlite3'];
  // Everything but the externals is bundled (the Episodic packages from source, zod, ulid, …).
  const externalPattern = external
    .map((entry) =>
      typeof entry === 'string'
        ? `${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:$|/)`
        : entry.source.replace(/^\^/, ''),
    )
    .join('|');
  await options.build({
    entry: { [name]: options.entry },
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
    external: [...external],
    noExternal: [new RegExp(`^(?!(?:${externalPattern})).*`)],
    define: { __EPISODIC_VERSION__: JSON.stringify('0.0.0-test') },
    esbuildOptions(esbuild: { alias?: Record<string, string> }) {
      esbuild.alias = Object.fromEntries(
        Object.entries(SOURCES).map(([name, path]) => [name, join(repository, path)]),
      );
    },
  });
  return join(outDir, `${name}.js`);
}

/**
 * For one test file: bundles the worker once before its tests (`bundleWorker`); `run(args)` runs
 * it to its end and gives its exit code and its output (stdout and stderr together).
 */
export function useBundledWorker(options: BundleWorkerOptions): {
  run(args: readonly string[]): Promise<{ code: number | null; output: string }>;
} {
  let worker = '';
  beforeAll(async () => {
    worker = await bundleWorker(options);
  }, 300_000);
  return {
    run: (args) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [worker, ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += chunk;
        });
        child.stderr.on('data', (chunk) => {
          output += chunk;
        });
        child.on('close', (code) => resolve({ code, output }));
      }),
  };
}
