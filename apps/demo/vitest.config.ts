import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const shared = packageTestConfig(import.meta.dirname);

export default defineConfig({
  ...shared,
  // Most tests run the whole demo (its MCP server and a resumed child process included), some
  // several times: on a busy 2-core machine one run can take tens of seconds.
  test: { ...shared.test, testTimeout: 180_000, hookTimeout: 180_000 },
});
