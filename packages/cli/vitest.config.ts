import { defineConfig } from 'vitest/config';
import { packageTestConfig, TEMPORARY_FOLDER_CHECK } from '../../vitest.shared.js';

const shared = packageTestConfig(import.meta.dirname);

export default defineConfig({
  ...shared,
  test: { ...shared.test, globalSetup: [TEMPORARY_FOLDER_CHECK, './test/global-setup.ts'] },
});
