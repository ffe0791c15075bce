// Ids as people type them: the first characters of a run, session or task episode id, as the
// tables show them, work wherever the CLI takes the id. Ids are chosen so that prefixes collide:
// two task episodes of scope "alpha" and one of scope "beta" share their first 8 characters, and a
// prefix must never resolve to, name or count a task of another scope.
import { createSession, createTaskLifecycle, type ModelCall } from '@episodic/core';
import {
  createScopedArtifactStore,
  createScopedRunView,
  openEpisodicStores,
} from '@episodic/mcp/stores';
import { describe, expect, it } from 'vitest';
import { episodicJson, expectError, temporaryHome } from './helpers.js';

const ALPHA_1 = 'd6af99a4-1111-4111-8111-111111111111';
const ALPHA_2 = 'd6af99a4-2222-4222-8222-222222222222';
const ALPHA_3 = 'e0c1d2e3-3333-4333-8333-333333333333';
const BETA = 'd6af99a4-9999-4999-8999-999999999999';
const BETA_ONLY = 'f00dfeed-4444-4444-8444-444444444444';

async function seed(home: string): Promise<string> {
  const stores = await openEpisodicStores({ home });
  try {
    for (const [scope, ids] of [
      ['alpha', [ALPHA_1, ALPHA_2, ALPHA_3]],
      ['beta', [BETA, BETA_ONLY]],
    ] as const) {
      const queue = [...ids];
      const tasks = createTaskLifecycle({
        runs: createScopedRunView({ runs: stores.runs, scope }).runs,
        artifacts: createScopedArtifactStore(stores.artifacts, scope),
        generateId: () => queue.shift() as string,
      });
      for (const _ of ids) {
        await tasks.createTask({
          task_description: `a task of ${scope}`,
          domain: 'cli',
          task_type: 'testing',
        });
      }
    }
    const model: ModelCall = async () => ({
      output: [{ type: 'message', role: 'assistant', content: 'hi' }],
    });
    const session = createSession({ store: stores.sessions });
    await session.runTurn('hello', model);
    return session.id;
  } finally {
    await stores.close();
  }
}

describe('ids as people type them', () => {
  it('resolves unique prefixes of tasks, runs and sessions; refuses ambiguous, unknown and short ones', async () => {
    const home = temporaryHome();
    const sessionId = await seed(home);
    const alpha = (...args: string[]) => ['--home', home, ...args, '--scope', 'alpha'];

    const shown = await episodicJson(alpha('tasks', 'show', 'E0C1D2E3'));
    expect(shown.status, shown.stderr).toBe(0);
    expect((shown.receipt.task as { id: string }).id).toBe(ALPHA_3);
    const timeline = await episodicJson(alpha('tasks', 'timeline', 'd6af99a4-1111'));
    expect(timeline.status, timeline.stderr).toBe(0);

    // Ambiguous within the scope: both alpha tasks are named, beta's is neither named nor counted.
    const ambiguous = expectError(
      await episodicJson(alpha('tasks', 'show', 'd6af99a4')),
      2,
      'VALIDATION_ERROR',
    );
    expect(ambiguous).toContain(
      `"d6af99a4" is the start of 2 task episode ids: ${ALPHA_1}, ${ALPHA_2}.`,
    );
    expect(ambiguous).not.toContain(BETA);

    // Another scope's task is NOT_FOUND, exactly like an id nobody has.
    const walled = expectError(
      await episodicJson(alpha('tasks', 'show', 'f00dfeed')),
      1,
      'NOT_FOUND',
    );
    expect(walled).toContain('No task episode id starts with "f00dfeed"');
    expect(walled).not.toContain(BETA_ONLY);
    expect(
      (
        (await episodicJson(['--home', home, 'tasks', 'show', 'f00dfe', '--scope', 'beta'])).receipt
          .task as { id: string }
      ).id,
    ).toBe(BETA_ONLY);

    const short = expectError(
      await episodicJson(alpha('tasks', 'show', 'd6af9')),
      2,
      'VALIDATION_ERROR',
    );
    expect(short).toContain('too short');
    expect(short).toContain('first 6 or more characters');

    // Runs are not scoped: all three runs starting with d6af99a4 are candidates.
    const runs = expectError(
      await episodicJson(['--home', home, 'runs', 'show', 'd6af99a4']),
      2,
      'VALIDATION_ERROR',
    );
    expect(runs).toContain('is the start of 3 run ids');
    const run = await episodicJson(['--home', home, 'runs', 'show', 'd6af99a4-99']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.receipt.run_id).toBe(BETA);
    expectError(await episodicJson(['--home', home, 'runs', 'show', 'abcdef12']), 1, 'NOT_FOUND');

    const session = await episodicJson(['--home', home, 'sessions', 'show', sessionId.slice(0, 8)]);
    expect(session.status, session.stderr).toBe(0);
    expect(session.receipt.session_id).toBe(sessionId);
  }, 300_000);
});
