import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
// The type of inject('postgresUrl').
import type {} from '../../../test-support/postgres-global-setup.js';

/** The test server's URL (see `test-support/postgres-global-setup.ts`). */
export function testPostgresUrl(): string {
  return inject('postgresUrl');
}

/** The test server's data folder, or '' when the tests use a server given by URL. */
export function testPostgresDataDirectory(): string {
  return inject('postgresDataDirectory');
}

/** A schema name no other test uses. */
export function uniqueSchema(prefix = 'test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Drops a test's schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** Runs `work` with one client of the test server, closed afterwards. */
export async function withClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
