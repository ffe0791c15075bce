import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const config = packageTestConfig(import.meta.dirname);
const aliases = (config.resolve?.alias ?? []) as Array<{ find: RegExp; replacement: string }>;

// One throwaway PostgreSQL server for the whole run (or EPISODIC_TEST_POSTGRES_URL's server), for
// the PostgreSQL backend of the session's tests; each store works in a schema of its own.
// The SDK's own MemorySession tests (sdk-conformance.test.ts) import `../src/memory/memorySession`:
// that is the EpisodicSession stand-in of __fixtures__/sdk-memory-session.ts.
export default defineConfig({
  ...config,
  resolve: {
    ...config.resolve,
    alias: [
      ...aliases,
      {
        find: /^\.\.\/src\/memory\/memorySession$/,
        replacement: `${import.meta.dirname}/src/__fixtures__/sdk-memory-session.ts`,
      },
    ],
  },
  test: { ...config.test, globalSetup: ['../../test-support/postgres-global-setup.ts'] },
});
