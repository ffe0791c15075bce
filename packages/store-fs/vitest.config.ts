import { defineConfig } from 'vitest/config';
import { packageTestConfig, TEMPORARY_FOLDER_CHECK } from '../../vitest.shared.js';

const base = packageTestConfig(import.meta.dirname);

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Crash and concurrency tests spawn real node processes running the store from its sources;
    // this bundles those child scripts once per run.
    globalSetup: [TEMPORARY_FOLDER_CHECK, './src/__fixtures__/build-children.ts'],
  },
});
