// Vitest global setup: starts one throwaway PostgreSQL server for the run (see
// test-support/postgres-server.ts) unless EPISODIC_TEST_POSTGRES_URL names one, and hands its URL
// to the tests as EPISODIC_TEST_POSTGRES_URL. The server and its data folder are removed afterwards.
import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './postgres-server.js';

export default async function setup(project: TestProject) {
  const given = process.env.EPISODIC_TEST_POSTGRES_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    project.provide('postgresDataDirectory', '');
    return;
  }
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  project.provide('postgresDataDirectory', server.dataDirectory);
  return async () => {
    await server.destroy();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresDataDirectory: string;
  }
}
