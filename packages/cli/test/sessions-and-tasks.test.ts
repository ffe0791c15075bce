import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSession, type ModelCall, type SessionStore } from '@episodic/core';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import {
  patternsSearchReceiptSchema,
  sessionsListReceiptSchema,
  sessionsShowReceiptSchema,
  tasksCompleteReceiptSchema,
  tasksCreateReceiptSchema,
  tasksDeleteReceiptSchema,
  tasksShowReceiptSchema,
  tasksStepReceiptSchema,
  tasksTimelineReceiptSchema,
} from '../src/receipts/index.js';
import { episodic, episodicJson, expectError, temporaryHome } from './helpers.js';

const model: ModelCall = async ({ items }) => {
  const last = items.at(-1) as { type?: string; role?: string } | undefined;
  if (last?.type === 'message' && last.role === 'user') {
    return {
      output: [{ type: 'function_call', call_id: 'call_1', name: 'list_files', arguments: '{}' }],
      usage: { inputTokens: 40, outputTokens: 5 },
    };
  }
  return {
    output: [{ type: 'message', role: 'assistant', content: 'There are two files.' }],
    usage: { inputTokens: 60, outputTokens: 8 },
  };
};

async function seedSession(home: string, kind: 'fs' | 'sqlite'): Promise<string> {
  mkdirSync(home, { recursive: true });
  let store: SessionStore;
  let close: () => Promise<void>;
  if (kind === 'fs') {
    const fs = createFsStore({ root: home, durability: 'none' });
    store = fs.sessions;
    close = () => fs.close();
  } else {
    const sqlite = createSqliteStore({ filename: join(home, 'episodic.db') });
    store = sqlite.sessions;
    close = () => sqlite.close();
  }
  try {
    const session = createSession({
      store,
      context: { cwd: '/repo' },
      executeTool: () => 'a.txt\nb.txt',
    });
    await session.runTurn('Which files are here?', model);
    return session.id;
  } finally {
    await close();
  }
}

describe.each(['fs', 'sqlite'] as const)('sessions (%s store)', (kind) => {
  it('shows an imported session without its raw entries, usage rows or encrypted reasoning bytes unless --raw', async () => {
    const home = temporaryHome();
    const codex = fileURLToPath(
      new URL(
        '../../../fixtures/transcripts/codex/rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl',
        import.meta.url,
      ),
    );
    const imported = (
      await episodicJson(['--home', home, '--store', kind, 'import', 'codex', codex, '--no-ledger'])
    ).receipt as { conversations: Array<{ session_id: string }> };
    const sessionId = imported.conversations[0]?.session_id as string;
    const shown = await episodic([
      '--home',
      home,
      '--store',
      kind,
      'sessions',
      'show',
      sessionId,
      '--episodes',
      '100',
    ]);
    expect(shown.stdout).toMatch(/encrypted reasoning \(\d+ bytes\)/);
    expect(shown.stdout).not.toContain('gAAAA');
    expect(shown.stdout).not.toContain('import.raw');
    expect(shown.stdout).toMatch(
      /\d+ raw imported entries, \d+ turn\.usage rows \([\d,]+ in \/ [\d,]+ out tokens\) not listed/,
    );
    const raw = await episodic([
      '--home',
      home,
      '--store',
      kind,
      'sessions',
      'show',
      sessionId,
      '--episodes',
      '100',
      '--raw',
    ]);
    expect(raw.stdout).toContain('import.raw');
    expect(raw.stdout).toContain('turn.usage');
  });

  it("lists a session with its last input, last activity and its last run's status, model and tokens", async () => {
    const home = temporaryHome();
    mkdirSync(home, { recursive: true });
    const stores =
      kind === 'fs'
        ? createFsStore({ root: home, durability: 'none' })
        : createSqliteStore({ filename: join(home, 'episodic.db') });
    const sessionId = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
    const runId = runIdFor(7);
    const records = completedRun(runId, 1, sessionId);
    records.splice(3, 0, {
      type: 'llm.response',
      run_id: runId,
      ts: '2026-02-03T12:01:00.000Z',
      seq: 1,
      output: {
        messages: [],
        usage: { model: 'echo-1', input_tokens: 321, output_tokens: 12, total_tokens: 333 },
      },
    });
    try {
      await stores.runs.append(runId, records);
      await stores.sessions.save({
        schema_version: 1,
        session_id: sessionId,
        updated_at: '2026-02-03T12:00:30.000Z',
        run_id: runId,
        messages: [{ role: 'user', content: 'Which\nfiles are here?' }],
      });
    } finally {
      await stores.close();
    }
    const list = sessionsListReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', kind, 'sessions', 'list'])).receipt,
    );
    expect(list.sessions[0]).toMatchObject({
      session_id: sessionId,
      last_activity_at: '2026-02-03T12:01:00.000Z',
      last_run_status: 'completed',
      model: 'test/test-model',
      input_tokens: 321,
      output_tokens: 12,
    });
    const human = await episodic(['--home', home, '--store', kind, 'sessions', 'list']);
    expect(human.stdout).toContain('Which files are here?');
    expect(human.stdout).toContain('321/12');
  });

  it('lists and shows session snapshots', async () => {
    const home = temporaryHome();
    const id = await seedSession(home, kind);
    const list = sessionsListReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', kind, 'sessions', 'list'])).receipt,
    );
    expect(list).toMatchObject({ store: kind, count: 1, total: 1 });
    expect(list.sessions[0]).toMatchObject({ session_id: id, revision: 1 });
    const shown = sessionsShowReceiptSchema.parse(
      (await episodicJson(['--home', home, '--store', kind, 'sessions', 'show', id])).receipt,
    );
    expect(shown).toMatchObject({ session_id: id, revision: 1, episode_count: 6 });
    expect(shown.state.context).toEqual({ cwd: '/repo' });
    // Folding on demand: the base then holds every commit; the session reads the same.
    const folded = (await episodicJson(['--home', home, '--store', kind, 'sessions', 'fold', id]))
      .receipt;
    expect(folded).toMatchObject({
      kind: 'episodic.sessions.fold.v1',
      session_id: id,
      revision: 1,
      folded: 0,
    });
    expect(
      sessionsShowReceiptSchema.parse(
        (await episodicJson(['--home', home, '--store', kind, 'sessions', 'show', id])).receipt,
      ).state,
    ).toEqual(shown.state);
    expectError(
      await episodicJson([
        '--home',
        home,
        '--store',
        kind,
        'sessions',
        'fold',
        '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e',
      ]),
      1,
      'NOT_FOUND',
    );
    const human = await episodic([
      '--home',
      home,
      '--store',
      kind,
      'sessions',
      'show',
      id,
      '--episodes',
      '3',
    ]);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain('There are two files.');
    expect(human.stdout).toContain('The newest 3 episodes');
    expectError(
      await episodicJson([
        '--home',
        home,
        '--store',
        kind,
        'sessions',
        'show',
        '0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e',
      ]),
      1,
      'NOT_FOUND',
    );
    expectError(
      await episodicJson(['--home', home, '--store', kind, 'sessions', 'show', 'nope']),
      2,
      'VALIDATION_ERROR',
    );
  });
});

