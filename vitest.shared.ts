import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ViteUserConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Tests import sibling packages from their sources, so a change in `core` is seen by the store
 * tests without a rebuild. Type checks and the published artifacts still go through `dist`.
 */
const sourceAliases = [
  { find: /^@episodic\/core\/testing$/, replacement: `${root}packages/core/src/testing/index.ts` },
  { find: /^@episodic\/core\/internal$/, replacement: `${root}packages/core/src/internal.ts` },
  { find: /^@episodic\/core$/, replacement: `${root}packages/core/src/index.ts` },
  { find: /^@episodic\/store-fs$/, replacement: `${root}packages/store-fs/src/index.ts` },
  { find: /^@episodic\/store-sqlite$/, replacement: `${root}packages/store-sqlite/src/index.ts` },
  {
    find: /^@episodic\/store-postgres\/url$/,
    replacement: `${root}packages/store-postgres/src/url.ts`,
  },
  {
    find: /^@episodic\/store-postgres$/,
    replacement: `${root}packages/store-postgres/src/index.ts`,
  },
  { find: /^@episodic\/interop\/node$/, replacement: `${root}packages/interop/src/node.ts` },
  { find: /^@episodic\/interop$/, replacement: `${root}packages/interop/src/index.ts` },
  { find: /^@episodic\/mcp\/stores$/, replacement: `${root}packages/mcp/src/stores.ts` },
  { find: /^@episodic\/mcp\/run$/, replacement: `${root}packages/mcp/src/run.ts` },
  { find: /^@episodic\/mcp\/stdio$/, replacement: `${root}packages/mcp/src/stdio.ts` },
  { find: /^@episodic\/mcp\/http$/, replacement: `${root}packages/mcp/src/http.ts` },
  { find: /^@episodic\/mcp$/, replacement: `${root}packages/mcp/src/index.ts` },
  { find: /^@episodic\/ai-sdk$/, replacement: `${root}packages/ai-sdk/src/index.ts` },
  { find: /^@episodic\/langgraph$/, replacement: `${root}packages/langgraph/src/index.ts` },
];

/** Every test run gets a private temporary folder and fails if it leaves anything there. */
export const TEMPORARY_FOLDER_CHECK = `${root}test-support/temporary-folder-check.ts`;

export function packageTestConfig(packageDirectory: string): ViteUserConfig {
  const { version } = JSON.parse(readFileSync(`${packageDirectory}/package.json`, 'utf8')) as {
    version: string;
  };
  return {
    define: { __EPISODIC_VERSION__: JSON.stringify(version) },
    resolve: { alias: sourceAliases },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      restoreMocks: true,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      globalSetup: [TEMPORARY_FOLDER_CHECK],
    },
  };
}
