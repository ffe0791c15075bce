import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { completedRun, headerFor, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import {
  episodesQueryReceiptSchema,
  runsListReceiptSchema,
  sessionsListReceiptSchema,
  tasksListReceiptSchema,
} from '../src/receipts/index.js';
import {
  appendEvent,
  episodic,
  episodicJson,
  expectError,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

// A home knows what it holds (issue 19, point 1): the CLI finds run files without --store, says
// where it looked when it finds nothing and what it sees elsewhere, and read-only commands never
// create a home, a database or a file.

const SESSION = '11111111-1111-4111-8111-111111111111';

/** A run that ended with `outcome` (completed, cancelled, error) or never ended (null). */
function runEndingWith(runId: string, outcome: string | null, startedAt: string): RunRecord[] {
  const records = completedRun(runId, 1, SESSION);
  records[0] = headerFor(runId, { sessionId: SESSION, startedAt });
  const body = records.slice(0, -2);
  if (outcome === null) return body;
  const end = {
    type: 'run.end',
    run_id: runId,
    ts: startedAt.replace('00.000Z', '05.000Z'),
    outcome,
  };
  return outcome === 'error'
    ? [
        ...body,
        {
          type: 'run.error',
          run_id: runId,
          ts: startedAt,
          error: { name: 'Error', message: 'HTTP 503' },
        },
        end,
      ]
    : [...body, end];
}

/**
 * A home as an agent that records runs with @episodic/store-fs leaves it (the demo's home is one):
 * run files and a snapshot, the ledger in episodic.db, and no episodic-home.json.
 */
async function agentHome(): Promise<{ home: string; runIds: string[] }> {
  const home = temporaryHome();
  mkdirSync(home, { recursive: true });
  const files = createFsStore({ root: home, durability: 'none' });
  const runIds = [runIdFor(1), runIdFor(2), runIdFor(3), runIdFor(4)];
  const outcomes = ['completed', 'cancelled', 'error', null];
  for (const [index, runId] of runIds.entries()) {
    await files.runs.append(
      runId,
      runEndingWith(runId, outcomes[index] as string | null, `2026-01-1${index}T08:00:00.000Z`),
    );
  }
  await files.sessions.save({
    schema_version: 1,
    session_id: SESSION,
    updated_at: '2026-01-13T08:00:00.000Z',
    messages: [],
  });
  await files.close();
  const sqlite = createSqliteStore({ filename: join(home, 'episodic.db') });
  await sqlite.ledger.append({
    scope: 'agent-project',
    session_id: SESSION,
    agent_id: 'agent',
    type: 'conversation.user',
    summary: 'What files are here?',
  });
  await sqlite.close();
  return { home, runIds };
}

/** Every path under `root` with its size and modification time. */
function tree(root: string): string[] {
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true }) as string[]).sort().map((path) => {
    const stat = statSync(join(root, path));
    return `${path} ${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`;
  });
}

