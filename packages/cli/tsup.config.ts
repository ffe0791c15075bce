import { defineConfig } from 'tsup';
import packageJson from './package.json' with { type: 'json' };

export default defineConfig({
  entry: ['src/index.ts', 'src/bin/episodic.ts'],
  format: ['esm'],
  target: 'node20',
  dts: { entry: ['src/index.ts'] },
  sourcemap: true,
  clean: true,
  define: { __EPISODIC_VERSION__: JSON.stringify(packageJson.version) },
});
