// Ids as people type them: the first characters of a run, session, task episode or ledger event
// id, as the tables show them, work wherever the CLI takes the id. Ids are chosen so that prefixes collide:
// two task episodes of scope "alpha" and one of scope "beta" share their first 8 characters, and a
// prefix must never resolve to, name or count a task of another scope.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, createTaskLifecycle, type ModelCall } from '@episodic/core';
import { openEpisodicStores } from '@episodic/home';
import { createScopedArtifactStore, createScopedRunView } from '@episodic/mcp';
import { describe, expect, it } from 'vitest';
import { episodicJson, expectError, temporaryDirectory, temporaryHome } from './helpers.js';

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

    // export --run-id (repeatable, --otel too) takes prefixes, with errors naming the option.
    const directory = temporaryDirectory();
    const exported = await episodicJson([
      ...['--home', home, 'export', '--run-id', 'd6af99a4-99', '--run-id', 'E0C1D2'],
      ...['-o', join(directory, 'runs.jsonl')],
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    expect((exported.receipt.selection as { run_ids: string[] }).run_ids).toEqual([BETA, ALPHA_3]);
    const traces = join(directory, 'runs-traces.json');
    const otel = await episodicJson([
      '--home',
      home,
      'export',
      '--run-id',
      'f00dfe',
      '--otel',
      traces,
    ]);
    expect(otel.status, otel.stderr).toBe(0);
    expect(readFileSync(traces, 'utf8')).toContain(BETA_ONLY);
    for (const output of [
      ['-o', join(directory, 'none.jsonl')],
      ['--otel', traces],
    ]) {
      const export_ = (id: string) =>
        episodicJson(['--home', home, 'export', '--run-id', id, ...output]);
      expect(expectError(await export_('d6af99a4'), 2, 'VALIDATION_ERROR')).toContain(
        'is the start of 3 run ids',
      );
      expect(expectError(await export_('abcdef12'), 1, 'NOT_FOUND')).toContain(
        'No run id starts with "abcdef12"',
      );
      expect(expectError(await export_('d6af9'), 2, 'VALIDATION_ERROR')).toContain(
        '--run-id "d6af9" is too short',
      );
    }

    const session = await episodicJson(['--home', home, 'sessions', 'show', sessionId.slice(0, 8)]);
    expect(session.status, session.stderr).toBe(0);
    expect(session.receipt.session_id).toBe(sessionId);
  }, 300_000);

  it('resolves unique prefixes of ledger event ids in the scope (--event-id, --after-id); refuses ambiguous ones; never reveals another scope', async () => {
    const home = temporaryHome();
    const ALPHA_EVENT_1 = '01JH4Z5Q8K2M3N4P5Q6R7S8T9V';
    const ALPHA_EVENT_2 = '01JH4Z5Q8K2M3N4P5Q6R7S8T9W';
    const ALPHA_EVENT_3 = '01JH4ZAAAAAAAAAAAAAAAAAAAA';
    const BETA_EVENT = '01JH4Z5Q8K9999999999999999';
    const BETA_ONLY_EVENT = '01JH4ZBBBBBBBBBBBBBBBBBBBB';
    const stores = await openEpisodicStores({ home });
    try {
      const event = (scope: string, event_id: string, ts_ms: number) => ({
        scope,
        event_id,
        session_id: 'sess-1',
        agent_id: 'planner',
        type: 'conversation.user' as const,
        summary: `event ${event_id}`,
        ts_ms,
      });
      await stores.ledger.appendBatch([
        event('alpha', ALPHA_EVENT_1, 1_000),
        event('alpha', ALPHA_EVENT_2, 2_000),
        event('alpha', ALPHA_EVENT_3, 3_000),
        event('beta', BETA_EVENT, 1_000),
        event('beta', BETA_ONLY_EVENT, 2_000),
      ]);
    } finally {
      await stores.close();
    }
    const alpha = (...args: string[]) => ['--home', home, ...args, '--scope', 'alpha'];

    // --after-id: a unique prefix (in lower case too) continues after that event.
    const after = await episodicJson(
      alpha('episodes', 'query', '--after-id', '01jh4z5q8k2m3n4p5q6r7s8t9w'),
    );
    expect(after.status, after.stderr).toBe(0);
    expect((after.receipt.filters as { after_id: string }).after_id).toBe(ALPHA_EVENT_2);
    expect((after.receipt.events as Array<{ event_id: string }>).map((e) => e.event_id)).toEqual([
      ALPHA_EVENT_3,
    ]);
    // ...9 starts only beta's event: in alpha it is an id nobody has.
    expectError(
      await episodicJson(alpha('episodes', 'replay', 'sess-1', '--after-id', '01JH4Z5Q8K9')),
      1,
      'NOT_FOUND',
    );
    const replayed = await episodicJson(
      alpha('episodes', 'replay', 'sess-1', '--after-id', '01jh4zaa'),
    );
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.receipt.after_id).toBe(ALPHA_EVENT_3);
    expect(replayed.receipt.count).toBe(0);

    // --event-id: a unique prefix names the event in the dry run and in the redaction.
    const planned = await episodicJson(
      alpha('episodes', 'redact', '--event-id', '01JH4ZA', '--dry-run', '--runs', 'none'),
    );
    expect(planned.status, planned.stderr).toBe(0);
    expect((planned.receipt.target as { event_id: string }).event_id).toBe(ALPHA_EVENT_3);
    const redacted = await episodicJson(
      alpha('episodes', 'redact', '--event-id', '01JH4ZA', '--runs', 'none'),
    );
    expect(redacted.status, redacted.stderr).toBe(0);
    expect(redacted.receipt.redacted_count).toBe(1);
    expect((redacted.receipt.target as { event_id: string }).event_id).toBe(ALPHA_EVENT_3);

    // Ambiguous within the scope: both alpha events are named, beta's is neither named nor counted.
    const ambiguous = expectError(
      await episodicJson(alpha('episodes', 'redact', '--event-id', '01JH4Z5Q8K', '--runs', 'none')),
      2,
      'VALIDATION_ERROR',
    );
    expect(ambiguous).toContain(
      `"01JH4Z5Q8K" is the start of 2 event ids: ${ALPHA_EVENT_1}, ${ALPHA_EVENT_2}.`,
    );
    expect(ambiguous).not.toContain(BETA_EVENT);
    // Across every scope, when asked for, all three are candidates.
    const everywhere = expectError(
      await episodicJson([
        '--home',
        home,
        'episodes',
        'redact',
        '--event-id',
        '01JH4Z5Q8K',
        '--all-scopes',
        '--dry-run',
      ]),
      2,
      'VALIDATION_ERROR',
    );
    expect(everywhere).toContain('is the start of 3 event ids');

    // Another scope's event is NOT_FOUND, exactly like an id nobody has.
    const walled = expectError(
      await episodicJson(alpha('episodes', 'redact', '--event-id', '01JH4ZB', '--runs', 'none')),
      1,
      'NOT_FOUND',
    );
    expect(walled).toContain('No event 01JH4ZB in scope alpha to redact');
    expect(walled).not.toContain(BETA_ONLY_EVENT);
    const walledAfter = expectError(
      await episodicJson(alpha('episodes', 'query', '--after-id', '01JH4ZB')),
      1,
      'NOT_FOUND',
    );
    expect(walledAfter).not.toContain(BETA_ONLY_EVENT);
    const beta = await episodicJson([
      '--home',
      home,
      'episodes',
      'redact',
      '--event-id',
      '01JH4ZB',
      '--scope',
      'beta',
      '--dry-run',
      '--runs',
      'none',
    ]);
    expect(beta.status, beta.stderr).toBe(0);
    expect((beta.receipt.target as { event_id: string }).event_id).toBe(BETA_ONLY_EVENT);

    // Too short to stand for an event: it is looked up as a whole id, and there is none.
    expectError(
      await episodicJson(alpha('episodes', 'redact', '--event-id', '01JH4', '--runs', 'none')),
      1,
      'NOT_FOUND',
    );
    // Not an id at all: the error says what an event id looks like.
    const bad = expectError(
      await episodicJson(alpha('episodes', 'query', '--after-id', '01JH4Z/5Q8K')),
      2,
      'VALIDATION_ERROR',
    );
    expect(bad).toContain('An event id is letters, digits');
  }, 300_000);

  it('resolves unique prefixes given as --session-id (runs, tasks, export); refuses ambiguous, unknown and short ones', async () => {
    const home = temporaryHome();
    const SESSION_1 = '5e55a0b1-1111-4111-8111-111111111111';
    const SESSION_2 = '5e55a0b1-2222-4222-8222-222222222222';
    const stores = await openEpisodicStores({ home });
    try {
      const model: ModelCall = async () => ({
        output: [{ type: 'message', role: 'assistant', content: 'hi' }],
      });
      for (const [index, id] of [SESSION_1, SESSION_2].entries()) {
        await createSession({ store: stores.sessions, id }).runTurn('hello', model);
        // One run of each session, as an agent's run file names it.
        const runId = `7a1b2c3d-000${index}-4000-8000-000000000000`;
        await stores.runs.append(runId, [
          {
            type: 'header',
            schema_version: 1,
            run_id: runId,
            session_id: id,
            started_at: new Date().toISOString(),
            client: { name: 'test', version: '1.0.0' },
            model: { provider: 'test', name: 'test-model' },
            runtime: { cwd: '/work/project', os: 'linux' },
          },
        ]);
      }
    } finally {
      await stores.close();
    }
    const run = (...args: string[]) => episodicJson(['--home', home, ...args]);

    const listed = await run('runs', 'list', '--session-id', '5E55A0B1-11');
    expect(listed.status, listed.stderr).toBe(0);
    expect((listed.receipt.filters as { session_id: string }).session_id).toBe(SESSION_1);
    expect(listed.receipt.count).toBe(1);
    const replayed = await run('runs', 'replay', '--session-id', '5e55a0b1-22');
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.receipt.session_id).toBe(SESSION_2);
    const collected = await run(
      'runs',
      'gc',
      '--older-than',
      '1',
      '--all-scopes',
      '--dry-run',
      '--session-id',
      '5e55a0b1-11',
    );
    expect(collected.status, collected.stderr).toBe(0);
    expect(collected.receipt.session_id).toBe(SESSION_1);

    const created = await run(
      'tasks',
      'create',
      '--scope',
      'alpha',
      '--description',
      'a task of a session',
      '--domain',
      'cli',
      '--task-type',
      'testing',
      '--session-id',
      '5e55a0b1-22',
    );
    expect(created.status, created.stderr).toBe(0);
    expect((created.receipt.task as { session_id: string }).session_id).toBe(SESSION_2);
    const tasks = await run('tasks', 'list', '--scope', 'alpha', '--session-id', '5e55a0b1-2222');
    expect(tasks.status, tasks.stderr).toBe(0);
    expect((tasks.receipt.filters as { session_id: string }).session_id).toBe(SESSION_2);
    expect(tasks.receipt.count).toBe(1);

    const directory = temporaryDirectory();
    const exported = await run(
      'export',
      '--session-id',
      '5e55a0b1-11',
      '-o',
      join(directory, 'out.jsonl'),
    );
    expect(exported.status, exported.stderr).toBe(0);
    expect((exported.receipt.selection as { session_id: string }).session_id).toBe(SESSION_1);
    const traces = join(directory, 'traces.json');
    const otel = await run('export', '--session-id', '5e55a0b1-22', '--otel', traces);
    expect(otel.status, otel.stderr).toBe(0);
    expect(readFileSync(traces, 'utf8')).toContain(SESSION_2);

    // The same errors as SESSION_ID elsewhere, naming the option.
    for (const args of [
      ['runs', 'list'],
      ['runs', 'gc', '--older-than', '1', '--all-scopes', '--dry-run'],
      ['tasks', 'list', '--scope', 'alpha'],
      ['export', '--otel', traces],
    ]) {
      const ambiguous = expectError(
        await run(...args, '--session-id', '5e55a0b1'),
        2,
        'VALIDATION_ERROR',
      );
      expect(ambiguous).toContain(
        `"5e55a0b1" is the start of 2 session ids: ${SESSION_1}, ${SESSION_2}.`,
      );
      const unknown = expectError(await run(...args, '--session-id', 'abcdef12'), 1, 'NOT_FOUND');
      expect(unknown).toContain('No session id starts with "abcdef12"');
      const short = expectError(await run(...args, '--session-id', '5e55a'), 2, 'VALIDATION_ERROR');
      expect(short).toContain('--session-id "5e55a" is too short');
      expect(short).toContain('first 6 or more characters');
    }
    // export also takes ledger session ids: an ambiguous prefix of stored sessions is refused, a
    // string that starts no stored session stays a ledger session id (it then needs a scope).
    expectError(
      await run('export', '--session-id', '5e55a0b1', '-o', join(directory, 'other.jsonl')),
      2,
      'VALIDATION_ERROR',
    );
    const ledgerOnly = expectError(
      await run('export', '--session-id', 'abcdef12', '-o', join(directory, 'ledger.jsonl')),
      2,
      'USAGE_ERROR',
    );
    expect(ledgerOnly).toContain('names only ledger events');
  }, 300_000);
});
