import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const config = packageTestConfig(import.meta.dirname);

/**
 * ADK's own session service tests (core/test/sessions/in_memory_session_service_test.ts in
 * google/adk-js), run unchanged against EpisodicSessionService on every backend when
 * EPISODIC_ADK_SESSION_TESTS names a copy of that file (not in this repository, nor fetched in
 * CI). Only for imports of that file: `@google/adk` is src/__fixtures__/adk-suite.ts (the real
 * package with `InMemorySessionService` on Episodic), its `../../src/sessions/…` import is the
 * installed ADK's own module, and bare imports resolve from this package.
 */
const suite = process.env.EPISODIC_ADK_SESSION_TESTS;
const backends = ['memory', 'files', 'sqlite', 'postgres'];

function suiteImports(file: string): Plugin {
  const adk = dirname(fileURLToPath(import.meta.resolve('@google/adk')));
  return {
    name: 'episodic-adk-suite',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (importer !== file) return null;
      if (source === '@google/adk')
        return resolve(import.meta.dirname, 'src/__fixtures__/adk-suite.ts');
      if (source.startsWith('../../src/')) return resolve(adk, source.slice('../../src/'.length));
      if (source.startsWith('.')) return null;
      return this.resolve(source, resolve(import.meta.dirname, 'vitest.config.ts'));
    },
  };
}

// One throwaway PostgreSQL server for the whole run (or EPISODIC_TEST_POSTGRES_URL's server), for
// the PostgreSQL backend of the session service's tests; each store works in a schema of its own.
const test = { ...config.test, globalSetup: ['../../test-support/postgres-global-setup.ts'] };

export default defineConfig(
  suite === undefined || suite === ''
    ? { ...config, test }
    : {
        ...config,
        plugins: [...(config.plugins ?? []), suiteImports(resolve(suite))],
        test: {
          ...test,
          projects: backends.map((backend) => ({
            extends: true,
            test: {
              name: `adk-suite:${backend}`,
              dir: dirname(resolve(suite)),
              include: [resolve(suite)],
              env: { EPISODIC_ADK_SUITE_BACKEND: backend },
            },
          })),
        },
      },
);
