import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import packageJson from './package.json' with { type: 'json' };

const define = { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) };
const packages = fileURLToPath(new URL('..', import.meta.url));

// The bin is built from the sibling packages' sources (as the tests resolve them), not their
// single-file dist bundles: esbuild then drops the modules a command does not use (their
// package.json says "sideEffects": false), so fewer schemas are built at start-up.
const sources = {
  '@episodic/core': `${packages}core/src/index.ts`,
  '@episodic/store-fs': `${packages}store-fs/src/index.ts`,
  '@episodic/store-sqlite': `${packages}store-sqlite/src/index.ts`,
  '@episodic/mcp/stores': `${packages}mcp/src/stores.ts`,
  '@episodic/mcp/run': `${packages}mcp/src/run.ts`,
};

export default defineConfig([
  {
    // The library entry (receipt schemas): dependencies stay external, zod is the caller's.
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    dts: true,
    sourcemap: true,
    // The bin is built into dist/bin by the second config at the same time: leave it alone.
    clean: ['!bin/**'],
    define,
  },
  {
    // The `episodic` binary: one bundle with zod and @episodic/* inlined (fewer files to resolve
    // and less source to compile at start), better-sqlite3 external (a native addon). Each
    // command's module is a dynamic import, so esbuild splits it into its own chunk: `--version`
    // and `--help` load neither zod nor better-sqlite3.
    entry: { episodic: 'src/bin/episodic.ts' },
    outDir: 'dist/bin',
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    splitting: true,
    minify: true,
    sourcemap: true,
    clean: true,
    noExternal: [/^@episodic\//, 'zod', 'ulid', /^@modelcontextprotocol\//],
    external: ['better-sqlite3'],
    define,
    esbuildOptions(options) {
      options.alias = sources;
    },
  },
]);
