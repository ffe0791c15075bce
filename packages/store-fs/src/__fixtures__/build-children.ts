import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { CHILDREN_DIRECTORY } from './child-process.js';

const sources = fileURLToPath(new URL('./children/', import.meta.url));
const core = fileURLToPath(new URL('../../../core/src/index.ts', import.meta.url));
const coreAdapter = fileURLToPath(new URL('../../../core/src/adapter.ts', import.meta.url));
const coreInternal = fileURLToPath(new URL('../../../core/src/internal.ts', import.meta.url));
const coreSchemas = fileURLToPath(new URL('../../../core/src/schemas.ts', import.meta.url));
const coreChild = fileURLToPath(new URL('../../../core/src/testing/child.ts', import.meta.url));

/** Bundles the child scripts (with core and store-fs from source) so plain `node` can run them. */
export default async function setup(): Promise<void> {
  const entry = Object.fromEntries(
    readdirSync(sources)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => [name.slice(0, -3), `${sources}${name}`]),
  );
  await build({
    entry,
    outDir: CHILDREN_DIRECTORY,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    bundle: true,
    splitting: true,
    silent: true,
    config: false,
    dts: false,
    sourcemap: false,
    clean: true,
    noExternal: [/^@episodic\//, 'ulid'],
    external: ['zod'],
    define: { __EPISODIC_VERSION__: '"0.0.0-test"' },
    esbuildOptions(options) {
      options.alias = {
        '@episodic/core/testing/child': coreChild,
        '@episodic/core/adapter': coreAdapter,
        '@episodic/core/internal': coreInternal,
        '@episodic/core/schemas': coreSchemas,
        '@episodic/core': core,
      };
    },
  });
}
