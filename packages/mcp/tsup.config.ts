import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import { shipSchemas } from '../../scripts/ship-schemas.mjs';
import packageJson from './package.json' with { type: 'json' };

const define = { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) };
const packages = fileURLToPath(new URL('..', import.meta.url));

// The bin is built from the sibling packages' sources (as the tests resolve them), not their
// single-file dist bundles: esbuild then drops the modules the server does not use (their
// package.json says "sideEffects": false), so fewer schemas are built before `initialize`.
const sources = {
  '@episodic/core/adapter': `${packages}core/src/adapter.ts`,
  '@episodic/core/internal': `${packages}core/src/internal.ts`,
  '@episodic/core/schemas': `${packages}core/src/schemas.ts`,
  '@episodic/core': `${packages}core/src/index.ts`,
  '@episodic/home': `${packages}home/src/index.ts`,
  '@episodic/store-fs': `${packages}store-fs/src/index.ts`,
  '@episodic/store-sqlite': `${packages}store-sqlite/src/index.ts`,
  '@episodic/store-postgres/url': `${packages}store-postgres/src/url.ts`,
  '@episodic/store-postgres': `${packages}store-postgres/src/index.ts`,
};

export default defineConfig([
  {
    // The library entry points: dependencies stay external.
    entry: ['src/index.ts', 'src/stdio.ts', 'src/http.ts', 'src/run.ts'],
    format: ['esm'],
    target: 'node20',
    dts: true,
    sourcemap: true,
    clean: ['!bin/**'],
    define,
    // The JSON Schemas of the formats this package owns: `@episodic/mcp/schemas/<name>.json`.
    onSuccess: async () => shipSchemas(packageJson.name, 'dist'),
  },
  {
    // The bin starts fast: one bundle with the SDK, zod and @episodic/* inside (no module
    // resolution at start-up); only the native better-sqlite3 stays external. What a run does not
    // need (HTTP, store-fs) is split into chunks loaded on demand.
    entry: { 'episodic-mcp': 'src/bin/episodic-mcp.ts' },
    outDir: 'dist/bin',
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    splitting: true,
    // Minified and without maps, like the episodic CLI's bin: a quarter of the size, and Node
    // never reads maps at start-up. The library entries above keep theirs.
    minify: true,
    sourcemap: false,
    clean: true,
    noExternal: [/^@modelcontextprotocol\//, /^@episodic\//, 'zod'],
    external: ['better-sqlite3', 'pg'],
    define,
    esbuildOptions(options) {
      options.alias = sources;
    },
  },
]);
