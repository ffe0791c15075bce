import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ViteUserConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Tests import sibling packages from their sources, so a change in `core` is seen by the store
 * tests without a rebuild. Type checks and the published artifacts still go through `dist`.
 */
const sourceAliases = [
  { find: /^@episodic\/core\/testing$/, replacement: `${root}packages/core/src/testing/index.ts` },
  { find: /^@episodic\/core\/adapter$/, replacement: `${root}packages/core/src/adapter.ts` },
  { find: /^@episodic\/core\/internal$/, replacement: `${root}packages/core/src/internal.ts` },
  { find: /^@episodic\/core\/schemas$/, replacement: `${root}packages/core/src/schemas.ts` },
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
  { find: /^@episodic\/home$/, replacement: `${root}packages/home/src/index.ts` },
  { find: /^@episodic\/mcp\/run$/, replacement: `${root}packages/mcp/src/run.ts` },
  { find: /^@episodic\/mcp\/stdio$/, replacement: `${root}packages/mcp/src/stdio.ts` },
  { find: /^@episodic\/mcp\/http$/, replacement: `${root}packages/mcp/src/http.ts` },
  { find: /^@episodic\/mcp$/, replacement: `${root}packages/mcp/src/index.ts` },
  { find: /^@episodic\/ai-sdk$/, replacement: `${root}packages/ai-sdk/src/index.ts` },
  { find: /^@episodic\/langgraph$/, replacement: `${root}packages/langgraph/src/index.ts` },
  {
    find: /^@episodic\/claude-agent-sdk$/,
    replacement: `${root}packages/claude-agent-sdk/src/index.ts`,
  },
  { find: /^@episodic\/openai-agents$/, replacement: `${root}packages/openai-agents/src/index.ts` },
  { find: /^@episodic\/google-adk$/, replacement: `${root}packages/google-adk/src/index.ts` },
];

/**
 * How many test files one package runs at once. `pnpm test` runs one package per core (turbo
 * `--concurrency=100%`), and many test files spawn processes of their own (the CLI, MCP servers,
 * PostgreSQL, Chromium), so each package gets a quarter of the cores: one file at a time on a
 * 2-core machine, where two packages then keep both cores busy without queueing ten vitest pools
 * behind each other. `EPISODIC_TEST_WORKERS` overrides it.
 */
const TEST_WORKERS =
  Number(process.env.EPISODIC_TEST_WORKERS) || Math.max(1, Math.floor(availableParallelism() / 4));

/**
 * A test's time limit only catches a hang: it is never what a test asserts. It is generous so that
 * a heavy test on a machine busy with other work still passes (a 1.8 s test once hit a 30 s limit
 * on a 2-core machine at a load average of 15–20).
 */
const HANG_GUARD_MS = 180_000;

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
      testTimeout: HANG_GUARD_MS,
      hookTimeout: HANG_GUARD_MS,
      maxWorkers: TEST_WORKERS,
      globalSetup: [TEMPORARY_FOLDER_CHECK],
    },
  };
}
