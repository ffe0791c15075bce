// Pins the PostgreSQL wiring of the `episodic` binary (issue 16): a `postgres://` URL works wherever
// a database is accepted (`--db`, `EPISODIC_DB`, `episodic mcp`), the password of that URL never
// appears in any output, log line or receipt, and `episodic migrate` copies a home (SQLite
// database or run files) into PostgreSQL losslessly: `episodic export --all --all-scopes` of the home
// and of the PostgreSQL copy are byte-identical, and the ledger (positions included), artifacts
// and episode metadata read back equal. The file starts its own throwaway server (see
// test-support/postgres-server.ts) unless EPISODIC_TEST_POSTGRES_URL names one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createSession,
  createTaskLifecycle,
  loadSession,
  type ModelCall,
  type RunRecord,
} from '@episodic/core';
import { openEpisodicStores } from '@episodic/home';
import { createFsStore } from '@episodic/store-fs';
import { createPostgresStore, schemaOfUrl } from '@episodic/store-postgres';
import { createSqliteStore } from '@episodic/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestPostgres,
  type TestPostgresServer,
} from '../../../test-support/postgres-server.js';
import {
  migrateReceiptSchema,
  searchReceiptSchema,
  searchRunsReceiptSchema,
} from '../src/receipts/index.js';
import {
  episodic,
  episodicJson,
  exitOf,
  expectError,
  startEpisodic,
  temporaryDirectory,
  temporaryHome,
  waitForOutput,
} from './helpers.js';

const PASSWORD = 'cli-test-Secret-4711';
let server: TestPostgresServer | undefined;
let base = '';
beforeAll(async () => {
  const given = process.env.EPISODIC_TEST_POSTGRES_URL;
  if (given !== undefined && given !== '') base = given;
  else {
    server = await startTestPostgres();
    base = server.url;
  }
}, 300_000);
afterAll(async () => {
  await server?.destroy();
});

let schemas = 0;
/** A URL with a password (the test server trusts local connections, so it is never checked). */
function urlFor(schema: string): string {
  const url = new URL(base);
  if (url.password === '') url.password = PASSWORD;
  url.searchParams.set('schema', schema);
  return url.toString();
}
const newSchema = () => `cli_${process.pid}_${++schemas}_${Date.now() % 100000}`;
const password = () => new URL(base).password || PASSWORD;

const RUN = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const SESSION = '4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a';
/** A session of turns: a base and deltas in the home. */
const TURNS = '6e5d4c3b-2a19-4f8e-9d7c-6b5a49382716';
const echo: ModelCall = async (request) => ({
  output: [{ type: 'message', role: 'assistant', content: `seen ${request.items.length} items` }],
});
const TS = '2026-01-10T10:00:00.000Z';

