// Guarantee: the PostgreSQL server restarts while two writer processes append: the writers get
// STORAGE_ERROR (never a crash, never another code), a retry with the same event id succeeds once
// the server is back, nothing acknowledged is lost and nothing is stored twice; no message shows
// the password of the connection URL.
// Source: issue 16 ("A server restart mid-run: clients get STORAGE_ERROR and retry succeeds,
// nothing acknowledged is lost"). The test starts a server of its own: stopping the shared one
// would disturb the other test files.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestPostgres,
  type TestPostgresServer,
} from '../../../../test-support/postgres-server.js';
import { temporaryDirectory } from '../../../../test-support/worker-process.js';
import { createPostgresStore } from '../../src/postgres-store.js';
import { withClient } from '../postgres-test-schema.js';
import { useWorkers } from './worker-setup.js';

const PASSWORD = 'restart-test-secret-Pw9';
const workers = useWorkers('restart');
const directory = temporaryDirectory();
let server: TestPostgresServer;
let url = '';
beforeAll(async () => {
  server = await startTestPostgres();
  // The server trusts local connections, so the password is never checked: it is here only to
  // prove that no output repeats it.
  url = server.url.replace('postgres@', `postgres:${PASSWORD}@`);
}, 300_000);
afterAll(async () => {
  await server?.destroy();
  directory.remove();
});

const acks = (lines: string[]) => lines.filter((line) => line.startsWith('ack ')).length;
const until = async (condition: () => boolean, what: string) => {
  for (const deadline = Date.now() + 60_000; !condition(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('a server restart under two writer processes', () => {
  it('STORAGE_ERROR while it is down, retries succeed after, 0 acknowledged lost, 0 duplicated', async () => {
    const store = await createPostgresStore({ connectionString: url, schema: workers.schema });
    await store.close();
    const stopFile = `${directory.path}/stop`;
    const writers = ['a', 'b'].map((prefix) => workers.worker('restart', [prefix, stopFile], url));
    await until(() => writers.every((writer) => acks(writer.lines) >= 20), 'acknowledgements');
    await server.stop();
    await until(
      () =>
        writers.every((writer) => writer.lines.some((line) => line.startsWith('storage-error'))),
      'STORAGE_ERRORs',
    );
    const before = writers.map((writer) => acks(writer.lines));
    await server.start();
    await until(
      () => writers.every((writer, index) => acks(writer.lines) >= (before[index] as number) + 20),
      'acknowledgements after the restart',
    );
    writeFileSync(stopFile, 'stop');
    const exits = await Promise.all(writers.map((writer) => writer.exited));
    for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
    for (const writer of writers) {
      const output = writer.lines.join('\n');
      expect(output).not.toContain('error fatal');
      expect(output).not.toContain(PASSWORD);
    }
    await withClient(server.url, async (client) => {
      const stored = (
        await client.query(`SELECT event_id FROM "${workers.schema}".episodic_events`)
      ).rows.map((row) => row.event_id as string);
      expect(new Set(stored).size).toBe(stored.length);
      const acknowledged = writers.flatMap((writer) =>
        writer.lines.filter((line) => line.startsWith('ack ')).map((line) => line.split(' ')[1]),
      );
      expect(new Set(acknowledged).size).toBe(acknowledged.length);
      expect(stored.sort()).toEqual((acknowledged as string[]).sort());
      const positions = (
        await client.query(
          `SELECT position::integer AS position FROM "${workers.schema}".episodic_events ORDER BY position`,
        )
      ).rows.map((row) => row.position as number);
      expect(positions.every((position, index) => position === index + 1)).toBe(true);
    });
    const errors = writers.flatMap((writer) =>
      writer.lines.filter((line) => line.startsWith('storage-error')),
    );
    console.log(
      `[figures] postgres server restart: ${errors.length} STORAGE_ERRORs seen by 2 writers while the server was down, ${writers.reduce((sum, writer) => sum + acks(writer.lines), 0)} appends acknowledged, 0 lost, 0 duplicated; e.g. ${errors[0]}`,
    );
  }, 180_000);
});
