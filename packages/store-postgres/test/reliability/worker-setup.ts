import { afterAll, beforeAll } from 'vitest';
import { startWorker, type Worker } from '../../../../test-support/worker-process.js';
import { dropSchema, testPostgresUrl, uniqueSchema, withClient } from '../postgres-test-schema.js';
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

/**
 * Waits until the server has ended every connection of a killed worker: a statement it sent
 * before dying still runs to its end (and commits), so checks start only after that.
 */
export async function connectionsGone(worker: Worker): Promise<void> {
  const name = `reliability-${worker.child.pid}`;
  await withClient(testPostgresUrl(), async (client) => {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const { rows } = await client.query(
        'SELECT count(*)::integer AS n FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
      if (rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`the server still has connections of ${name} after 10 s`);
  });
}
