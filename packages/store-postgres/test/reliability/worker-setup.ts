import { afterAll, beforeAll } from 'vitest';
import { startWorker, type Worker } from '../../../../test-support/worker-process.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../postgres-test-schema.js';
import { buildWorker } from './build-worker.js';

export { FULL } from '../../../../test-support/worker-process.js';

/**
 * For one reliability test file: bundles the worker once, gives the file a schema of its own
 * (dropped afterwards), and starts workers against it: `worker(mode, ...args)`.
 */
export function useWorkers(prefix: string) {
  const schema = uniqueSchema(prefix);
  let script = '';
  beforeAll(async () => {
    script = await buildWorker('postgres-worker');
  }, 120_000);
  afterAll(() => dropSchema(testPostgresUrl(), schema));
  return {
    schema,
    url: () => testPostgresUrl(),
    worker(mode: string, args: string[], url = testPostgresUrl()): Worker {
      return startWorker(script, [mode, url, schema, ...args]);
    },
  };
}
