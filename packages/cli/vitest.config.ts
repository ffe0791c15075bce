import { defineConfig } from 'vitest/config';
import { packageTestConfig, TEMPORARY_FOLDER_CHECK } from '../../vitest.shared.js';

const shared = packageTestConfig(import.meta.dirname);

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    globalSetup: [TEMPORARY_FOLDER_CHECK, './test/global-setup.ts'],
    // Most tests run the CLI in this process (test/helpers.ts): bare dates and "today" are local
    // days, so the zone is pinned here as it is for the binaries they spawn.
    env: { TZ: 'UTC' },
  },
});
