import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The browser app: Preact components in client/, built into dist/client, which the UI server
// reads at start-up and serves. Nothing is loaded from anywhere else (the CSP allows 'self' only).
export default defineConfig({
  root: fileURLToPath(new URL('./client', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/client', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
  logLevel: 'warn',
});
