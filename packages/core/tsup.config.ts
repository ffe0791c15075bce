import { defineConfig } from 'tsup';
import { shipSchemas } from '../../scripts/ship-schemas.mjs';
import packageJson from './package.json' with { type: 'json' };

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/adapter.ts',
    'src/schemas.ts',
    'src/internal.ts',
    'src/testing/index.ts',
    'src/testing/child.ts',
  ],
  format: ['esm'],
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
  define: { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) },
  // The JSON Schemas of the formats this package owns: `@episodic/core/schemas/<name>.json`.
  onSuccess: async () => shipSchemas(packageJson.name, 'dist'),
});
