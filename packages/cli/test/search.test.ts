import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import { searchReceiptSchema, searchRunsReceiptSchema } from '../src/receipts/index.js';
import {
  appendEvent,
  episodic,
  episodicBinaryJson,
  episodicJson,
  expectError,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

const T0 = Date.UTC(2026, 0, 10, 10, 0, 0);

/** Four events in scope proj, one in scope other, all holding searchable words. */
async function seed(home: string, flags: string[] = []): Promise<void> {
  const events = [
    {
      'session-id': 's1',
      'agent-id': 'planner',
      type: 'conversation.user',
      summary: 'the rate limit of the billing API was hit',
      'ts-ms': String(T0),
    },
    {
      'session-id': 's1',
      'agent-id': 'worker',
      type: 'tool.result',
      summary: 'retried after rate limit backoff',
      'ts-ms': String(T0 + 1000),
    },
    {
      'session-id': 's2',
      'agent-id': 'worker',
      type: 'tool.call',
      summary: 'deploy to staging',
      'ts-ms': String(T0 + 2000),
    },
    {
      'session-id': 's2',
      'agent-id': 'planner',
      type: 'ops.decision',
      summary: 'raise the rate limit',
      'ts-ms': String(T0 + 3000),
    },
  ];
  for (const event of events) await appendEvent(home, { scope: 'proj', ...event }, flags);
  await appendEvent(
    home,
    {
      scope: 'other',
      'session-id': 'x',
      summary: 'rate limit in another scope',
      'ts-ms': String(T0),
    },
    flags,
  );
}

const search = (home: string, ...args: string[]) =>
  episodicJson(['--home', home, 'search', ...args]);

describe('episodic search', () => {
  it('finds the events holding every word, best first, within the scope, with a receipt', async () => {
    const home = temporaryHome();
    await seed(home);
    const result = await search(home, 'rate limit', '--scope', 'proj');
    expect(result.status, result.stderr).toBe(0);
    const receipt = searchReceiptSchema.parse(result.receipt);
    expect(receipt).toMatchObject({
      scope: 'proj',
      all_scopes: false,
      query: 'rate limit',
      count: 3,
    });
    expect(receipt.hits.map((hit) => hit.agent_id).sort()).toEqual([
      'planner',
      'planner',
      'worker',
    ]);
    expect(receipt.hits.every((hit) => hit.snippet.includes('«rate»'))).toBe(true);
    const scores = receipt.hits.map((hit) => hit.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(receipt.next_cursor).toBeNull();

    const every = searchReceiptSchema.parse(
      (await search(home, 'rate limit', '--all-scopes')).receipt,
    );
    expect(every.count).toBe(4);
    expect(every.scope).toBeNull();
  });

  it('applies the session, agent, type and time filters', async () => {
    const home = temporaryHome();
    await seed(home);
    const hitsOf = async (...args: string[]) => {
      const result = await search(home, 'rate limit', '--scope', 'proj', ...args);
      expect(result.status, result.stderr).toBe(0);
      return searchReceiptSchema.parse(result.receipt).hits.map((hit) => hit.type);
    };
    expect(await hitsOf('--session-id', 's2')).toEqual(['ops.decision']);
    expect((await hitsOf('--agent-id', 'worker')).length).toBe(1);
    expect((await hitsOf('--type', 'Conversation.User', '--type', 'ops.decision')).sort()).toEqual([
      'conversation.user',
      'ops.decision',
    ]);
    expect(await hitsOf('--from', String(T0 + 500), '--to', String(T0 + 1500))).toEqual([
      'tool.result',
    ]);
    const receipt = searchReceiptSchema.parse(
      (
        await search(
          home,
          'rate',
          '--scope',
          'proj',
          '--agent-id',
          'worker',
          '--type',
          'tool.result',
        )
      ).receipt,
    );
    expect(receipt.filters).toMatchObject({
      agent_id: 'worker',
      types: ['tool.result'],
      limit: 20,
    });
  });

  it('filters by metadata, and --global is the scope named global, not every scope', async () => {
    const home = temporaryHome();
    await appendEvent(home, { scope: 'proj', summary: 'invoice overdue' }, [
      '--metadata-json',
      '{"source":"crm","priority":5}',
    ]);
    await appendEvent(home, { scope: 'proj', summary: 'invoice paid' }, [
      '--metadata-json',
      '{"source":"mail","priority":1}',
    ]);
    const found = await search(home, 'invoice', '--scope', 'proj', '--metadata', 'priority>=5');
    expect(found.status, found.stderr).toBe(0);
    const receipt = searchReceiptSchema.parse(found.receipt);
    expect(receipt.hits.map((hit) => hit.snippet)).toEqual(['«invoice» overdue']);
    expect(receipt.filters.metadata).not.toBeNull();
    const global = searchReceiptSchema.parse((await search(home, 'invoice', '--global')).receipt);
    expect(global.scope).toBe('global');
    // Only events another tool stored without a scope live there: proj's are never found.
    expect(global.hits).toEqual([]);
  });

  it('pages with --cursor until next_cursor is null, each hit once', async () => {
    const home = temporaryHome();
    await seed(home);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const result = await search(
        home,
        'rate',
        '--scope',
        'proj',
        '--limit',
        '1',
        ...(cursor === null ? [] : ['--cursor', cursor]),
      );
      expect(result.status, result.stderr).toBe(0);
      const receipt = searchReceiptSchema.parse(result.receipt);
      seen.push(...receipt.hits.map((hit) => hit.event_id));
      cursor = receipt.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);

    const human = await episodic([
      '--home',
      home,
      'search',
      'rate',
      '--scope',
      'proj',
      '--limit',
      '2',
    ]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/2 hits; next page: add --cursor s1\.\S+/);
  });

  it('prints a table with «» markers when piped, bold matches on a colour terminal', async () => {
    const home = temporaryHome();
    await seed(home);
    const plain = await episodic(['--home', home, 'search', 'staging', '--scope', 'proj']);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^TIME\s+TYPE\s+SESSION\s+AGENT\s+SNIPPET$/m);
    expect(plain.stdout).toContain('deploy to «staging»');
    expect(plain.stdout).toContain('1 hit\n');
    const coloured = await episodic(['--home', home, 'search', 'staging', '--scope', 'proj'], {
      env: { FORCE_COLOR: '1' },
    });
    expect(coloured.stdout).toContain('deploy to \u001b[1m\u001b[33mstaging\u001b[39m\u001b[22m');
    expect(coloured.stdout).not.toContain('«');

    const none = await episodic(['--home', home, 'search', 'nowhere', '--scope', 'proj']);
    expect(none.status).toBe(0);
    expect(none.stdout).toContain('0 hits');
    expect(none.stderr).toContain('Nothing in scope "proj" holds every word of "nowhere"');
  });

  it('refuses bad input with exit 2 naming the field, before opening the home', async () => {
    const home = temporaryHome();
    expect(expectError(await search(home, 'rate'), 2, 'SCOPE_REQUIRED')).toContain('--scope');
    expect(expectError(await search(home, '   ', '--scope', 'p'), 2, 'VALIDATION_ERROR')).toContain(
      'text',
    );
    expect(
      expectError(
        await search(home, 'rate', '--scope', 'p', '--cursor', 'nonsense'),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('--cursor');
    expect(
      expectError(
        await search(home, 'rate', '--scope', 'p', '--limit', '101'),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('--limit');
    expect(
      expectError(
        await search(home, 'rate', '--scope', 'p', '--type', 'tool.nope'),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('tool.nope');
    expect(expectError(await episodicJson(['--home', home, 'search']), 2, 'USAGE_ERROR')).toContain(
      'TEXT',
    );
    expect(existsSync(home)).toBe(false);
  });

  it('finds nothing in a missing home and creates nothing', async () => {
    const home = temporaryHome();
    const result = await search(home, 'rate', '--scope', 'proj');
    expect(result.status, result.stderr).toBe(0);
    expect(searchReceiptSchema.parse(result.receipt).count).toBe(0);
    expect(existsSync(home)).toBe(false);
  });

  it('searches a file home (its ledger in the home database) and a SQLite file given by --db', async () => {
    const home = temporaryHome();
    await seed(home, ['--store', 'fs']);
    const fileHome = await episodicJson([
      '--home',
      home,
      '--store',
      'fs',
      'search',
      'backoff',
      '--scope',
      'proj',
    ]);
    expect(fileHome.status, fileHome.stderr).toBe(0);
    expect(searchReceiptSchema.parse(fileHome.receipt).hits.map((hit) => hit.type)).toEqual([
      'tool.result',
    ]);

    const db = join(temporaryDirectory(), 'agent.db');
    const appended = await episodicJson([
      '--db',
      db,
      'episodes',
      'append',
      '--scope',
      'p',
      '--session-id',
      's',
      '--agent-id',
      'a',
      '--type',
      'tool.call',
      '--summary',
      'compile the "café" module',
    ]);
    expect(appended.status, appended.stderr).toBe(0);
    const found = await episodicJson(['--db', db, 'search', 'CAFE module', '--scope', 'p']);
    expect(found.status, found.stderr).toBe(0);
    expect(searchReceiptSchema.parse(found.receipt).hits[0]?.snippet).toContain('«café»');
  });

  it('runs from the built binary end to end', () => {
    const home = temporaryHome();
    const append = episodicBinaryJson([
      '--home',
      home,
      'episodes',
      'append',
      '--scope',
      'proj',
      '--session-id',
      's1',
      '--agent-id',
      'a',
      '--type',
      'tool.call',
      '--summary',
      'rotate the signing keys',
    ]);
    expect(append.status, append.stderr).toBe(0);
    const result = episodicBinaryJson([
      '--home',
      home,
      'search',
      '"signing keys"',
      '--scope',
      'proj',
    ]);
    expect(result.status, result.stderr).toBe(0);
    const receipt = searchReceiptSchema.parse(result.receipt);
    expect(receipt.hits.map((hit) => hit.snippet)).toEqual(['rotate the «signing keys»']);
  });
});

describe('episodic search --runs', () => {
  const runId = (index: number) =>
    `0f0e0d0c-0b0a-4908-8706-${index.toString(16).padStart(12, '0')}`;
  /** A SQLite file holding two runs with searchable records. */
  async function seedRuns(): Promise<string> {
    const db = join(temporaryDirectory(), 'runs.db');
    const store = createSqliteStore({ filename: db });
    for (const [index, output, ts] of [
      [1, 'permission denied on /etc/shadow', '2026-01-10T10:00:00.000Z'],
      [2, 'all good, permission granted', '2026-01-12T10:00:00.000Z'],
    ] as const) {
      const id = runId(index);
      await store.runs.append(id, [
        { type: 'header', schema_version: 1, run_id: id, started_at: ts },
        {
          type: 'run.start',
          run_id: id,
          ts,
          input: { type: 'text', text: 'check the permission' },
        },
        {
          type: 'tool.output',
          run_id: id,
          ts,
          tool: 'cat',
          tool_call_id: 'c1',
          result_raw: output,
        },
      ]);
    }
    await store.close();
    return db;
  }

  it('finds run records, filters by run, type and time, pages, and prints a table', async () => {
    const db = await seedRuns();
    const run = (...args: string[]) => episodicJson(['--db', db, 'search', ...args]);
    const all = await run('permission', '--runs', '--limit', '10');
    expect(all.status, all.stderr).toBe(0);
    const receipt = searchRunsReceiptSchema.parse(all.receipt);
    expect(receipt.count).toBe(4);
    expect(receipt.hits.map((hit) => hit.type).sort()).toEqual([
      'run.start',
      'run.start',
      'tool.output',
      'tool.output',
    ]);
    const denied = searchRunsReceiptSchema.parse(
      (await run('"permission denied"', '--runs')).receipt,
    );
    expect(denied.hits).toEqual([
      expect.objectContaining({
        run_id: runId(1),
        position: 3,
        type: 'tool.output',
        ts: '2026-01-10T10:00:00.000Z',
      }),
    ]);
    expect(denied.hits[0]?.snippet).toContain('«permission denied»');
    const narrowed = async (...args: string[]) =>
      searchRunsReceiptSchema
        .parse((await run('permission', '--runs', ...args)).receipt)
        .hits.map((hit) => `${hit.run_id.slice(-1)}#${hit.position}`)
        .sort();
    expect(await narrowed('--run', runId(2))).toEqual(['2#2', '2#3']);
    expect(await narrowed('--type', 'tool.output')).toEqual(['1#3', '2#3']);
    expect(await narrowed('--from', '2026-01-11')).toEqual(['2#2', '2#3']);
    expect(await narrowed('--to', '2026-01-11')).toEqual(['1#2', '1#3']);
    const first = searchRunsReceiptSchema.parse(
      (await run('permission', '--runs', '--limit', '3')).receipt,
    );
    expect(first.next_cursor).not.toBeNull();
    const second = searchRunsReceiptSchema.parse(
      (await run('permission', '--runs', '--limit', '3', '--cursor', first.next_cursor as string))
        .receipt,
    );
    expect(
      [...first.hits, ...second.hits].map((hit) => `${hit.run_id}#${hit.position}`).sort(),
    ).toEqual(receipt.hits.map((hit) => `${hit.run_id}#${hit.position}`).sort());
    const table = await episodic(['--db', db, 'search', 'shadow', '--runs']);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toContain('«shadow»');
    expect(table.stdout).toContain(runId(1).slice(0, 8));
  });

  it('refuses scope options and ledger-only filters with --runs, and --run without --runs (exit 2)', async () => {
    const db = await seedRuns();
    for (const args of [
      ['x', '--runs', '--scope', 'p'],
      ['x', '--runs', '--all-scopes'],
      ['x', '--runs', '--agent-id', 'a'],
      ['x', '--run', runId(1), '--scope', 'p'],
      ['x', '--scope', 'p', '--type', 'tool.output'],
      ['x', '--runs', '--cursor', 'nope'],
      ['x', '--runs', '--from', '2026-02-01', '--to', '2026-01-01'],
    ]) {
      const result = await episodicJson(['--db', db, 'search', ...args]);
      expect(result.status, args.join(' ')).toBe(2);
    }
  });

  it('a file home keeps runs as files: UNSUPPORTED naming runs list', async () => {
    const home = temporaryHome();
    await seed(home, ['--store', 'fs']);
    const result = await episodicJson([
      '--home',
      home,
      '--store',
      'fs',
      'search',
      'rate',
      '--runs',
    ]);
    expect(result.status).toBe(1);
    expect(JSON.stringify(result.receipt)).toContain('runs list');
  });
});
