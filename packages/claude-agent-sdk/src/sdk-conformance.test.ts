// The Claude Agent SDK's own SessionStore conformance suite (examples/session-stores/shared/
// conformance.ts in anthropics/claude-agent-sdk-typescript), run unchanged on every backend when
// EPISODIC_CLAUDE_SDK_CONFORMANCE names a copy of that file. The file is not in this repository
// (nor fetched in CI): CI runs session-store.contract.test.ts, written from the documented contract.
// The suite imports `bun:test`; vitest's `test` and `expect` stand in for it (see vitest.config.ts).
import { describe, it } from 'vitest';
import { BACKENDS, type OpenedStore } from './__fixtures__/backends.js';
import { EpisodicSessionStore } from './episodic-session-store.js';

const suite = process.env.EPISODIC_CLAUDE_SDK_CONFORMANCE;

if (suite === undefined || suite === '') {
  it.skip('the SDK conformance suite (skipped: set EPISODIC_CLAUDE_SDK_CONFORMANCE=/path/to/conformance.ts, a copy of the SDK repository file examples/session-stores/shared/conformance.ts)', () => {});
} else {
  const { runSessionStoreConformance } = (await import(/* @vite-ignore */ suite)) as {
    runSessionStoreConformance(make: () => Promise<EpisodicSessionStore>): void;
  };
  for (const backend of BACKENDS) {
    describe(`SDK conformance on ${backend.name}`, () => {
      const opened: OpenedStore[] = [];
      runSessionStoreConformance(async () => {
        const store = await backend.open();
        opened.push(store);
        return new EpisodicSessionStore({ runs: store.runs });
      });
      it('closes its stores', async () => {
        for (const store of opened.splice(0)) await store.close();
      });
    });
  }
}
