import { describe, expect, it } from 'vitest';
import {
  patternsSearchReceiptSchema,
  patternsShowReceiptSchema,
  scopesListReceiptSchema,
  tasksListReceiptSchema,
} from '../src/receipts/index.js';
import { appendEvent, episodic, episodicJson, expectError, temporaryHome } from './helpers.js';

// Finding things without knowing their id (issue 19, point 2): scopes list, tasks list and
// patterns show, over a home built through the binary itself.

async function createTask(home: string, scope: string, description: string): Promise<string> {
  const created = await episodicJson([
    '--home',
    home,
    'tasks',
    'create',
    '--scope',
    scope,
    '--description',
    description,
    '--domain',
    'web-api',
    '--task-type',
    'code_generation',
  ]);
  expect(created.status, created.stderr).toBe(0);
  return (created.receipt.task as { id: string }).id;
}

async function step(
  home: string,
  scope: string,
  id: string,
  number: number,
  tool: string,
  result = 'success',
) {
  const extra = result === 'error' ? ['--message', 'redis down'] : [];
  const stepped = await episodic([
    '--home',
    home,
    'tasks',
    'step',
    id,
    '--scope',
    scope,
    '--step',
    String(number),
    '--tool',
    tool,
    '--action',
    `use ${tool}`,
    '--result',
    result,
    ...extra,
  ]);
  expect(stepped.status, stepped.stderr).toBe(0);
}

async function complete(home: string, scope: string, id: string, outcome: 'success' | 'failure') {
  const args = outcome === 'success' ? ['--verdict', 'done'] : ['--reason', 'upstream API is down'];
  const completed = await episodic([
    '--home',
    home,
    'tasks',
    'complete',
    id,
    '--scope',
    scope,
    '--outcome',
    outcome,
    ...args,
  ]);
  expect(completed.status, completed.stderr).toBe(0);
}

describe('finding things without their id', () => {
  it('lists scopes, task episodes by outcome and time, and shows a pattern', {
    timeout: 180_000,
  }, async () => {
    const home = temporaryHome();
    const done = await createTask(home, 'team-a', 'Add rate limiting');
    await step(home, 'team-a', done, 1, 'architect');
    await step(home, 'team-a', done, 2, 'code_generator', 'error');
    await step(home, 'team-a', done, 3, 'test_runner');
    await complete(home, 'team-a', done, 'success');
    const failed = await createTask(home, 'team-a', 'Migrate the database');
    await step(home, 'team-a', failed, 1, 'migrator', 'error');
    await complete(home, 'team-a', failed, 'failure');
    const open = await createTask(home, 'team-a', 'Write the changelog');
    const other = await createTask(home, 'team-b', 'Something else');
    await appendEvent(home, { scope: 'team-a', 'session-id': 's1' });
    await appendEvent(home, { scope: 'team-a', 'session-id': 's2' });
    await appendEvent(home, { scope: 'ledger-only', 'session-id': 's1' });

    const scopes = scopesListReceiptSchema.parse(
      (await episodicJson(['--home', home, 'scopes', 'list'])).receipt,
    );
    expect(
      scopes.scopes.map((scope) => [scope.scope, scope.events, scope.sessions, scope.tasks]),
    ).toEqual([
      ['ledger-only', 1, 1, 0],
      ['team-a', 2, 2, 3],
      ['team-b', 0, 0, 1],
    ]);
    expect(scopes.scopes[1]?.artifacts.pattern).toBeGreaterThan(0);
    expect(scopes.scopes[1]?.artifacts.reflection).toBe(2);
    const quick = scopesListReceiptSchema.parse(
      (await episodicJson(['--home', home, 'scopes', 'list', '--no-tasks'])).receipt,
    );
    expect(quick.scopes.every((scope) => scope.tasks === null)).toBe(true);
    const table = (await episodic(['--home', home, 'scopes', 'list'])).stdout;
    expect(table).toMatch(/SCOPE\s+EVENTS\s+SESSIONS\s+LAST EVENT\s+TASKS\s+PATTERNS/);
    expect(table).toContain('3 scopes');

    const all = tasksListReceiptSchema.parse(
      (await episodicJson(['--home', home, 'tasks', 'list', '--scope', 'team-a'])).receipt,
    );
    expect(all.tasks.map((task) => [task.episode_id, task.outcome])).toEqual([
      [open, null],
      [failed, 'failure'],
      [done, 'success'],
    ]);
    expect(all.tasks[2]).toMatchObject({ steps: 3, task_description: 'Add rate limiting' });
    expect(all.tasks.map((task) => task.episode_id)).not.toContain(other);
    const byOutcome = tasksListReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'list',
          '--scope',
          'team-a',
          '--outcome',
          'failure,open',
        ])
      ).receipt,
    );
    expect(byOutcome.tasks.map((task) => task.episode_id)).toEqual([open, failed]);
    const limited = tasksListReceiptSchema.parse(
      (await episodicJson(['--home', home, 'tasks', 'list', '--scope', 'team-a', '--limit', '1']))
        .receipt,
    );
    expect(limited.tasks.map((task) => task.episode_id)).toEqual([open]);
    const future = tasksListReceiptSchema.parse(
      (await episodicJson(['--home', home, 'tasks', 'list', '--scope', 'team-a', '--from', 'now']))
        .receipt,
    );
    expect(future.tasks).toEqual([]);
    const recent = tasksListReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'list',
          '--scope',
          'team-a',
          '--from',
          '1h',
          '--to',
          'today',
        ])
      ).receipt,
    );
    expect(recent.tasks).toHaveLength(3);
    expectError(
      await episodicJson(['--home', home, 'tasks', 'list', '--outcome', 'won']),
      2,
      'VALIDATION_ERROR',
    );
    expect((await episodic(['--home', home, 'tasks', 'list', '--scope', 'team-a'])).stdout).toMatch(
      /EPISODE\s+OUTCOME\s+STARTED\s+STEPS\s+REWARD/,
    );

    const patterns = patternsSearchReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'patterns',
          'search',
          '--scope',
          'team-a',
          '--type',
          'tool_sequence',
        ])
      ).receipt,
    );
    const key = patterns.patterns[0]?.key as string;
    const shown = patternsShowReceiptSchema.parse(
      (await episodicJson(['--home', home, 'patterns', 'show', key, '--scope', 'team-a'])).receipt,
    );
    expect(shown.pattern).toMatchObject({ key, type: 'tool_sequence' });
    expect(shown.pattern.episodes).toContain(`task:${done}`);
    expect(
      (await episodic(['--home', home, 'patterns', 'show', key, '--scope', 'team-a'])).stdout,
    ).toContain(`episodic tasks show ${done} --scope team-a`);
    const elsewhere = expectError(
      await episodicJson(['--home', home, 'patterns', 'show', key, '--scope', 'team-b']),
      1,
      'NOT_FOUND',
    );
    expect(elsewhere).toContain('scope "team-b"');
    expect(elsewhere).toContain(`home ${home}`);
    const none = patternsSearchReceiptSchema.parse(
      (await episodicJson(['--home', home, 'patterns', 'search', '--scope', 'ledger-only']))
        .receipt,
    );
    expect(none.notes[1]).toMatch(/Scopes with patterns: team-a \(\d+\)/);
  });
});
