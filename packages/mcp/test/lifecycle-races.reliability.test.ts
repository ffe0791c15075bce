// Several MCP servers on one history: 4 real `episodic-mcp` processes (the BUILT bin, run `npx
// tsup` first) on one home, each driven by its own client, add steps to the same task while each
// also tries to complete it. Whatever the interleaving: every acknowledged step is stored exactly
// once, step numbers increase in storage order, exactly one completion is acknowledged and no step
// is stored after it. Once with run files, once with the SQLite database, once with a PostgreSQL
// database (a throwaway server, or EPISODIC_TEST_POSTGRES_URL's).
// Issue 29: the same servers send the SAME complete_episode at once: exactly one answers
// `duplicate: false`; every other call, racing or repeated afterwards, answers alike (the stored
// result with `duplicate: true`), never a second acknowledged completion and never CONFLICT.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunRecord, RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore, schemaOfUrl } from '@episodic/store-postgres';
import { createSqliteStore } from '@episodic/store-sqlite';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  startTestPostgres,
  type TestPostgresServer,
} from '../../../test-support/postgres-server.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const SERVERS = 4;
const ROUNDS = FULL ? 100 : 3;
const STEPS = FULL ? 250 : 25;
const SAME_ROUNDS = FULL ? 100 : 5;

const bin = fileURLToPath(new URL('../dist/bin/episodic-mcp.js', import.meta.url));
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

type StoreKind = 'fs' | 'sqlite' | 'postgres';
let server: TestPostgresServer | undefined;
let schemas = 0;
/** A fresh schema on the test server (started on first use) for one postgres case. */
async function postgresUrl(): Promise<string> {
  let base = process.env.EPISODIC_TEST_POSTGRES_URL ?? '';
  if (base === '') {
    server ??= await startTestPostgres();
    base = server.url;
  }
  const url = new URL(base);
  url.searchParams.set('schema', `races_${process.pid}_${++schemas}`);
  created.push(url.toString());
  return url.toString();
}
const created: string[] = [];
afterAll(async () => {
  // A given server keeps running: drop the schemas these cases created there.
  for (const db of created) {
    const { url, schema } = schemaOfUrl(db);
    const store = await createPostgresStore({ connectionString: url, schema, migrate: false });
    await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await store.close();
  }
  await server?.destroy();
});

/** Where the servers of one case keep their history: a home, and for postgres a database URL. */
interface History {
  home: string;
  db?: string;
}

interface Server {
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ ok: boolean; body: Record<string, unknown> }>;
  /** What the server wrote to stderr so far (its log: a storage failure's cause is there). */
  log(): string;
  close(): Promise<void>;
}

async function startServer(history: History, store: StoreKind): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, '--scope', 'races', ...(store === 'fs' ? ['--store', 'fs'] : [])],
    env: {
      PATH: process.env.PATH ?? '',
      EPISODIC_HOME: history.home,
      ...(history.db === undefined ? {} : { EPISODIC_DB: history.db }),
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'episodic-races', version: '1.0.0' });
  await client.connect(transport);
  const log: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => log.push(String(chunk)));
  return {
    log: () => log.join('').slice(-20_000),
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      return { ok: result.isError !== true, body: JSON.parse(text) as Record<string, unknown> };
    },
    close: () => client.close(),
  };
}

/** The task's stored records, read straight from the store the servers share. */
async function storedRecords(history: History, store: StoreKind, id: string): Promise<RunRecord[]> {
  const opened =
    store === 'fs'
      ? createFsStore({ root: history.home })
      : store === 'sqlite'
        ? createSqliteStore({ filename: join(history.home, 'episodic.db') })
        : await createPostgresStore({
            connectionString: schemaOfUrl(history.db as string).url,
            schema: schemaOfUrl(history.db as string).schema as string,
          });
  const runs: RunStore = opened.runs;
  try {
    const read = await runs.read(id);
    expect(read.errors).toEqual([]);
    return read.records;
  } finally {
    await opened.close();
  }
}

