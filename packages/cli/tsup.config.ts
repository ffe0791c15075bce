import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';
import { shipSchemas } from '../../scripts/ship-schemas.mjs';
import packageJson from './package.json' with { type: 'json' };

const define = { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) };
const packages = fileURLToPath(new URL('..', import.meta.url));

// The bin is built from the sibling packages' sources (as the tests resolve them), not their
// single-file dist bundles: esbuild then drops the modules a command does not use (their
// package.json says "sideEffects": false), so fewer schemas are built at start-up.
const sources = {
  '@episodic/core/adapter': `${packages}core/src/adapter.ts`,
  '@episodic/core/internal': `${packages}core/src/internal.ts`,
  '@episodic/core/schemas': `${packages}core/src/schemas.ts`,
  '@episodic/core': `${packages}core/src/index.ts`,
  '@episodic/store-fs': `${packages}store-fs/src/index.ts`,
  '@episodic/store-sqlite': `${packages}store-sqlite/src/index.ts`,
  '@episodic/store-postgres/url': `${packages}store-postgres/src/url.ts`,
  '@episodic/store-postgres': `${packages}store-postgres/src/index.ts`,
  '@episodic/interop': `${packages}interop/src/index.ts`,
  '@episodic/interop/node': `${packages}interop/src/node.ts`,
  '@episodic/home': `${packages}home/src/index.ts`,
  '@episodic/mcp/run': `${packages}mcp/src/run.ts`,
  '@episodic/mcp': `${packages}mcp/src/index.ts`,
};

/** The command modules `command-table.ts` loads with `import('./commands/<name>.js')`. */
const COMMAND_MODULES = [
  'episodes',
  'episodes-redact',
  'runs',
  'sessions',
  'tasks',
  'patterns',
  'mcp',
  'doctor',
  'transfer',
  'ui',
  'migrate',
  'import-transcripts',
  'scopes',
  'search',
  'verify',
  'anchors',
];

const bin: Options = {
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  minify: true,
  // No maps in the published bin: they were half of the package (5.5 MB), and Node reads them
  // only under --enable-source-maps.
  sourcemap: false,
  noExternal: [/^@episodic\/(?!ui$)/, 'zod', 'ulid', /^@modelcontextprotocol\//],
  // @episodic/ui stays its own package: its server finds the browser app in its own dist.
  external: ['better-sqlite3', 'pg', '@episodic/ui'],
  define,
  esbuildOptions(options) {
    options.alias = sources;
  },
};

export default defineConfig([
  {
    // The library entry (receipt schemas): dependencies stay external, zod is the caller's.
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    dts: true,
    sourcemap: true,
    // The bin is built into dist/bin by the other configs at the same time: leave it alone.
    clean: ['!bin/**'],
    define,
    // The JSON Schemas of the formats this package owns: `@episodic/cli/schemas/<name>.json`.
    onSuccess: async () => shipSchemas(packageJson.name, 'dist'),
  },
  {
    // `dist/bin/episodic.js`: argument parsing, help and dispatch only (no zod, no
    // better-sqlite3). Each command module stays a runtime `import()` of its own bundle.
    ...bin,
    entry: { episodic: 'src/bin/episodic.ts' },
    outDir: 'dist/bin',
    splitting: false,
    clean: ['!commands/**'],
    esbuildPlugins: [
      {
        name: 'lazy-command-bundles',
        setup(build) {
          build.onResolve({ filter: /^\.\/commands\/[a-z-]+\.js$/ }, (args) => {
            const name = /([a-z-]+)\.js$/.exec(args.path)?.[1] as string;
            return { path: `./commands/${name}/${name}.js`, external: true };
          });
        },
      },
    ],
  },
  // One bundle per command module, each with its own chunks. Bundles share nothing: esbuild's
  // code splitting puts a module used by several entries into a chunk that can carry modules
  // only some of them use (all of core's schemas, through its barrels), so a command bundled
  // with the others evaluates schemas it never needs (~20 ms at start-up for `episodes query`).
  ...COMMAND_MODULES.map(
    (name): Options => ({
      ...bin,
      entry: { [name]: `src/commands/${name}.ts` },
      outDir: `dist/bin/commands/${name}`,
      splitting: true,
      clean: true,
    }),
  ),
]);