async function seed(home: string, store: 'sqlite' | 'fs'): Promise<void> {
  const stores = await openEpisodicStores({ home, store, env: {} });
  try {
    const records: RunRecord[] = [
      { type: 'header', schema_version: 1, run_id: RUN, session_id: SESSION, started_at: TS },
      { type: 'run.start', run_id: RUN, ts: TS, input: { type: 'text', text: 'héllo 😀' } },
      {
        type: 'agent.event',
        run_id: RUN,
        ts: TS,
        seq: 0,
        event: { type: 'text', big: 9007199254740991 },
      },
      { type: 'run.end', run_id: RUN, ts: TS, outcome: 'completed', final: 'done' },
    ];
    await stores.runs.append(RUN, records);
    await stores.sessions.save({
      schema_version: 1,
      session_id: SESSION,
      updated_at: TS,
      run_id: RUN,
      messages: [{ role: 'user', content: 'hello' }],
      revision: 3,
      future_field: { kept: true },
    } as never);
    // Past the per-commit fold (as a session over 1 MiB would be): a base and two deltas.
    const keepDeltas = { currentUpToBytes: 0 };
    const turnStore =
      store === 'sqlite'
        ? createSqliteStore({ filename: join(home, 'episodic.db'), fold: keepDeltas })
        : createFsStore({ root: home, fold: keepDeltas });
    try {
      const turns = createSession({ store: turnStore.sessions, id: TURNS });
      for (const input of ['first question', 'second question', 'third question'])
        await turns.runTurn(input, echo);
    } finally {
      await turnStore.close();
    }
    expect((await stores.sessions.read(TURNS))?.deltas).toHaveLength(2);
    const event = (index: number, session: string) => ({
      scope: 'proj',
      session_id: session,
      agent_id: 'agent',
      type: 'ops.decision' as const,
      event_id: `event-${session}-${index}`,
      summary: `decision ${index}`,
      payload: { index, text: 'ünïcode' },
      metadata: { team: 'infra', rank: index },
      ts_ms: 1_767_225_600_000 + index,
    });
    for (let index = 0; index < 5; index++) await stores.ledger.append(event(index, 's-1'));
    await stores.ledger.redact({ scope: 'proj', eventId: 'event-s-1-2' });
    // An expired session: its rows are collected, its head stays at 2.
    await stores.ledger.append({ ...event(0, 'old'), type: 'tool.result', ts_ms: 1_000 });
    await stores.ledger.append({ ...event(1, 'old'), type: 'tool.result', ts_ms: 2_000 });
    await stores.ledger.gc({ scope: 'proj', nowMs: Date.parse('2026-03-01T00:00:00.000Z') });
    // A task episode with its learned artifacts and metadata.
    const lifecycle = createTaskLifecycle({ runs: stores.runs, artifacts: stores.artifacts });
    const task = await lifecycle.createTask({
      task_description: 'Migrate to PostgreSQL',
      domain: 'cli',
      task_type: 'testing',
      metadata: { team: 'infra' },
    } as never);
    await lifecycle.addStep({
      episode_id: task.id,
      step_number: 1,
      tool: 'shell',
      action: 'copy',
      parameters: {},
    });
    await lifecycle.completeTask({
      episode_id: task.id,
      outcome_type: 'success',
      verdict: 'copied',
    });
    await stores.artifacts.setEpisodeMetadata('ledger:event-s-1-1', { source: 'manual' });
  } finally {
    await stores.close();
  }
}

async function snapshot(options: Parameters<typeof openEpisodicStores>[0]) {
  const stores = await openEpisodicStores({ ...options, env: {} });
  try {
    const events = (await stores.ledger.query({ global: true, limit: 500, includePayload: true }))
      .events;
    const artifacts = (await stores.artifacts.list({ limit: 500 })).artifacts;
    const metadata = await Promise.all(
      [...new Set(artifacts.flatMap((artifact) => artifact.episodes)), 'ledger:event-s-1-1'].map(
        async (ref) => [ref, await stores.artifacts.getEpisodeMetadata(ref as never)],
      ),
    );
    // The next position of the collected session tells whether its head came along.
    const next = await stores.ledger.append({
      scope: 'proj',
      session_id: 'old',
      agent_id: 'agent',
      type: 'ops.decision',
      summary: 'after',
      event_id: 'probe-after',
      ts_ms: 5,
    });
    return { events, artifacts, metadata, nextOldPosition: next.event.position };
  } finally {
    await stores.close();
  }
}

async function exportOf(args: string[]): Promise<string> {
  const file = join(temporaryDirectory(), 'export.jsonl');
  const result = await episodicJson([...args, 'export', '--all', '--all-scopes', '-o', file]);
  expect(result.status, result.stderr).toBe(0);
  return readFileSync(file, 'utf8');
}

