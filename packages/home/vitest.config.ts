import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

export default defineConfig(packageTestConfig(import.meta.dirname));
