import { defineConfig } from 'vitest/config';

// For editors and `vitest` at the root; turbo runs each package's own config.
export default defineConfig({
  test: { projects: ['packages/*', 'apps/*'] },
});