describe.each(['sqlite', 'fs'] as const)('episodic migrate (runs and sessions in %s)', (store) => {
  it('copies the home into PostgreSQL losslessly: identical exports, ledger, artifacts and metadata', async () => {
    const home = temporaryHome();
    await seed(home, store);
    const url = urlFor(newSchema());
    const migrated = await episodicJson(['--home', home, '--store', store, 'migrate', '--to', url]);
    expect(migrated.status, migrated.stderr).toBe(0);
    const receipt = migrateReceiptSchema.parse(migrated.receipt);
    expect(receipt.copied).toMatchObject({ sessions: 2, runs: 2, events: 5 });
    expect(receipt.copied.artifacts).toBeGreaterThan(0);
    expect(receipt.copied.metadata).toBeGreaterThan(0);
    expect(receipt.to).not.toContain(password());
    expect(receipt.schema).toBe(new URL(url).searchParams.get('schema'));
    // Again: everything is already there.
    const again = migrateReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', store, 'migrate', '--to', url])).receipt,
    );
    expect(again.copied).toEqual({
      sessions: 0,
      runs: 0,
      records: 0,
      events: 0,
      artifacts: 0,
      metadata: 0,
    });
    expect(again.skipped).toMatchObject({ sessions: 2, runs: 2, events: 5 });

    const fromHome = await exportOf(['--home', home, '--store', store]);
    const fromPostgres = await exportOf(['--home', temporaryHome(), '--db', url]);
    expect(fromPostgres.split('\n').length).toBeGreaterThan(10);
    expect(fromPostgres).toBe(fromHome);
    expect(await snapshot({ db: url })).toEqual(await snapshot({ home, store }));
    for (const output of [migrated.stdout, migrated.stderr])
      expect(output).not.toContain(password());

    // The session of turns arrived folded (one base at its last revision) and takes commits
    // there; "sessions fold" folds them on PostgreSQL.
    const where = schemaOfUrl(url);
    const target = await createPostgresStore({
      connectionString: where.url,
      ...(where.schema === undefined ? {} : { schema: where.schema }),
      fold: { currentUpToBytes: 0 },
    });
    try {
      const stored = await target.sessions.read(TURNS);
      expect(stored).toMatchObject({ baseRevision: 3, deltas: [] });
      const session = await loadSession(target.sessions, TURNS);
      await session.runTurn('asked on PostgreSQL', echo);
      expect((await target.sessions.read(TURNS))?.deltas).toHaveLength(1);
    } finally {
      await target.close();
    }
    const fold = await episodicJson([
      '--home',
      temporaryHome(),
      '--db',
      url,
      'sessions',
      'fold',
      TURNS,
    ]);
    expect(fold.status, fold.stderr).toBe(0);
    expect(fold.receipt).toMatchObject({ session_id: TURNS, revision: 4, folded: 1 });
    expect(JSON.stringify(fold.receipt)).not.toContain(password());
    const listed = await episodicJson(['--home', temporaryHome(), '--db', url, 'sessions', 'list']);
    expect(listed.receipt).toMatchObject({
      sessions: expect.arrayContaining([
        expect.objectContaining({
          session_id: TURNS,
          revision: 4,
          base_revision: 4,
          last_user_message: 'asked on PostgreSQL',
        }),
      ]),
    });

    // doctor checks the PostgreSQL database: every session loads, every run reads.
    const doctor = async (env: Record<string, string> = {}) =>
      await episodicJson(['--home', temporaryHome(), '--db', url, 'doctor'], { env });
    const healthy = await doctor();
    expect(healthy.status, healthy.stderr).toBe(0);
    expect(healthy.receipt).toMatchObject({
      healthy: true,
      checked: {
        database: {
          integrity: 'not_checked',
          sessions: 2,
          runs: 2,
        },
      },
    });
    // The 5 migrated events, and whatever the turn on PostgreSQL indexed since.
    const checked = healthy.receipt.checked as { database: { events: number } };
    expect(checked.database.events).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(healthy.receipt)).not.toContain(password());
    const damaged = await openEpisodicStores({ db: url, env: {} });
    try {
      const schema = damaged.postgres?.schema as string;
      await damaged.postgres?.pool.query(
        `UPDATE "${schema}".episodic_sessions SET state_json = '{"not": "a session"' WHERE session_id = $1`,
        [TURNS],
      );
    } finally {
      await damaged.close();
    }
    const sick = await doctor();
    expect(sick.status).toBe(1);
    expect(sick.receipt).toMatchObject({ healthy: false });
    expect(JSON.stringify(sick.receipt)).toContain(`session ${TURNS}`);
  }, 300_000);
});

