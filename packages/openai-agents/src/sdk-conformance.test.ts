// The OpenAI Agents SDK's own MemorySession tests (packages/agents-core/test/memorySession.test.ts
// in openai/openai-agents-js), run unchanged on every backend when
// EPISODIC_OPENAI_AGENTS_SESSION_TESTS names a copy of that file. The file is not in this
// repository (nor fetched in CI): CI runs session.contract.test.ts, written from the documented
// contract. Its `import { MemorySession } from '../src/memory/memorySession'` resolves to
// __fixtures__/sdk-memory-session.ts (see vitest.config.ts): an EpisodicSession on the backend
// under test, with MemorySession's constructor.
import { beforeAll, describe, it } from 'vitest';
import { BACKENDS, type OpenedStore } from './__fixtures__/backends.js';
import { useRunStore } from './__fixtures__/sdk-memory-session.js';

const suite = process.env.EPISODIC_OPENAI_AGENTS_SESSION_TESTS;

if (suite === undefined || suite === '') {
  it.skip('the SDK MemorySession tests (skipped: set EPISODIC_OPENAI_AGENTS_SESSION_TESTS=/path/to/memorySession.test.ts, a copy of the SDK repository file packages/agents-core/test/memorySession.test.ts)', () => {});
} else {
  for (const backend of BACKENDS) {
    describe(`SDK MemorySession tests on ${backend.name}`, async () => {
      let opened: OpenedStore | undefined;
      beforeAll(async () => {
        opened = await backend.open();
        useRunStore(opened.runs);
        return async () => {
          useRunStore(undefined);
          await opened?.close();
        };
      });
      // A query string per backend: the suite registers its tests once per import.
      await import(/* @vite-ignore */ `${suite}?backend=${backend.name}`);
    });
  }
}