describe('the task lifecycle across MCP server processes', () => {
  for (const store of ['fs', 'sqlite', 'postgres'] as const) {
    it(`${SERVERS} episodic-mcp processes on one ${store} home: each acknowledged step stored once, increasing; one completion; no step after it`, async () => {
      expect(existsSync(bin), 'build the package first: npx tsup').toBe(true);
      const home = mkdtempSync(join(tmpdir(), `episodic-races-${store}-`));
      directories.push(home);
      const history: History = store === 'postgres' ? { home, db: await postgresUrl() } : { home };
      const servers = await Promise.all(
        Array.from({ length: SERVERS }, () => startServer(history, store)),
      );
      let stepsAcknowledged = 0;
      let stepsRefused = 0;
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const created = await servers[round % SERVERS]?.call('create_episode', {
            task_description: `race round ${round}`,
            domain: 'reliability',
            task_type: 'debugging',
          });
          expect(created?.ok).toBe(true);
          const id = created?.body.episode_id as string;
          const acknowledged = new Set<number>();
          const completions: string[] = [];
          await Promise.all(
            servers.map(async (server, writer) => {
              // Each writer tries to complete once, towards the end of the round, at its own point,
              // so completions race each other and the other writers' last steps.
              const completeAt =
                STEPS - 1 - ((writer + round) % SERVERS) * Math.max(1, Math.floor(STEPS / 25));
              for (let index = 0; index < STEPS; index++) {
                // Numbers unique to this writer and increasing, interleaved with the others'.
                const stepNumber = index * SERVERS + writer + 1;
                const added = await server.call('add_episode_step', {
                  episode_id: id,
                  step_number: stepNumber,
                  tool: `writer-${writer}`,
                  action: `step ${stepNumber}`,
                  result: { type: 'success' },
                });
                if (added.ok) {
                  acknowledged.add(stepNumber);
                  stepsAcknowledged++;
                } else {
                  expect(added.body.code, `${JSON.stringify(added.body)}\n${server.log()}`).toBe(
                    'CONFLICT',
                  );
                  stepsRefused++;
                }
                if (index === completeAt) {
                  const outcome =
                    writer % 2 === 0
                      ? { outcome_type: 'success', verdict: `writer ${writer} finished` }
                      : { outcome_type: 'failure', reason: `writer ${writer} gave up` };
                  const completed = await server.call('complete_episode', {
                    episode_id: id,
                    ...outcome,
                  });
                  if (completed.ok) completions.push(`writer ${writer}`);
                  else expect(completed.body.code).toBe('CONFLICT');
                }
              }
            }),
          );
          expect(completions).toHaveLength(1);
          const records = await storedRecords(history, store, id);
          const events = records.filter((record) => record.type === 'agent.event') as Array<
            RunRecord & { event: { type: string; step_number?: number } }
          >;
          const completedAt = events.findIndex((record) => record.event.type === 'task_completed');
          expect(completedAt).toBeGreaterThanOrEqual(0);
          expect(events.filter((record) => record.event.type === 'task_completed')).toHaveLength(1);
          // Nothing after the completion but its terminal records.
          expect(events.slice(completedAt + 1)).toEqual([]);
          const stored = events
            .slice(0, completedAt)
            .map((record) => record.event.step_number as number);
          expect(stored).toEqual([...stored].sort((left, right) => left - right));
          expect(new Set(stored).size).toBe(stored.length);
          expect(new Set(stored)).toEqual(acknowledged);
        }
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
      console.log(
        `[figures] lifecycle races (${store}): ${SERVERS} MCP servers × ${ROUNDS} rounds × ${STEPS} steps each: ${stepsAcknowledged} steps acknowledged (each stored once, increasing), ${stepsRefused} refused with CONFLICT, ${ROUNDS} completions acknowledged (1 per round), 0 steps after a completion`,
      );
    }, 600_000);

    it(`${SERVERS} episodic-mcp processes send the same completion at once on one ${store} home: exactly one acknowledged, every other (racing or repeated) the same duplicate answer`, async () => {
      expect(existsSync(bin), 'build the package first: npx tsup').toBe(true);
      const home = mkdtempSync(join(tmpdir(), `episodic-same-${store}-`));
      directories.push(home);
      const history: History = store === 'postgres' ? { home, db: await postgresUrl() } : { home };
      const servers = await Promise.all(
        Array.from({ length: SERVERS }, () => startServer(history, store)),
      );
      let duplicates = 0;
      try {
        for (let round = 0; round < SAME_ROUNDS; round++) {
          const created = await servers[round % SERVERS]?.call('create_episode', {
            task_description: `same completion round ${round}`,
            domain: 'reliability',
            task_type: 'debugging',
          });
          expect(created?.ok).toBe(true);
          const id = created?.body.episode_id as string;
          const step = await servers[(round + 1) % SERVERS]?.call('add_episode_step', {
            episode_id: id,
            step_number: 1,
            tool: 'probe',
            action: 'look',
            result: { type: 'success' },
          });
          expect(step?.ok).toBe(true);
          const completion = {
            episode_id: id,
            outcome_type: 'success',
            verdict: `round ${round} done`,
            artifacts: ['fix.ts'],
          };
          const racing = await Promise.all(
            servers.map((server) => server.call('complete_episode', completion)),
          );
          const repeated = await Promise.all(
            servers.map((server) => server.call('complete_episode', completion)),
          );
          for (const answer of [...racing, ...repeated])
            expect(answer.ok, JSON.stringify(answer.body)).toBe(true);
          const acknowledged = racing.filter((answer) => answer.body.duplicate === false);
          expect(acknowledged).toHaveLength(1);
          const original = acknowledged[0]?.body as Record<string, unknown>;
          const { message: _message, duplicate: _duplicate, ...result } = original;
          for (const answer of [...racing, ...repeated]) {
            if (answer.body === original) continue;
            expect(answer.body).toMatchObject({ ...result, duplicate: true });
            duplicates++;
          }
          // A different outcome, afterwards, is refused.
          const other = await servers[round % SERVERS]?.call('complete_episode', {
            episode_id: id,
            outcome_type: 'failure',
            reason: 'too late',
          });
          expect(other?.body.code).toBe('CONFLICT');
          const records = await storedRecords(history, store, id);
          expect(
            records.filter(
              (record) =>
                record.type === 'agent.event' &&
                (record as { event: { type: string } }).event.type === 'task_completed',
            ),
          ).toHaveLength(1);
          expect(records.filter((record) => record.type === 'run.end')).toHaveLength(1);
        }
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
      console.log(
        `[figures] same completion (${store}): ${SERVERS} MCP servers × ${SAME_ROUNDS} rounds, ${SERVERS} identical complete_episode calls at once then ${SERVERS} repeats: ${SAME_ROUNDS} acknowledged (1 per round), ${duplicates} answered duplicate: true with the stored result, 0 CONFLICT, 1 task_completed record per task`,
      );
    }, 600_000);
  }
});