describe('a home knows what it holds', () => {
  it('finds run files without --store, with a status for each run', async () => {
    const { home, runIds } = await agentHome();
    const listed = runsListReceiptSchema.parse(
      (await episodicJson(['runs', 'list', '--home', home])).receipt,
    );
    expect(listed).toMatchObject({ store: 'fs', store_source: 'detected', notes: [] });
    expect(listed.runs.map((run) => [run.run_id, run.status])).toEqual([
      [runIds[3], 'unfinished'],
      [runIds[2], 'error'],
      [runIds[1], 'cancelled'],
      [runIds[0], 'completed'],
    ]);
    expect(listed.runs[3]?.ended_at).toBe('2026-01-10T08:00:05.000Z');
    const sessions = sessionsListReceiptSchema.parse(
      (await episodicJson(['sessions', 'list', '--home', home])).receipt,
    );
    expect(sessions.sessions.map((session) => session.session_id)).toEqual([SESSION]);

    // People see the status column and relative times; failed runs stand out in colour.
    const human = await episodic(['runs', 'list', '--home', home], { env: { FORCE_COLOR: '1' } });
    expect(human.stdout).toMatch(/RUN\s+TITLE\s+STATUS\s+STARTED\s+DURATION\s+TOKENS IN\/OUT/);
    expect(human.stdout).toContain('\u001b[31merror\u001b[39m');
    expect(human.stdout).toContain('\u001b[33mcancelled\u001b[39m');
    expect(human.stdout).toMatch(/2026-01-1\d/); // older than a week: the local date
    expect((await episodic(['runs', 'list', '--home', home])).stdout).not.toContain('\u001b[');
  });

  it('says where it looked and what the other store holds', async () => {
    const { home } = await agentHome();
    const empty = await episodicJson(['runs', 'list', '--home', home, '--store', 'sqlite']);
    const receipt = runsListReceiptSchema.parse(empty.receipt);
    expect(receipt.runs).toEqual([]);
    expect(receipt.notes.join('\n')).toContain(
      `No runs found in the sqlite store (${join(home, 'episodic.db')})`,
    );
    expect(receipt.notes.join('\n')).toContain(
      `${home} also holds 4 run files and 1 session snapshot (the fs store): add --store fs`,
    );
    const human = await episodic(['runs', 'list', '--home', home, '--store', 'sqlite']);
    expect(human.stdout).toContain('0 runs (sqlite store)');
    expect(human.stderr).toContain('note: No runs found in the sqlite store');
    expect(
      (await episodic(['runs', 'list', '--home', home, '--store', 'sqlite', '-q'])).stderr,
    ).toBe('');

    // An explicit --store fs never opens the database: when it finds nothing it only says the
    // database is there; when it finds runs it says nothing more.
    const files = runsListReceiptSchema.parse(
      (await episodicJson(['runs', 'list', '--home', home, '--store', 'fs'])).receipt,
    );
    expect(files.notes).toEqual([]);
    const elsewhere = temporaryHome();
    await appendEvent(elsewhere, {});
    const none = runsListReceiptSchema.parse(
      (await episodicJson(['runs', 'list', '--home', elsewhere, '--store', 'fs'])).receipt,
    );
    expect(none.notes).toEqual([
      `No runs found in the fs store (run files under ${join(elsewhere, 'sessions')}).`,
      `The database ${join(elsewhere, 'episodic.db')} may hold runs and sessions too (not opened with --store fs): add --store sqlite to read them.`,
    ]);

    // A ledger query in an empty scope names the ledger and the scopes that hold events.
    const query = episodesQueryReceiptSchema.parse(
      (await episodicJson(['episodes', 'query', '--home', home, '--scope', 'other'])).receipt,
    );
    expect(query.events).toEqual([]);
    expect(query.notes).toEqual([
      `No events in scope "other" (the ledger in ${join(home, 'episodic.db')}).`,
      'Scopes with events: agent-project (1 event). List them all with "episodic scopes list".',
    ]);
    const filtered = episodesQueryReceiptSchema.parse(
      (
        await episodicJson([
          'episodes',
          'query',
          '--home',
          home,
          '--scope',
          'agent-project',
          '--type',
          'tool.call',
        ])
      ).receipt,
    );
    expect(filtered.notes[0]).toMatch(
      /Scope "agent-project" holds events, but none matched the filters/,
    );
  });

  it('names the home, the store and the scope in NOT_FOUND', async () => {
    const { home } = await agentHome();
    const run = expectError(
      await episodicJson(['runs', 'show', runIdFor(99), '--home', home]),
      1,
      'NOT_FOUND',
    );
    expect(run).toContain(`the fs store (run files under ${join(home, 'sessions')}), home ${home}`);
    const session = expectError(
      await episodicJson(['sessions', 'show', runIdFor(98), '--home', home, '--store', 'sqlite']),
      1,
      'NOT_FOUND',
    );
    expect(session).toContain(`the sqlite store (${join(home, 'episodic.db')})`);
    expect(session).toContain('also holds 4 run files and 1 session snapshot');

    // A task episode of another scope: where it was searched, and the scope it belongs to.
    const taskHome = temporaryHome();
    const created = await episodicJson([
      'tasks',
      'create',
      '--home',
      taskHome,
      '--scope',
      'team-a',
      '--description',
      'Fix the flaky test',
      '--domain',
      'ci',
      '--task-type',
      'debugging',
    ]);
    const id = (created.receipt.task as { id: string }).id;
    const missing = expectError(
      await episodicJson(['tasks', 'show', id, '--home', taskHome, '--scope', 'team-b']),
      1,
      'NOT_FOUND',
    );
    expect(missing).toContain('in scope "team-b"');
    expect(missing).toContain(`home ${taskHome}`);
    expect(missing).toContain('It belongs to scope "team-a": add --scope team-a.');
    const listed = tasksListReceiptSchema.parse(
      (await episodicJson(['tasks', 'list', '--home', taskHome, '--scope', 'team-b'])).receipt,
    );
    expect(listed.notes[0]).toContain('No task episodes found in scope "team-b"');
  });

  it('records where a new home keeps its runs, and follows it without --store', async () => {
    const home = temporaryHome();
    await appendEvent(home, {}, ['--store', 'fs']);
    expect(JSON.parse(readFileSync(join(home, 'episodic-home.json'), 'utf8'))).toMatchObject({
      format: 'episodic.home.v1',
      store: 'fs',
    });
    const listed = runsListReceiptSchema.parse(
      (await episodicJson(['runs', 'list', '--home', home])).receipt,
    );
    expect(listed).toMatchObject({ store: 'fs', store_source: 'home-config' });
  });
});

