import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const config = packageTestConfig(import.meta.dirname);
const aliases = (config.resolve?.alias ?? []) as Array<{ find: RegExp; replacement: string }>;

// When EPISODIC_OPENAI_AGENTS_SDK_TESTS names the SDK's test folder, sdk-conformance.test.ts runs
// some of the SDK's own tests unchanged. They import the SDK's sources (`../src`, `../src/…`):
// those are the SDK's built modules, except `MemorySession`, which is the EpisodicSession stand-in
// of __fixtures__/. The SDK is then loaded through vite (inlined), so every import of one of its
// modules is the same instance.
const sdkTests = (process.env.EPISODIC_OPENAI_AGENTS_SDK_TESTS ?? '') !== '';
const sdk = dirname(createRequire(import.meta.url).resolve('@openai/agents-core'));
const fixtures = `${import.meta.dirname}/src/__fixtures__`;
// EPISODIC_OPENAI_AGENTS_SDK_CONTROL=1: the same run with the SDK's own MemorySession, to tell a
// failure of EpisodicSession from one of the SDK version under test.
const control = process.env.EPISODIC_OPENAI_AGENTS_SDK_CONTROL === '1';
const sdkAliases = [
  {
    find: /^\.\.\/src\/memory\/memorySession$/,
    replacement: control ? `${sdk}/memory/memorySession.mjs` : `${fixtures}/sdk-memory-session.ts`,
  },
  { find: /^\.\.\/src$/, replacement: control ? `${sdk}/index.mjs` : `${fixtures}/sdk-index.ts` },
  { find: /^\.\.\/src\/testing$/, replacement: `${sdk}/testing/index.mjs` },
  { find: /^\.\.\/src\/(.+)$/, replacement: `${sdk}/$1.mjs` },
];

// One throwaway PostgreSQL server for the whole run (or EPISODIC_TEST_POSTGRES_URL's server), for
// the PostgreSQL backend of the session's tests; each store works in a schema of its own.
export default defineConfig({
  ...config,
  resolve: { ...config.resolve, alias: [...aliases, ...(sdkTests ? sdkAliases : [])] },
  test: {
    ...config.test,
    globalSetup: ['../../test-support/postgres-global-setup.ts'],
    ...(sdkTests ? { server: { deps: { inline: [/@openai\/agents-core/] } } } : {}),
  },
});