describe('a postgres:// URL wherever a database is accepted', () => {
  it('runs commands against PostgreSQL with --db and EPISODIC_DB, never printing the password', async () => {
    const url = urlFor(newSchema());
    const home = temporaryHome();
    const outputs: string[] = [];
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const result = await episodicJson(['--home', home, ...args], { env });
      outputs.push(result.stdout, result.stderr);
      expect(result.status, result.stderr).toBe(0);
      return result.receipt;
    };
    const append = [
      'episodes',
      'append',
      '--scope',
      'proj',
      '--session-id',
      's',
      '--agent-id',
      'a',
      '--type',
      'ops.decision',
    ];
    await run(['--db', url, ...append, '--summary', 'first']);
    await run([...append, '--summary', 'second'], { EPISODIC_DB: url });
    const page = (await run(['--db', url, 'episodes', 'query', '--scope', 'proj'])) as {
      events: Array<{ summary: string; position: number }>;
    };
    expect(page.events.map((event) => [event.summary, event.position])).toEqual([
      ['first', 1],
      ['second', 2],
    ]);
    await run(['--db', url, 'episodes', 'replay', 's', '--scope', 'proj']);
    const created = (await run([
      '--db',
      url,
      'tasks',
      'create',
      '--description',
      'On PostgreSQL',
      '--domain',
      'cli',
      '--task-type',
      'testing',
    ])) as { task: { id: string } };
    await run([
      '--db',
      url,
      'tasks',
      'step',
      created.task.id,
      '--step',
      '1',
      '--tool',
      't',
      '--action',
      'a',
    ]);
    await run([
      '--db',
      url,
      'tasks',
      'complete',
      created.task.id,
      '--outcome',
      'success',
      '--verdict',
      'ok',
    ]);
    await run(['--db', url, 'tasks', 'show', created.task.id]);
    await run(['--db', url, 'runs', 'list']);
    await run(['--db', url, 'sessions', 'list']);
    await run(['--db', url, 'episodes', 'redact', '--scope', 'proj', '--session-id', 's']);
    await run(['--db', url, 'episodes', 'gc', '--scope', 'proj']);
    // Every scope on PostgreSQL: listed per scope first, collected with --yes.
    const everyScope = [
      '--db',
      url,
      'episodes',
      'gc',
      '--all-scopes',
      '--policy',
      'ops.decision=0',
    ];
    const planned = (await run([...everyScope, '--dry-run'])) as {
      by_scope: Array<{ scope: string; deleted_total: number }>;
    };
    expect(planned.by_scope).toEqual([
      expect.objectContaining({ scope: 'proj', deleted_total: 2 }),
    ]);
    expect(await run([...everyScope, '--yes'])).toMatchObject({
      all_scopes: true,
      deleted_total: 2,
    });
    const human = await episodic([
      '--home',
      home,
      '--db',
      url,
      'episodes',
      'query',
      '--scope',
      'proj',
    ]);
    outputs.push(human.stdout, human.stderr);
    expect(human.status).toBe(0);
    for (const output of outputs) expect(output).not.toContain(password());
  }, 300_000);

  it('runs redact scrubs task metadata from every table, the artifact store copy included', async () => {
    const schema = newSchema();
    const url = urlFor(schema);
    const home = temporaryHome();
    // Assembled at run time, so no file holds them before the test writes them.
    const secret = (n: number) => `AKIA${'QWERTYUIOPASDFGH'.slice(n)}${'Z234567'.slice(0, n)}`;
    const [value, key] = [secret(1), secret(2)];
    const run = async (args: string[]) => {
      const result = await episodicJson(['--home', home, '--db', url, ...args]);
      expect(result.status, result.stderr).toBe(0);
      return result.receipt;
    };
    const created = (await run([
      'tasks',
      'create',
      '--description',
      'metadata with a secret',
      '--domain',
      'cli',
      '--task-type',
      'testing',
      '--metadata-json',
      JSON.stringify({ token: value, [`k-${key}`]: 'v' }),
    ])) as { task: { id: string } };
    const stores = await openEpisodicStores({ db: url, env: {} });
    try {
      const pool = stores.postgres?.pool;
      expect(pool).toBeDefined();
      const found = async () => {
        const tables = await pool?.query<{ name: string }>(
          'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1',
          [schema],
        );
        const hits: string[] = [];
        for (const { name } of tables?.rows ?? []) {
          const rows = await pool?.query<{ row: string }>(
            `SELECT row_to_json(t)::text AS row FROM "${schema}"."${name}" t`,
          );
          for (const { row } of rows?.rows ?? []) {
            for (const needle of [value, key])
              if (row.includes(needle)) hits.push(`${name}: ${needle}`);
          }
        }
        return hits.sort();
      };
      // The test can fail: both secrets are in the artifact store's copy of the task metadata
      // (the run itself is a run file of the home here; caller-fields-residue covers those).
      expect(await found()).toEqual(
        [`episodic_episode_metadata: ${value}`, `episodic_episode_metadata: ${key}`].sort(),
      );
      await run(['runs', 'redact', created.task.id]);
      expect(await found()).toEqual([]);
      expect(await stores.artifacts.getEpisodeMetadata(`task:${created.task.id}`)).toEqual({
        token: '[REDACTED:aws_key]',
        'k-[REDACTED:aws_key]': 'v',
      });
    } finally {
      await stores.close();
    }
  }, 300_000);

  it('searches when the PostgreSQL ledger keeps a search index, else answers UNSUPPORTED with the fix', async () => {
    const url = urlFor(newSchema());
    const home = temporaryHome();
    const appended = await episodicJson([
      '--home',
      home,
      '--db',
      url,
      'episodes',
      'append',
      '--scope',
      'proj',
      '--session-id',
      's',
      '--agent-id',
      'a',
      '--type',
      'ops.decision',
      '--summary',
      'raise the rate limit',
    ]);
    expect(appended.status, appended.stderr).toBe(0);
    const result = await episodicJson([
      '--home',
      home,
      '--db',
      url,
      'search',
      'rate limit',
      '--scope',
      'proj',
    ]);
    expect(result.stdout + result.stderr).not.toContain(password());
    if (result.status === 0) {
      // The store gained search (issue #32 step 3): the same receipt as SQLite's.
      const receipt = searchReceiptSchema.parse(result.receipt);
      expect(receipt.hits).toHaveLength(1);
      expect(receipt.hits[0]?.snippet).toContain('«');
    } else {
      const message = expectError(result, 1, 'UNSUPPORTED');
      expect(message).toContain('keeps no search index');
      expect(message).toContain('episodic episodes query');
    }
  }, 300_000);

  it('searches the runs of a PostgreSQL home (search --runs): a task step is found, its run named', async () => {
    const url = urlFor(newSchema());
    const home = temporaryHome();
    const run = async (args: string[]) => {
      const result = await episodicJson(['--home', home, '--db', url, ...args]);
      expect(result.stdout + result.stderr).not.toContain(password());
      expect(result.status, result.stderr).toBe(0);
      return result.receipt;
    };
    const created = (await run([
      'tasks',
      'create',
      '--description',
      'Tune the cache',
      '--domain',
      'cli',
      '--task-type',
      'testing',
    ])) as { task: { id: string } };
    await run([
      'tasks',
      'step',
      created.task.id,
      '--step',
      '1',
      '--tool',
      'shell',
      '--action',
      'flush the narwhal cache',
    ]);
    const receipt = searchRunsReceiptSchema.parse(await run(['search', 'narwhal', '--runs']));
    expect(receipt.hits).toHaveLength(1);
    expect(receipt.hits[0]?.run_id).toBe(created.task.id);
    expect(receipt.hits[0]?.snippet).toContain('«narwhal»');
    const none = searchRunsReceiptSchema.parse(
      await run(['search', 'narwhal', '--runs', '--type', 'run.start']),
    );
    expect(none.hits).toEqual([]);
  }, 300_000);

  it('reports an unreachable server as STORAGE_ERROR without the password', async () => {
    const secret = 'never-shown-Pw-5';
    const result = await episodicJson(
      [
        '--db',
        `postgres://alice:${secret}@127.0.0.1:9/episodic`,
        'episodes',
        'query',
        '--scope',
        'proj',
      ],
      {
        env: { PGCONNECT_TIMEOUT: '2' },
      },
    );
    const message = expectError(result, 1, 'STORAGE_ERROR');
    expect(message).toContain('postgres://alice@127.0.0.1:9/episodic');
    expect(result.stdout + result.stderr).not.toContain(secret);
  }, 300_000);

  it('serves MCP over stdio from PostgreSQL, logging the server without the password', async () => {
    const url = urlFor(newSchema());
    const child = startEpisodic(['--home', temporaryHome(), '--db', url, 'mcp', '--scope', 'proj']);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const request = (id: number, method: string, params: Record<string, unknown>) =>
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'pg-test', version: '1.0.0' },
    });
    await waitForOutput(child, (stdout) => stdout.includes('"id":1'));
    child.stdin?.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    request(2, 'tools/call', {
      name: 'create_episode',
      arguments: {
        task_description: 'Over MCP on PostgreSQL',
        domain: 'mcp',
        task_type: 'testing',
      },
    });
    const stdout = await waitForOutput(child, (text) => text.includes('"id":2'));
    child.stdin?.end();
    expect(await exitOf(child)).toBe(0);
    const answer = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((message) => message.id === 2);
    expect(answer.result.isError).not.toBe(true);
    const id =
      JSON.parse(answer.result.content[0].text).episode_id ??
      JSON.parse(answer.result.content[0].text).id;
    expect(typeof id).toBe('string');
    expect(stderr).toContain(new URL(url).host);
    expect(stdout + stderr).not.toContain(password());
    const shown = await episodicJson(['--db', url, 'tasks', 'show', id, '--scope', 'proj']);
    expect(shown.status, shown.stderr).toBe(0);
  }, 300_000);
});