/** Every command that only reads, with the arguments it needs. */
function readOnlyCommands(home: string, exportFile: string): string[][] {
  const id = runIdFor(7);
  const at = ['--home', home];
  return [
    ['runs', 'list'],
    ['runs', 'show', id],
    ['runs', 'replay', id],
    ['runs', 'replay', '--session-id', SESSION],
    ['runs', 'tail', id],
    ['sessions', 'list'],
    ['sessions', 'show', SESSION],
    ['episodes', 'query', '--scope', 'p'],
    ['episodes', 'query', '--all-scopes'],
    ['episodes', 'replay', 's1', '--scope', 'p'],
    ['episodes', 'gc', '--scope', 'p', '--dry-run'],
    ['tasks', 'list'],
    ['tasks', 'show', id],
    ['tasks', 'timeline', id],
    ['patterns', 'search'],
    ['patterns', 'show', 'tool_sequence:abc'],
    ['scopes', 'list'],
    ['doctor'],
    ['export', '--all', '--all-scopes'],
    ['import', exportFile, '--dry-run'],
    ['completion', 'bash'],
  ].flatMap((command) =>
    // Where runs live changes what these open: each store is tried.
    ['runs list', 'sessions show', 'tasks list', 'export --all'].includes(
      command.slice(0, 2).join(' '),
    )
      ? [
          [...command, ...at],
          [...command, ...at, '--store', 'fs'],
          [...command, ...at, '--store', 'sqlite'],
        ]
      : [[...command, ...at]],
  );
}

describe('read-only commands', () => {
  it('create nothing in a home that does not exist, or an empty folder', {
    timeout: 180_000,
  }, async () => {
    const parent = temporaryDirectory('episodic-read-only-');
    const exportFile = join(temporaryDirectory('episodic-export-'), 'backup.jsonl');
    const made = await episodic([
      'export',
      '--all',
      '--all-scopes',
      '--home',
      join(parent, 'x'),
      '-o',
      exportFile,
    ]);
    expect(made.status, made.stderr).toBe(0);
    expect(readdirSync(parent)).toEqual([]);
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    for (const home of [join(parent, 'missing'), empty]) {
      for (const args of readOnlyCommands(home, exportFile)) {
        const result = await episodic(args);
        expect([0, 1], `${args.join(' ')}: ${result.stderr}`).toContain(result.status);
        expect(result.stderr, args.join(' ')).not.toMatch(/INTERNAL_ERROR|STORAGE_ERROR/);
        expect(readdirSync(parent), args.join(' ')).toEqual(['empty']);
        expect(readdirSync(empty), args.join(' ')).toEqual([]);
      }
    }
  });

  it('leave a home that holds data exactly as it was', { timeout: 180_000 }, async () => {
    const { home } = await agentHome();
    const exportFile = join(temporaryDirectory('episodic-export-'), 'backup.jsonl');
    expect(
      (await episodic(['export', '--all', '--all-scopes', '--home', home, '-o', exportFile]))
        .status,
    ).toBe(0);
    const before = tree(home);
    for (const args of readOnlyCommands(home, exportFile)) {
      const result = await episodic(args);
      expect([0, 1], `${args.join(' ')}: ${result.stderr}`).toContain(result.status);
      expect(tree(home), args.join(' ')).toEqual(before);
    }
  });
});

describe('a copied home', () => {
  it('is found the same way wherever it is', async () => {
    const { home } = await agentHome();
    const copy = join(temporaryDirectory('episodic-copy-'), 'home');
    cpSync(home, copy, { recursive: true });
    writeFileSync(join(copy, 'notes.txt'), 'not Episodic data\n');
    const listed = runsListReceiptSchema.parse(
      (await episodicJson(['runs', 'list', '--home', copy])).receipt,
    );
    expect(listed.runs).toHaveLength(4);
  });
});
