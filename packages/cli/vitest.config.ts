import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

const shared = packageTestConfig(import.meta.dirname);

export default defineConfig({
  ...shared,
  test: { ...shared.test, globalSetup: ['./test/global-setup.ts'] },
});
