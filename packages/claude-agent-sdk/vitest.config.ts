import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const config = packageTestConfig(import.meta.dirname);
const aliases = (config.resolve?.alias ?? []) as Array<{ find: RegExp; replacement: string }>;

// One throwaway PostgreSQL server for the whole run (or EPISODIC_TEST_POSTGRES_URL's server), for
// the PostgreSQL backend of the session store's tests; each store works in a schema of its own.
// `bun:test` is vitest for the SDK's own conformance suite (sdk-conformance.test.ts), written for
// Bun's test runner.
export default defineConfig({
  ...config,
  resolve: {
    ...config.resolve,
    alias: [...aliases, { find: /^bun:test$/, replacement: 'vitest' }],
  },
  test: { ...config.test, globalSetup: ['../../test-support/postgres-global-setup.ts'] },
});
