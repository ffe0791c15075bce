// LangGraph's official checkpointer validation suite (@langchain/langgraph-checkpoint-validation),
// run on every backend the saver supports: the spec suite (put, putWrites, getTuple, list,
// deleteThread) and the opt-in delta channel history suite. The suite is written for Jest-style
// globals, so vitest's functions are made global before it is imported.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, type OpenedStore } from './__fixtures__/backends.js';
import { EpisodicSaver } from './episodic-saver.js';

Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { deltaChannelHistoryTests, specTest } = await import(
  '@langchain/langgraph-checkpoint-validation'
);

for (const backend of BACKENDS) {
  const opened = new Map<EpisodicSaver, OpenedStore>();
  const initializer = {
    checkpointerName: `EpisodicSaver on ${backend.name}`,
    async createCheckpointer() {
      const store = await backend.open();
      const saver = new EpisodicSaver({ runs: store.runs });
      opened.set(saver, store);
      return saver;
    },
    async destroyCheckpointer(saver: EpisodicSaver) {
      await opened.get(saver)?.close();
      opened.delete(saver);
    },
  };
  specTest(initializer);
  deltaChannelHistoryTests(initializer);
}
