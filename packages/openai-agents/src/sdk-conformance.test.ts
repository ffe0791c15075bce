// The OpenAI Agents SDK's own tests of MemorySession and of sessions in agent runs, run unchanged
// on every backend with MemorySession replaced by EpisodicSession, when
// EPISODIC_OPENAI_AGENTS_SDK_TESTS names the SDK repository's `packages/agents-core/test` folder
// (openai/openai-agents-js). Those files are not in this repository (nor fetched in CI): CI runs
// session.contract.test.ts, written from the documented contract. They are copied under
// node_modules/.cache (where `zod` and `vitest` resolve) and imported once per backend; their
// `../src` imports are the SDK's built modules, with `MemorySession` the stand-in of
// __fixtures__/sdk-memory-session.ts (see vitest.config.ts).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { BACKENDS, type OpenedStore } from './__fixtures__/backends.js';
import { useRunStore } from './__fixtures__/sdk-memory-session.js';

/** The SDK's test files that exercise MemorySession (and `stubs.ts`, which two of them import). */
const SUITES = [
  'memorySession.test.ts',
  'hitlMemorySessionScenario.test.ts',
  'run.approvalGuardrailSession.test.ts',
  'run.outputGuardrailReplaySession.test.ts',
];

const folder = process.env.EPISODIC_OPENAI_AGENTS_SDK_TESTS;

if (folder === undefined || folder === '') {
  it.skip('the SDK tests (skipped: set EPISODIC_OPENAI_AGENTS_SDK_TESTS=/path/to/openai-agents-js/packages/agents-core/test)', () => {});
} else {
  const copies = join(import.meta.dirname, '..', 'node_modules', '.cache', 'sdk-tests', 'test');
  mkdirSync(copies, { recursive: true });
  for (const file of [...SUITES, 'stubs.ts']) {
    if (!existsSync(join(folder, file))) throw new Error(`${file} is not in ${folder}`);
    copyFileSync(join(folder, file), join(copies, file));
  }
  for (const backend of BACKENDS) {
    describe(`SDK tests on ${backend.name}`, async () => {
      let opened: OpenedStore | undefined;
      beforeAll(async () => {
        opened = await backend.open();
        useRunStore(opened.runs);
        return async () => {
          useRunStore(undefined);
          await opened?.close();
        };
      });
      // A query string per backend: a suite registers its tests once per import.
      for (const suite of SUITES) {
        await import(/* @vite-ignore */ `${join(copies, suite)}?backend=${backend.name}`);
      }
    });
  }
}