/** The arguments of `tasks step` for task `id` in `home`: step `step`, tool `t`, action `a`, then `flags`. */
function stepArgs(home: string, id: string, step: number, flags: readonly string[] = []): string[] {
  return [
    '--home',
    home,
    'tasks',
    'step',
    id,
    '--step',
    String(step),
    '--tool',
    't',
    '--action',
    'a',
    ...flags,
  ];
}

describe('tasks and patterns', () => {
  it('runs the lifecycle: create, step, complete, show, timeline, delete', async () => {
    const home = temporaryHome();
    const created = tasksCreateReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'create',
          '--description',
          'Add rate limiting',
          '--domain',
          'web-api',
          '--task-type',
          'code_generation',
          '--language',
          'rust',
          '--tag',
          'api',
          '--tag',
          'security',
          '--metadata-json',
          '{"team":"infra","priority":5}',
        ])
      ).receipt,
    );
    const id = created.task.id;
    expect(created.task).toMatchObject({
      task_type: 'code_generation',
      context: {
        domain: 'web-api',
        language: 'rust',
        complexity: 'moderate',
        tags: ['api', 'security'],
      },
      metadata: { team: 'infra', priority: 5 },
      outcome: null,
    });
    const steps: string[][] = [
      [
        '--step',
        '1',
        '--tool',
        'architect',
        '--action',
        'Design the limiter',
        '--result',
        'success',
        '--output',
        'Token bucket',
        '--latency-ms',
        '100',
      ],
      [
        '--step',
        '2',
        '--tool',
        'code_generator',
        '--action',
        'Check whether redis is available',
        '--result',
        'error',
        '--message',
        'redis down',
        '--parameters-json',
        '{"host":"localhost"}',
      ],
      [
        '--step',
        '3',
        '--tool',
        'test_runner',
        '--action',
        'Run the tests',
        '--result',
        'success',
        '--output',
        'ok',
      ],
    ];
    for (const step of steps) {
      const result = tasksStepReceiptSchema.parse(
        (await episodicJson(['--home', home, 'tasks', 'step', id, ...step])).receipt,
      );
      expect(result.episode_id).toBe(id);
    }
    const timelineBefore = tasksTimelineReceiptSchema.parse(
      (await episodicJson(['--home', home, 'tasks', 'timeline', id])).receipt,
    );
    expect(timelineBefore.timeline.timeline.map((entry) => entry.result_type)).toEqual([
      'success',
      'error',
      'success',
    ]);
    expect(timelineBefore.timeline.outcome).toBeNull();
    // One page: --offset and --limit, next_offset to continue.
    const page = tasksTimelineReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'timeline',
          id,
          '--offset',
          '1',
          '--limit',
          '1',
        ])
      ).receipt,
    );
    expect(page.timeline.timeline.map((entry) => entry.step_number)).toEqual([2]);
    expect(page.timeline.next_offset).toBe(2);
    const pageText = (await episodic(['--home', home, 'tasks', 'timeline', id, '--limit', '2']))
      .stdout;
    expect(pageText).toContain('2 of 3 steps; more with --offset 2');
    const badLimit = await episodic(['--home', home, 'tasks', 'timeline', id, '--limit', '0']);
    expect(badLimit.status).not.toBe(0);
    expect(badLimit.stderr).toContain('Invalid --limit "0"');
    const completed = tasksCompleteReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'complete',
          id,
          '--outcome',
          'success',
          '--verdict',
          'Implemented and tested',
          '--artifact',
          'limiter.rs',
          '--artifact',
          'limiter_tests.rs',
        ])
      ).receipt,
    );
    expect(completed.task.outcome).toEqual({
      type: 'success',
      verdict: 'Implemented and tested',
      artifacts: ['limiter.rs', 'limiter_tests.rs'],
    });
    expect(completed.task.reward_score).toBeGreaterThan(0);
    expect(completed.task.patterns.map((pattern) => pattern.type).sort()).toEqual([
      'context',
      'decision_point',
      'error_recovery',
      'tool_sequence',
    ]);
    const shown = tasksShowReceiptSchema.parse(
      (await episodicJson(['--home', home, 'tasks', 'show', id])).receipt,
    );
    expect(shown.task.steps).toHaveLength(3);
    const human = await episodic(['--home', home, 'tasks', 'timeline', id]);
    expect(human.stdout).toContain('code_generator');
    expect(human.stdout).toContain('outcome   success');
    // The task is a run.
    expect((await episodic(['--home', home, 'runs', 'show', id])).stdout).toContain(
      'task_completed',
    );

    // Patterns learned from it, searchable by type and metadata.
    const all = patternsSearchReceiptSchema.parse(
      (await episodicJson(['--home', home, 'patterns', 'search'])).receipt,
    );
    expect(all.count).toBe(4);
    expect(all.patterns.every((pattern) => pattern.episodes.includes(`task:${id}`))).toBe(true);
    const typed = patternsSearchReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'patterns',
          'search',
          '--type',
          'tool_sequence,error_recovery',
          '--metadata',
          'team=infra',
          '--metadata',
          'priority>=5',
        ])
      ).receipt,
    );
    expect(typed.patterns.map((pattern) => pattern.type).sort()).toEqual([
      'error_recovery',
      'tool_sequence',
    ]);
    expect(typed.patterns[0]?.effective_metadata).toEqual({ team: ['infra'], priority: [5] });
    // --query: the patterns whose text holds every word, best first, each with a snippet.
    const redis = patternsSearchReceiptSchema.parse(
      (await episodicJson(['--home', home, 'patterns', 'search', '--query', 'REDIS down'])).receipt,
    );
    expect(redis.filters.query).toBe('REDIS down');
    expect(redis.patterns.map((pattern) => pattern.type)).toContain('error_recovery');
    for (const pattern of redis.patterns) expect(pattern.snippet).toContain('«redis»');
    const scores = redis.patterns.map((pattern) => pattern.score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const queried = await episodic([
      '--home',
      home,
      'patterns',
      'search',
      '--query',
      'test_runner',
    ]);
    expect(queried.stdout).toMatch(/^TYPE\s+TASKS\s+MATCH/m);
    expect(queried.stdout).toContain('«test_runner»');
    expect(
      patternsSearchReceiptSchema.parse(
        (await episodicJson(['--home', home, 'patterns', 'search', '--query', 'kubernetes']))
          .receipt,
      ).patterns,
    ).toEqual([]);
    expect(
      expectError(
        await episodicJson(['--home', home, 'patterns', 'search', '--query', '" ;'], {}),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('--query');
    expect(
      expectError(
        await episodicJson([
          '--home',
          home,
          'patterns',
          'search',
          '--query',
          'x',
          '--after-key',
          'k',
        ]),
        2,
        'USAGE_ERROR',
      ),
    ).toContain('--after-key');
    const none = patternsSearchReceiptSchema.parse(
      (await episodicJson(['--home', home, 'patterns', 'search', '--metadata', 'priority>5']))
        .receipt,
    );
    expect(none.count).toBe(0);
    const byTask = patternsSearchReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'patterns',
          'search',
          '--kind',
          'reflection',
          '--task',
          id,
        ])
      ).receipt,
    );
    expect(byTask.count).toBe(1);
    const paged = patternsSearchReceiptSchema.parse(
      (await episodicJson(['--home', home, 'patterns', 'search', '--limit', '3'])).receipt,
    );
    expect(paged.count).toBe(3);
    const rest = patternsSearchReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'patterns',
          'search',
          '--limit',
          '3',
          '--after-key',
          paged.next_key as string,
        ])
      ).receipt,
    );
    expect(rest.patterns.map((pattern) => pattern.key)).toEqual(
      all.patterns.slice(3).map((pattern) => pattern.key),
    );
    expect((await episodic(['--home', home, 'patterns', 'search'])).stdout).toContain(
      'architect → code_generator → test_runner',
    );

    // Deleting needs --yes; then the task and its artifacts are gone.
    const unconfirmed = await episodicJson(['--home', home, 'tasks', 'delete', id]);
    expect(expectError(unconfirmed, 2, 'CONFIRMATION_REQUIRED')).toContain('--yes');
    const deleted = tasksDeleteReceiptSchema.parse(
      (await episodicJson(['--home', home, 'tasks', 'delete', id, '--yes'])).receipt,
    );
    expect(deleted.episode_id).toBe(id);
    expect(deleted.deleted_artifacts).toHaveLength(5);
    expectError(await episodicJson(['--home', home, 'tasks', 'show', id]), 1, 'NOT_FOUND');
    expect(
      patternsSearchReceiptSchema.parse(
        (await episodicJson(['--home', home, 'patterns', 'search'])).receipt,
      ).count,
    ).toBe(0);
  });

  it('maps lifecycle errors to exit codes', async () => {
    const home = temporaryHome();
    const unknown = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
    expectError(await episodicJson(stepArgs(home, unknown, 1)), 1, 'NOT_FOUND');
    expectError(
      await episodicJson(['--home', home, 'tasks', 'show', 'not-a-uuid']),
      2,
      'VALIDATION_ERROR',
    );
    expect(
      expectError(
        await episodicJson([
          '--home',
          home,
          'tasks',
          'create',
          '--description',
          'x',
          '--domain',
          'd',
          '--task-type',
          'juggling',
        ]),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('code_generation');
    expectError(
      await episodicJson([
        '--home',
        home,
        'tasks',
        'create',
        '--domain',
        'd',
        '--task-type',
        'testing',
      ]),
      2,
      'USAGE_ERROR',
    );
    const id = tasksCreateReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'create',
          '--description',
          'x',
          '--domain',
          'd',
          '--task-type',
          'testing',
        ])
      ).receipt,
    ).task.id;
    expectError(await episodicJson(stepArgs(home, id, 1, ['--result', 'error'])), 2, 'USAGE_ERROR');
    expectError(await episodicJson(stepArgs(home, id, 1, ['--output', 'o'])), 2, 'USAGE_ERROR');
    expectError(
      await episodicJson(['--home', home, 'tasks', 'complete', id, '--outcome', 'success']),
      2,
      'USAGE_ERROR',
    );
    expectError(
      await episodicJson([
        '--home',
        home,
        'tasks',
        'complete',
        id,
        '--outcome',
        'meh',
        '--verdict',
        'v',
      ]),
      2,
      'VALIDATION_ERROR',
    );
    const partial = tasksCompleteReceiptSchema.parse(
      (
        await episodicJson([
          '--home',
          home,
          'tasks',
          'complete',
          id,
          '--outcome',
          'partial_success',
          '--verdict',
          'half',
          '--completed',
          'a',
          '--failed',
          'b',
        ])
      ).receipt,
    );
    expect(partial.task.outcome).toEqual({
      type: 'partial_success',
      verdict: 'half',
      completed: ['a'],
      failed: ['b'],
    });
    expect(expectError(await episodicJson(stepArgs(home, id, 2)), 1, 'CONFLICT')).toContain(
      'already completed',
    );
    expectError(
      await episodicJson([
        '--home',
        home,
        'tasks',
        'complete',
        id,
        '--outcome',
        'failure',
        '--reason',
        'again',
      ]),
      1,
      'CONFLICT',
    );
    expect(
      (
        await episodic([
          '--home',
          home,
          'tasks',
          'create',
          '--description',
          'y',
          '--domain',
          'd',
          '--task-type',
          'testing',
          '-q',
        ])
      ).stdout,
    ).toMatch(/^[0-9a-f-]{36}\n$/);
  });
});
