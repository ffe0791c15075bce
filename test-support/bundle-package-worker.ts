import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** tsup's `build`, passed in by the package (the root has no tsup of its own). */
type Build = (options: Record<string, unknown>) => Promise<unknown>;

const coreSource = fileURLToPath(new URL('../packages/core/src/index.ts', import.meta.url));
const coreAdapterSource = fileURLToPath(
  new URL('../packages/core/src/adapter.ts', import.meta.url),
);
const coreSchemasSource = fileURLToPath(
  new URL('../packages/core/src/schemas.ts', import.meta.url),
);
const coreInternalSource = fileURLToPath(
  new URL('../packages/core/src/internal.ts', import.meta.url),
);
const coreChildSource = fileURLToPath(
  new URL('../packages/core/src/testing/child.ts', import.meta.url),
);

/**
 * Bundles a child-process script of a package's tests (TypeScript, importing core from source)
 * into one ESM file under that package's `node_modules/.cache`, where Node resolves the package's
 * own dependencies (the `external` ones, e.g. a native driver) as the package does. Each call
 * builds into its own directory (test files run in parallel), removed when the test process
 * exits. Returns the bundle's path.
 */
export async function bundlePackageWorker(
  build: Build,
  options: { packageRoot: string; entry: string; name: string; external: string[] },
): Promise<string> {
  const outDir = `${options.packageRoot}node_modules/.cache/episodic-reliability/${randomUUID()}`;
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
  const externals = options.external.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  await build({
    entry: { [options.name]: options.entry },
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
    external: options.external,
    noExternal: [new RegExp(`^(?!(${externals.join('|')})(/|$)).*`)],
    define: { __EPISODIC_VERSION__: JSON.stringify('0.0.0-test') },
    esbuildOptions(esbuild: { alias?: Record<string, string> }) {
      esbuild.alias = {
        '@episodic/core/testing/child': coreChildSource,
        '@episodic/core/adapter': coreAdapterSource,
        '@episodic/core/internal': coreInternalSource,
        '@episodic/core/schemas': coreSchemasSource,
        '@episodic/core': coreSource,
      };
    },
  });
  return `${outDir}/${options.name}.js`;
}
