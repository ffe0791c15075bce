import {
  startTestPostgres,
  type TestPostgresServer,
} from '../../../test-support/postgres-server.js';

/** The server: the one EPISODIC_BENCH_POSTGRES_URL names, else a throwaway one like the tests'. */
export async function benchServer(): Promise<{ url: string; server?: TestPostgresServer }> {
  const given = process.env.EPISODIC_BENCH_POSTGRES_URL;
  if (given !== undefined && given !== '') return { url: given };
  const server = await startTestPostgres();
  return { url: server.url, server };
}

/** How a row names the server it measured on. */
export function serverName(server: TestPostgresServer | undefined): string {
  return server === undefined
    ? 'the server at EPISODIC_BENCH_POSTGRES_URL'
    : 'a throwaway local server (fsync on)';
}
