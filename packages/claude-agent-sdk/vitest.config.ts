import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const config = packageTestConfig(import.meta.dirname);

// One throwaway PostgreSQL server for the whole run (or EPISODIC_TEST_POSTGRES_URL's server), for
// the PostgreSQL backend of the saver's tests; each store works in a schema of its own.
export default defineConfig({
  ...config,
  test: { ...config.test, globalSetup: ['../../test-support/postgres-global-setup.ts'] },
});
