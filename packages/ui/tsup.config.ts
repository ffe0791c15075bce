import { defineConfig } from 'tsup';
import packageJson from './package.json' with { type: 'json' };

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  sourcemap: true,
  // `vite build` has just written the browser app into dist/client: leave it alone.
  clean: ['!client/**'],
  define: { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) },
});
