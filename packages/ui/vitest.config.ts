import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const base = packageTestConfig(import.meta.dirname);

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // The browser tests start the demo, the CLI and Chromium: one file at a time is enough on two cores.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
