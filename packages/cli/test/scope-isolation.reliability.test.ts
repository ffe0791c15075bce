// Pins "scope isolation: 0 cross-scope results" (QUALITY.md reliability table; DESIGN.md §1
// "nothing falls back across scopes", §6 "never returns another scope's data") for the CLI's task
// and pattern commands. Regression: `episodic patterns search` listed every stored artifact, other
// scopes' patterns included (their `scope=<s>@…` keys), and `episodic tasks show|step|complete|
// delete` reached task episodes an MCP server had created in another scope (completing one learned
// its patterns into the default scope). The CLI is now bound to one scope like the MCP server:
// `--scope`, else $EPISODIC_SCOPE, else `default`.

import { openEpisodicStores } from '@episodic/home';
import { createEpisodicTools } from '@episodic/mcp';
import { describe, expect, it } from 'vitest';
import {
  patternsSearchReceiptSchema,
  tasksCreateReceiptSchema,
  tasksShowReceiptSchema,
} from '../src/receipts/index.js';
import { episodic, episodicJson, expectError, temporaryHome } from './helpers.js';

async function mcpTask(home: string, scope: string): Promise<string> {
  const stores = await openEpisodicStores({ home });
  try {
    const tools = createEpisodicTools({ stores, scope });
    const call = async (name: string, args: unknown) => {
      const result = await tools.call(name, args);
      expect(result.isError, result.content[0]?.text).toBeUndefined();
      return JSON.parse(result.content[0]?.text as string) as Record<string, unknown>;
    };
    const created = await call('create_episode', {
      task_description: `Rate limiting for ${scope}`,
      domain: 'web-api',
      task_type: 'code_generation',
      metadata: { team: scope },
    });
    const id = created.episode_id as string;
    await call('add_episode_step', {
      episode_id: id,
      step_number: 1,
      tool: 'planner',
      action: 'Check if redis is up',
      result: { type: 'error', message: 'redis down' },
    });
    await call('add_episode_step', {
      episode_id: id,
      step_number: 2,
      tool: 'coder',
      action: 'Write the limiter',
      result: { type: 'success', output: 'ok' },
    });
    await call('complete_episode', { episode_id: id, outcome_type: 'success', verdict: 'ok' });
    return id;
  } finally {
    await stores.close();
  }
}

async function cliTask(home: string): Promise<string> {
  const args = ['--home', home];
  const created = tasksCreateReceiptSchema.parse(
    (
      await episodicJson([
        ...args,
        'tasks',
        'create',
        '--description',
        'Fix the flaky test',
        '--domain',
        'ci',
        '--task-type',
        'debugging',
      ])
    ).receipt,
  );
  const id = created.task.id;
  for (const [step, tool] of ['planner', 'tester'].entries()) {
    const result = await episodic([
      ...args,
      'tasks',
      'step',
      id,
      '--step',
      String(step + 1),
      '--tool',
      tool,
      '--action',
      'Run it',
      '--result',
      'success',
    ]);
    expect(result.status, result.stderr).toBe(0);
  }
  const done = await episodic([
    ...args,
    'tasks',
    'complete',
    id,
    '--outcome',
    'success',
    '--verdict',
    'ok',
  ]);
  expect(done.status, done.stderr).toBe(0);
  return id;
}

describe('CLI task and pattern commands stay in one scope', () => {
  it('never list, read, change or learn from another scope', async () => {
    const home = temporaryHome();
    const teamA = await mcpTask(home, 'team-a');
    const own = await cliTask(home);
    const args = ['--home', home];

    const search = async (extra: string[] = [], env: Record<string, string> = {}) =>
      patternsSearchReceiptSchema.parse(
        (await episodicJson([...args, 'patterns', 'search', '--limit', '500', ...extra], { env }))
          .receipt,
      );
    const mine = await search();
    expect(mine.scope).toBe('default');
    expect(mine.count).toBeGreaterThan(0);
    for (const pattern of mine.patterns) {
      expect(pattern.key.startsWith('scope=')).toBe(false);
      expect(pattern.episodes).toEqual([`task:${own}`]);
    }
    const theirs = await search(['--scope', 'Team A']);
    expect(theirs.scope).toBe('team-a');
    expect(theirs.count).toBeGreaterThan(0);
    for (const pattern of theirs.patterns) {
      expect(pattern.key.startsWith('scope=')).toBe(false);
      expect(pattern.episodes).toEqual([`task:${teamA}`]);
      expect(pattern.effective_metadata).toEqual({ team: ['team-a'] });
    }
    expect((await search([], { EPISODIC_SCOPE: 'team-a' })).patterns).toEqual(theirs.patterns);
    expect((await search(['--scope', 'team-b'])).count).toBe(0);

    // Another scope's task episode is NOT_FOUND for every command, exactly like a missing one.
    for (const command of [
      ['tasks', 'show', teamA],
      ['tasks', 'timeline', teamA],
      ['tasks', 'step', teamA, '--step', '3', '--tool', 't', '--action', 'a'],
      ['tasks', 'complete', teamA, '--outcome', 'success', '--verdict', 'v'],
      ['tasks', 'delete', teamA, '--yes'],
    ]) {
      expectError(await episodicJson([...args, ...command]), 1, 'NOT_FOUND');
    }
    const shown = tasksShowReceiptSchema.parse(
      (await episodicJson([...args, 'tasks', 'show', teamA, '--scope', 'team-a'])).receipt,
    );
    expect(shown.task.steps).toHaveLength(2);
    expect(shown.scope).toBe('team-a');
    expect((await search(['--scope', 'team-a'])).patterns).toEqual(theirs.patterns);
    expectError(
      await episodicJson([...args, 'tasks', 'show', own, '--scope', 'team-a']),
      1,
      'NOT_FOUND',
    );

    // global is for reading the ledger across scopes, never a task scope; nothing is opened.
    expectError(
      await episodicJson([...args, 'patterns', 'search', '--scope', 'global']),
      2,
      'VALIDATION_ERROR',
    );

    // An MCP server bound to the default scope sees the CLI's task and not team-a's.
    const stores = await openEpisodicStores({ home });
    try {
      const tools = createEpisodicTools({ stores });
      const runs = JSON.parse((await tools.call('list_runs', {})).content[0]?.text as string) as {
        runs: Array<{ run_id: string }>;
      };
      expect(runs.runs.map((run) => run.run_id)).toEqual([own]);
    } finally {
      await stores.close();
    }
  }, 300_000);
});
