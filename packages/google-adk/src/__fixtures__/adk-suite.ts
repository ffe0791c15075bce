// What ADK's own session service tests import as `@google/adk` when they run against Episodic
// (see vitest.config.ts, EPISODIC_ADK_SESSION_TESTS): every export of the real package, except
// that `InMemorySessionService` is an EpisodicSessionService on a fresh store of the backend named
// by EPISODIC_ADK_SUITE_BACKEND (memory, files, sqlite or postgres). The test files construct it
// synchronously, so the store is opened on first use; every store is closed after the file.
import type { RunStore } from '@episodic/core';
import { afterAll } from 'vitest';
import { EpisodicSessionService } from '../episodic-session-service.js';
import { BACKENDS, type OpenedStore } from './backends.js';

export * from '@google/adk';

const backendName = process.env.EPISODIC_ADK_SUITE_BACKEND ?? 'memory';
const backend = BACKENDS.find((candidate) => candidate.name === backendName);
if (backend === undefined) {
  throw new Error(
    `EPISODIC_ADK_SUITE_BACKEND=${backendName}: expected one of ${BACKENDS.map((b) => b.name).join(', ')}`,
  );
}
const opened: Array<Promise<OpenedStore>> = [];

afterAll(async () => {
  for (const store of opened.splice(0)) await (await store).close();
});

/** A run store that opens the backend's store when first called. */
function lazyRuns(): RunStore {
  let store: Promise<OpenedStore> | undefined;
  return new Proxy({} as RunStore, {
    get: (_target, method) => {
      if (typeof method !== 'string' || method === 'then') return undefined;
      return async (...args: unknown[]) => {
        if (store === undefined) {
          store = (backend as NonNullable<typeof backend>).open();
          opened.push(store);
        }
        const runs = (await store).runs as unknown as Record<
          string,
          (...values: unknown[]) => unknown
        >;
        return runs[method]?.(...args);
      };
    },
  });
}

export class InMemorySessionService extends EpisodicSessionService {
  constructor() {
    super({ runs: lazyRuns() });
  }
}
