import { defineConfig } from 'tsup';
import packageJson from './package.json' with { type: 'json' };

const define = { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) };

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
    // and load at start), better-sqlite3 external (a native addon). Each command's module is a
    // dynamic import, so esbuild splits it into its own chunk: `--version` and `--help` load
    // neither zod nor better-sqlite3.
    entry: { episodic: 'src/bin/episodic.ts' },
    outDir: 'dist/bin',
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    splitting: true,
    sourcemap: true,
    clean: true,
    noExternal: [/^@episodic\//, 'zod', 'ulid', /^@modelcontextprotocol\//],
    external: ['better-sqlite3'],
    define,
  },
]);
