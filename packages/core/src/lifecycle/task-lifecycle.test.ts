import { describe, expect, it } from 'vitest';
import type { EpisodicError } from '../errors/index.js';
import { replayRun } from '../run/replay.js';
import { createRunRecorder } from '../run/run-recorder.js';
import type { CreateTaskInput } from '../schema/task.js';
import { type ArtifactStoreAdapter, createArtifactStore } from '../store/artifact-store.js';
import { createMemoryArtifactStoreAdapter } from '../store/memory-artifact-store.js';
import { createMemoryRunStoreAdapter } from '../store/memory-run-store.js';
import { createRunStore, type RunStoreAdapter } from '../store/run-store.js';
import { expectEpisodicError } from '../testing/suite-helpers.js';
import {
  createTaskLifecycle,
  type TaskLifecycle,
  type TaskLifecycleOptions,
} from './task-lifecycle.js';

const TASK_ID = '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c';
const OTHER_ID = '4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d';

/** A clock that advances 5 seconds per reading, from 2026-01-21T10:00:00Z. */
function steppingClock(stepSeconds = 5) {
  let reading = 0;
  return () => new Date(Date.UTC(2026, 0, 21, 10, 0, 0) + stepSeconds * 1000 * reading++);
}

/** Counts every backend call, and fails the ones named in `failing` (while it is non-empty). */
function instrumented<Adapter extends object>(adapter: Adapter) {
  const calls: string[] = [];
  const failing = new Set<string>();
  const proxy = new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        if (failing.has(String(property))) {
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { adapter: proxy, calls, failing };
}

function setup(extra: Partial<TaskLifecycleOptions> = {}) {
  const runAdapter = instrumented<RunStoreAdapter>(createMemoryRunStoreAdapter());
  const artifactAdapter = instrumented<ArtifactStoreAdapter>(createMemoryArtifactStoreAdapter());
  const runs = createRunStore(runAdapter.adapter);
  const artifacts = createArtifactStore(artifactAdapter.adapter);
  const ids = [TASK_ID, OTHER_ID];
  const options: TaskLifecycleOptions = {
    runs,
    artifacts,
    now: steppingClock(),
    generateId: () => ids.shift() ?? globalThis.crypto.randomUUID(),
    ...extra,
  };
  return {
    lifecycle: createTaskLifecycle(options),
    runs,
    artifacts,
    runAdapter,
    artifactAdapter,
    options,
  };
}

/** Records two successful steps, `planner` then `coder`, on task `id`. */
async function planThenCode(lifecycle: TaskLifecycle, id: string): Promise<void> {
  await lifecycle.addStep({
    episode_id: id,
    step_number: 1,
    tool: 'planner',
    action: 'Plan',
    result: { type: 'success' },
  });
  await lifecycle.addStep({
    episode_id: id,
    step_number: 2,
    tool: 'coder',
    action: 'Code',
    result: { type: 'success' },
  });
}

const rateLimiting: CreateTaskInput = {
  task_description: 'Add rate limiting to API endpoints',
  domain: 'web-api',
  task_type: 'code_generation',
  language: 'rust',
  framework: 'axum',
  complexity: 'moderate',
  tags: ['api', 'security', 'rate-limiting'],
};

describe('the task lifecycle', () => {
  it("runs seed 004's documented workflow end to end: create → 3 steps → timeline → complete → get", async () => {
    const { lifecycle, runs, artifacts } = setup();

    // 1. Create.
    const created = await lifecycle.createTask(rateLimiting);
    const episodeId = created.id;
    expect(episodeId).toBe(TASK_ID);
    expect(created).toMatchObject({
      task_description: 'Add rate limiting to API endpoints',
      task_type: 'code_generation',
      context: {
        domain: 'web-api',
        language: 'rust',
        framework: 'axum',
        complexity: 'moderate',
        tags: ['api', 'security', 'rate-limiting'],
      },
      start_time: '2026-01-21T10:00:00.000Z',
      end_time: null,
      steps: [],
      outcome: null,
      reward_score: null,
      patterns: [],
    });

    // 2–4. Three steps.
    await lifecycle.addStep({
      episode_id: episodeId,
      step_number: 1,
      tool: 'architect',
      action: 'Designing rate limiting strategy',
      result: { type: 'success', output: 'Chose token bucket algorithm with Redis backend' },
      latency_ms: 100,
    });
    const second = await lifecycle.addStep({
      episode_id: episodeId,
      step_number: 2,
      tool: 'code_generator',
      action: 'Implementing rate limiter middleware',
      parameters: { algorithm: 'token-bucket', backend: 'redis' },
      result: { type: 'success', output: 'Created middleware and tests' },
      latency_ms: 450,
    });
    expect(second).toEqual({
      step_number: 2,
      timestamp: '2026-01-21T10:00:10.000Z',
      tool: 'code_generator',
      action: 'Implementing rate limiter middleware',
      parameters: { algorithm: 'token-bucket', backend: 'redis' },
      result: { type: 'success', output: 'Created middleware and tests' },
      latency_ms: 450,
    });
    await lifecycle.addStep({
      episode_id: episodeId,
      step_number: 3,
      tool: 'test_runner',
      action: 'Running integration tests',
      result: { type: 'success', output: 'All 12 tests passed' },
      latency_ms: 800,
    });

    // 5. Check progress before completion.
    const timeline = await lifecycle.getTimeline({ episode_id: episodeId });
    expect(timeline).toEqual({
      episode_id: episodeId,
      task_description: 'Add rate limiting to API endpoints',
      start_time: '2026-01-21T10:00:00.000Z',
      end_time: null,
      duration_seconds: null,
      step_count: 3,
      outcome: null,
      timeline: [
        {
          step_number: 1,
          timestamp: '2026-01-21T10:00:05.000Z',
          tool: 'architect',
          action: 'Designing rate limiting strategy',
          result_type: 'success',
          latency_ms: 100,
        },
        {
          step_number: 2,
          timestamp: '2026-01-21T10:00:10.000Z',
          tool: 'code_generator',
          action: 'Implementing rate limiter middleware',
          result_type: 'success',
          latency_ms: 450,
        },
        {
          step_number: 3,
          timestamp: '2026-01-21T10:00:15.000Z',
          tool: 'test_runner',
          action: 'Running integration tests',
          result_type: 'success',
          latency_ms: 800,
        },
      ],
      next_offset: null,
    });

    // 6. Complete.
    const completed = await lifecycle.completeTask({
      episode_id: episodeId,
      outcome_type: 'success',
      verdict: 'Rate limiting successfully implemented and tested',
      artifacts: ['rate_limiter.rs', 'rate_limiter_tests.rs', 'redis_backend.rs'],
    });
    expect(completed.end_time).toBe('2026-01-21T10:00:20.000Z');

    // 7. Retrieve the full episode.
    const episode = await lifecycle.getTask({ episode_id: episodeId });
    const { duplicate, ...completedTask } = completed;
    expect(duplicate).toBe(false);
    expect(episode).toEqual(completedTask);
    expect(episode.outcome).toEqual({
      type: 'success',
      verdict: 'Rate limiting successfully implemented and tested',
      artifacts: ['rate_limiter.rs', 'rate_limiter_tests.rs', 'redis_backend.rs'],
    });
    expect(episode.reward_score).toBeCloseTo(0.89, 2);
    expect(episode.reward).toMatchObject({ base: 1, complexity_bonus: 1.1 });
    expect(episode.reflection?.successes[0]).toBe(
      'Completed the task: Rate limiting successfully implemented and tested',
    );
    expect(episode.patterns.map((pattern) => pattern.type)).toEqual(['tool_sequence', 'context']);
    expect(episode.quality_gate).toBeNull();
    const finished = await lifecycle.getTimeline({ episode_id: episodeId });
    expect(finished).toMatchObject({ duration_seconds: 20, outcome: 'success', step_count: 3 });

    // The task is a run: listed and replayable like any other.
    expect((await runs.list()).runs.map((run) => run.runId)).toEqual([episodeId]);
    const read = await runs.read(episodeId);
    expect(read.ended).toBe(true);
    expect(read.records.map((record) => record.type)).toEqual([
      'header',
      'run.start',
      'run.status',
      'agent.event',
      'agent.event',
      'agent.event',
      'agent.event',
      'run.status',
      'run.end',
    ]);
    const replay = replayRun(read.records);
    expect(replay.events[0]).toMatchObject({
      kind: 'user_message',
      message: { content: 'Add rate limiting to API endpoints' },
    });
    expect(
      replay.events.slice(1).map((event) => (event.kind === 'agent_event' ? event.seq : -1)),
    ).toEqual([0, 1, 2, 3]);

    // Patterns and the reflection are artifacts associated with the task episode.
    const stored = await artifacts.list({ episode: `task:${episodeId}` });
    expect(stored.artifacts.map((artifact) => artifact.kind).sort()).toEqual([
      'pattern',
      'pattern',
      'reflection',
    ]);
    for (const pattern of episode.patterns) {
      expect((await artifacts.get(pattern.key))?.content).toEqual(pattern);
    }
  });

  it('shows each step immediately; a step without a result is pending; latency is null when unknown', async () => {
    const { lifecycle } = setup();
    const { id } = await lifecycle.createTask({
      task_description: 'Investigate a slow query',
      domain: 'db',
      task_type: 'analysis',
    });
    expect((await lifecycle.getTask({ episode_id: id })).context.complexity).toBe('moderate');
    await lifecycle.addStep({
      episode_id: id,
      step_number: 1,
      tool: 'psql',
      action: 'Run explain',
    });
    const timeline = await lifecycle.getTimeline({ episode_id: id });
    expect(timeline.timeline).toEqual([
      {
        step_number: 1,
        timestamp: '2026-01-21T10:00:05.000Z',
        tool: 'psql',
        action: 'Run explain',
        result_type: 'pending',
        latency_ms: null,
      },
    ]);
    expect(timeline.duration_seconds).toBeNull();
  });

  it('answers NOT_FOUND for an unknown id, and for a run that is not a task episode', async () => {
    const { lifecycle, runs } = setup();
    const unknown = OTHER_ID;
    await expectEpisodicError(lifecycle.getTask({ episode_id: unknown }), 'NOT_FOUND');
    await expectEpisodicError(lifecycle.getTimeline({ episode_id: unknown }), 'NOT_FOUND');
    await expectEpisodicError(
      lifecycle.addStep({ episode_id: unknown, step_number: 1, tool: 't', action: 'a' }),
      'NOT_FOUND',
    );
    await expectEpisodicError(
      lifecycle.completeTask({ episode_id: unknown, outcome_type: 'failure', reason: 'r' }),
      'NOT_FOUND',
    );
    await expectEpisodicError(
      lifecycle.deleteTask({ episode_id: unknown, confirm: true }),
      'NOT_FOUND',
    );
    const recorder = createRunRecorder({ store: runs, runId: unknown, sessionId: TASK_ID });
    await recorder.start('hello');
    const error = await expectEpisodicError(
      lifecycle.getTask({ episode_id: unknown }),
      'NOT_FOUND',
    );
    expect(error.message).toContain('not a task episode');
  });

  it('rejects an invalid id with VALIDATION_ERROR before any storage access', async () => {
    const { lifecycle, runAdapter, artifactAdapter } = setup();
    for (const badId of ['../../etc/passwd', 'not-a-uuid', '', 42, `${TASK_ID}\u0000`]) {
      const calls = [
        lifecycle.getTask({ episode_id: badId as string }),
        lifecycle.getTimeline({ episode_id: badId as string }),
        lifecycle.addStep({ episode_id: badId as string, step_number: 1, tool: 't', action: 'a' }),
        lifecycle.completeTask({
          episode_id: badId as string,
          outcome_type: 'failure',
          reason: 'r',
        }),
        lifecycle.deleteTask({ episode_id: badId as string, confirm: true }),
        lifecycle.deleteTask({ episode_id: badId as string } as never),
      ];
      for (const call of calls) {
        const error = await expectEpisodicError(call, 'VALIDATION_ERROR');
        expect(error.message).toContain('episode_id');
      }
    }
    expect(runAdapter.calls).toEqual([]);
    expect(artifactAdapter.calls).toEqual([]);
    await expectEpisodicError(
      lifecycle.createTask({ ...rateLimiting, task_type: 'coding' as never }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      lifecycle.createTask({
        ...rateLimiting,
        metadata: { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11 },
      }),
      'VALIDATION_ERROR',
    );
    expect(runAdapter.calls).toEqual([]);
  });

  it('answers CONFLICT for a step or an outcome after completion, and for a repeated step number', async () => {
    const { lifecycle } = setup();
    const { id } = await lifecycle.createTask(rateLimiting);
    await lifecycle.addStep({ episode_id: id, step_number: 2, tool: 't', action: 'a' });
    const repeated = await expectEpisodicError(
      lifecycle.addStep({ episode_id: id, step_number: 2, tool: 't', action: 'again' }),
      'CONFLICT',
    );
    expect(repeated.message).toContain('Use step_number 3 or higher');
    await expectEpisodicError(
      lifecycle.addStep({ episode_id: id, step_number: 1, tool: 't', action: 'a' }),
      'CONFLICT',
    );
    await lifecycle.addStep({ episode_id: id, step_number: 5, tool: 't', action: 'a gap is fine' });
    await lifecycle.completeTask({
      episode_id: id,
      outcome_type: 'partial_success',
      verdict: 'half',
      completed: ['a'],
      failed: ['b'],
    });
    const late = await expectEpisodicError(
      lifecycle.addStep({ episode_id: id, step_number: 6, tool: 't', action: 'a' }),
      'CONFLICT',
    );
    expect(late.message).toContain('already completed (partial_success');
    await expectEpisodicError(
      lifecycle.completeTask({ episode_id: id, outcome_type: 'success', verdict: 'v' }),
      'CONFLICT',
    );
    expect((await lifecycle.getTask({ episode_id: id })).outcome?.type).toBe('partial_success');
    expect((await lifecycle.getTimeline({ episode_id: id })).step_count).toBe(2);
  });

  it('records a failure as an errored run, with the reason', async () => {
    const { lifecycle, runs } = setup();
    const { id } = await lifecycle.createTask(rateLimiting);
    await lifecycle.addStep({
      episode_id: id,
      step_number: 1,
      tool: 'cargo',
      action: 'Build',
      result: { type: 'error', message: 'axum 0.7 requires tokio 1.35+' },
    });
    const failed = await lifecycle.completeTask({
      episode_id: id,
      outcome_type: 'failure',
      reason: 'Incompatible dependency versions',
      error_details: 'axum 0.7 requires tokio 1.35+, but project uses tokio 1.28',
    });
    expect(failed.patterns).toEqual([]);
    expect(failed.reward?.base).toBe(0);
    expect(failed.reflection?.improvements[0]).toBe(
      'The task failed: Incompatible dependency versions',
    );
    const read = await runs.read(id);
    expect(read.records.slice(-3)).toMatchObject([
      {
        type: 'run.error',
        error: { name: 'TaskFailure', message: 'Incompatible dependency versions' },
      },
      { type: 'run.status', status: 'error' },
      { type: 'run.end', outcome: 'error', final: 'Incompatible dependency versions' },
    ]);
    expect((await lifecycle.getTimeline({ episode_id: id })).outcome).toBe('failure');
  });

  it('requires confirm: true to delete, and garbage-collects artifacts by association', async () => {
    const { lifecycle, runs, artifacts, runAdapter } = setup();
    const first = (await lifecycle.createTask({ ...rateLimiting, metadata: { team: 'api' } })).id;
    const second = (await lifecycle.createTask({ ...rateLimiting, metadata: { team: 'web' } })).id;
    for (const id of [first, second]) {
      await planThenCode(lifecycle, id);
      await lifecycle.completeTask({ episode_id: id, outcome_type: 'success', verdict: 'done' });
    }
    const shared = (await lifecycle.getTask({ episode_id: first })).patterns[0];
    expect(shared?.type).toBe('tool_sequence');
    const sharedKey = shared?.key as string;
    // The same pattern in two tasks is ONE artifact associated with both.
    expect((await artifacts.get(sharedKey))?.episodes).toEqual([`task:${first}`, `task:${second}`]);
    expect((await artifacts.get(sharedKey))?.effectiveMetadata).toEqual({ team: ['api', 'web'] });

    const callsBefore = runAdapter.calls.length;
    for (const confirm of [undefined, false]) {
      const error = await expectEpisodicError(
        lifecycle.deleteTask({
          episode_id: first,
          ...(confirm === undefined ? {} : { confirm }),
        } as never),
        'CONFIRMATION_REQUIRED',
      );
      expect(error.message).toContain('confirm: true');
    }
    await expectEpisodicError(
      lifecycle.deleteTask({ episode_id: first, confirm: 'yes' } as never),
      'VALIDATION_ERROR',
    );
    expect(runAdapter.calls.length).toBe(callsBefore);
    expect((await lifecycle.getTask({ episode_id: first })).id).toBe(first);

    const receipt = await lifecycle.deleteTask({ episode_id: first, confirm: true });
    expect(receipt.episode_id).toBe(first);
    expect(receipt.deleted_artifacts).toEqual([`reflection:${first}`]);
    expect(receipt.updated_artifacts.sort()).toEqual(
      (await lifecycle.getTask({ episode_id: second })).patterns
        .map((pattern) => pattern.key)
        .sort(),
    );
    await expectEpisodicError(lifecycle.getTask({ episode_id: first }), 'NOT_FOUND');
    expect((await runs.list()).runs.map((run) => run.runId)).toEqual([second]);
    // The shared pattern survives, without the deleted task's contribution.
    expect(await artifacts.get(sharedKey)).toMatchObject({
      episodes: [`task:${second}`],
      effectiveMetadata: { team: ['web'] },
    });
    expect(await artifacts.getEpisodeMetadata(`task:${first}`)).toBeNull();

    const last = await lifecycle.deleteTask({ episode_id: second, confirm: true });
    expect(last.deleted_artifacts).toContain(sharedKey);
    expect((await artifacts.list()).artifacts).toEqual([]);
  });

  it('never reports success when storing failed, and a retry then succeeds', async () => {
    const { lifecycle, runAdapter, artifactAdapter, runs, artifacts } = setup();
    runAdapter.failing.add('appendAt');
    await expectEpisodicError(lifecycle.createTask(rateLimiting), 'STORAGE_ERROR');
    runAdapter.failing.clear();
    expect((await runs.list()).runs).toEqual([]);

    const { id } = await lifecycle.createTask(rateLimiting);
    runAdapter.failing.add('appendAt');
    const error = await expectEpisodicError(
      lifecycle.addStep({
        episode_id: id,
        step_number: 1,
        tool: 'planner',
        action: 'Plan',
        result: { type: 'success' },
      }),
      'STORAGE_ERROR',
    );
    expect(error.message).toContain('Nothing was reported as stored');
    runAdapter.failing.clear();
    expect((await lifecycle.getTimeline({ episode_id: id })).step_count).toBe(0);
    await planThenCode(lifecycle, id);

    // The run store fails: the task is not completed, and the retry is clean.
    const complete = { episode_id: id, outcome_type: 'success', verdict: 'done' } as const;
    runAdapter.failing.add('appendAt');
    await expectEpisodicError(lifecycle.completeTask(complete), 'STORAGE_ERROR');
    runAdapter.failing.clear();
    expect((await lifecycle.getTask({ episode_id: id })).outcome).toBeNull();

    // The artifact store fails after the run recorded the one completion: the call fails (never
    // a success with patterns missing), and the same completion retried stores them.
    artifactAdapter.failing.add('upsertArtifact');
    await expectEpisodicError(lifecycle.completeTask(complete), 'STORAGE_ERROR');
    artifactAdapter.failing.clear();
    expect((await lifecycle.getTask({ episode_id: id })).outcome?.type).toBe('success');
    expect((await artifacts.list({ kind: 'reflection' })).artifacts).toEqual([]);
    // Another outcome cannot take its place…
    await expectEpisodicError(
      lifecycle.completeTask({ episode_id: id, outcome_type: 'failure', reason: 'late' }),
      'CONFLICT',
    );
    // …and the same one, retried, finishes storing what was learned. It is answered as a
    // duplicate: the completion was stored by the first call (whose error said it may have been).
    const done = await lifecycle.completeTask(complete);
    expect(done.outcome?.type).toBe('success');
    expect(done.duplicate).toBe(true);
    expect((await artifacts.list({ kind: 'reflection' })).artifacts).toHaveLength(1);
    expect((await artifacts.list({ kind: 'pattern' })).artifacts.length).toBe(done.patterns.length);
    // Once everything is stored, the same completion again gets the same answer, storing nothing.
    const again = await lifecycle.completeTask(complete);
    expect(again).toEqual(done);
    expect(
      (await runs.read(id)).records.filter((record) => record.type === 'run.end'),
    ).toHaveLength(1);
    expect((await lifecycle.getTimeline({ episode_id: id })).step_count).toBe(2);

    // A failing delete leaves the task readable, and a retry finishes it.
    runAdapter.failing.add('delete');
    await expectEpisodicError(
      lifecycle.deleteTask({ episode_id: id, confirm: true }),
      'STORAGE_ERROR',
    );
    runAdapter.failing.clear();
    expect((await lifecycle.getTask({ episode_id: id })).id).toBe(id);
    await lifecycle.deleteTask({ episode_id: id, confirm: true });
    await expectEpisodicError(lifecycle.getTask({ episode_id: id }), 'NOT_FOUND');
  });

  it('applies the quality gate only when configured', async () => {
    const gated = setup({ qualityGate: { threshold: 0.95 } });
    const { id } = await gated.lifecycle.createTask(rateLimiting);
    await gated.lifecycle.addStep({
      episode_id: id,
      step_number: 1,
      tool: 'a',
      action: 'x',
      result: { type: 'success' },
    });
    await gated.lifecycle.addStep({
      episode_id: id,
      step_number: 2,
      tool: 'b',
      action: 'y',
      result: { type: 'success' },
    });
    const done = await gated.lifecycle.completeTask({
      episode_id: id,
      outcome_type: 'success',
      verdict: 'ok',
    });
    expect(done.quality_gate).toEqual({ threshold: 0.95, score: done.reward_score, passed: false });
    expect(done.patterns).toEqual([]);
    expect((await gated.artifacts.list({ kind: 'pattern' })).artifacts).toEqual([]);
    expect((await gated.artifacts.list({ kind: 'reflection' })).artifacts).toHaveLength(1);
    expect(() => createTaskLifecycle({ ...gated.options, qualityGate: { threshold: 2 } })).toThrow(
      /threshold/,
    );
  });

  it('filters patterns by the metadata of the task episodes they came from', async () => {
    const { lifecycle, artifacts } = setup();
    const steps = async (id: string) => {
      await planThenCode(lifecycle, id);
      await lifecycle.completeTask({ episode_id: id, outcome_type: 'success', verdict: 'done' });
    };
    const a = (
      await lifecycle.createTask({ ...rateLimiting, metadata: { tenant: 'acme', priority: 1 } })
    ).id;
    const b = (
      await lifecycle.createTask({ ...rateLimiting, metadata: { tenant: 'globex', priority: 9 } })
    ).id;
    await steps(a);
    await steps(b);
    const acmeUrgent = {
      type: 'and' as const,
      filters: [
        { property_name: 'tenant', comparison_operator: '=' as const, property_value: 'acme' },
        { property_name: 'priority', comparison_operator: '>=' as const, property_value: 5 },
      ],
    };
    // The shared patterns have an acme episode and an urgent episode, but no urgent acme episode.
    expect((await artifacts.list({ kind: 'pattern', filter: acmeUrgent })).artifacts).toEqual([]);
    expect(
      (
        await artifacts.list({ kind: 'reflection', policy: { required: { tenant: 'acme' } } })
      ).artifacts.map((artifact) => artifact.key),
    ).toEqual([`reflection:${a}`]);
    // Both tenants contributed to the shared patterns, so an acme-only reader sees none of them.
    expect(
      (await artifacts.list({ kind: 'pattern', policy: { required: { tenant: 'acme' } } }))
        .artifacts,
    ).toEqual([]);
  });

  it('keeps no state of its own: a new instance over the same stores continues a task', async () => {
    const { lifecycle, options } = setup();
    const { id } = await lifecycle.createTask(rateLimiting);
    await lifecycle.addStep({
      episode_id: id,
      step_number: 1,
      tool: 't',
      action: 'a',
      result: { type: 'success' },
    });
    const other = createTaskLifecycle({ ...options, now: steppingClock() });
    await other.addStep({
      episode_id: id.toUpperCase(),
      step_number: 2,
      tool: 't',
      action: 'b',
      result: { type: 'timeout' },
    });
    expect(
      (await lifecycle.getTimeline({ episode_id: id })).timeline.map((entry) => entry.result_type),
    ).toEqual(['success', 'timeout']);
  });

  it('serializes concurrent calls on one task: every step stored once, in order, with distinct seqs', async () => {
    const { lifecycle, runs } = setup();
    const { id } = await lifecycle.createTask(rateLimiting);
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        lifecycle.addStep({
          episode_id: id,
          step_number: index + 1,
          tool: 't',
          action: `step ${index + 1}`,
        }),
      ),
    );
    const seqs = (await runs.read(id)).records.flatMap((record) =>
      record.type === 'agent.event' ? [(record as { seq: number }).seq] : [],
    );
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(
      (await lifecycle.getTimeline({ episode_id: id })).timeline.map((entry) => entry.step_number),
    ).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
  });

  it('stops at 1,000 steps', async () => {
    const { lifecycle } = setup({ now: () => new Date(Date.UTC(2026, 0, 21)) });
    const { id } = await lifecycle.createTask(rateLimiting);
    for (let step = 1; step <= 1_000; step++) {
      await lifecycle.addStep({ episode_id: id, step_number: step, tool: 't', action: 'a' });
    }
    const error = await expectEpisodicError(
      lifecycle.addStep({ episode_id: id, step_number: 1_001, tool: 't', action: 'a' }),
      'VALIDATION_ERROR',
    );
    expect(error.message).toContain('1000 steps');
    expect((await lifecycle.getTimeline({ episode_id: id })).step_count).toBe(1_000);
  }, 300_000);
});

describe('the task lifecycle with several writers on one store', () => {
  /** Several lifecycles (as separate processes would have) over the same stores. */
  function writers(count: number) {
    const first = setup();
    const others = Array.from({ length: count - 1 }, () =>
      createTaskLifecycle({ ...first.options, generateId: () => globalThis.crypto.randomUUID() }),
    );
    return { ...first, lifecycles: [first.lifecycle, ...others] };
  }

  const step = (id: string, stepNumber: number, tool = 'tool') => ({
    episode_id: id,
    step_number: stepNumber,
    tool,
    action: `step ${stepNumber}`,
    result: { type: 'success' as const },
  });

  it('acknowledges each step number once, stored in increasing order, whoever writes it', async () => {
    const { lifecycles, runs } = writers(4);
    const { id } = (await lifecycles[0]?.createTask(rateLimiting)) ?? { id: '' };
    const acknowledged: Array<{ writer: number; step: number }> = [];
    // Every writer tries every step number 1..25, all at once.
    await Promise.all(
      lifecycles.map(async (lifecycle, writer) => {
        for (let number = 1; number <= 25; number++) {
          try {
            await lifecycle.addStep(step(id, number, `writer-${writer}`));
            acknowledged.push({ writer, step: number });
          } catch (error) {
            expect((error as EpisodicError).code).toBe('CONFLICT');
          }
        }
      }),
    );
    const numbers = acknowledged.map((ack) => ack.step).sort((left, right) => left - right);
    expect(new Set(numbers).size).toBe(numbers.length);
    const stored = (await lifecycles[1]?.getTask({ episode_id: id }))?.steps ?? [];
    expect(stored).toHaveLength(acknowledged.length);
    const order = stored.map((entry) => entry.step_number);
    expect(order).toEqual([...order].sort((left, right) => left - right));
    // Each acknowledged step is stored exactly as its writer sent it.
    for (const ack of acknowledged) {
      expect(stored.find((entry) => entry.step_number === ack.step)?.tool).toBe(
        `writer-${ack.writer}`,
      );
    }
    // The run's event seqs stay unique too.
    const read = await runs.read(id);
    const seqs = read.records.flatMap((record) =>
      record.type === 'agent.event' ? [record.seq as number] : [],
    );
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('lets exactly one completion win; every other gets CONFLICT and no step follows it', async () => {
    const { lifecycles } = writers(4);
    const { id } = (await lifecycles[0]?.createTask(rateLimiting)) ?? { id: '' };
    await lifecycles[1]?.addStep(step(id, 1));
    const outcomes = await Promise.allSettled(
      lifecycles.flatMap((lifecycle, writer) => [
        writer % 2 === 0
          ? lifecycle.completeTask({
              episode_id: id,
              outcome_type: 'success',
              verdict: `w${writer}`,
            })
          : lifecycle.completeTask({
              episode_id: id,
              outcome_type: 'failure',
              reason: `w${writer}`,
            }),
        lifecycle.addStep(step(id, 2 + writer)),
      ]),
    );
    const completions = outcomes.filter((_, index) => index % 2 === 0);
    const won = completions.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const outcome of completions) {
      if (outcome.status === 'rejected') expect(outcome.reason.code).toBe('CONFLICT');
    }
    const winner = (won[0] as PromiseFulfilledResult<{ outcome: unknown; steps: unknown[] }>).value;
    const task = await lifecycles[3]?.getTask({ episode_id: id });
    expect(task?.outcome).toEqual(winner.outcome);
    // Steps that were acknowledged are exactly the ones the completion saw: none after it.
    const stepsAcknowledged = outcomes.filter(
      (outcome, index) => index % 2 === 1 && outcome.status === 'fulfilled',
    ).length;
    expect(task?.steps).toHaveLength(1 + stepsAcknowledged);
    expect(winner.steps).toHaveLength(1 + stepsAcknowledged);
  });

  // Issue 29: 4 processes sending the same complete_episode at once each got a success. Exactly
  // one call is the completion; every other identical call, racing or later, gets the same answer:
  // the stored task marked as a duplicate.
  it('acknowledges one of many identical completions; racing and later ones alike are duplicates', async () => {
    const { lifecycles, runs, artifacts } = writers(4);
    const { id } = (await lifecycles[0]?.createTask(rateLimiting)) ?? { id: '' };
    await lifecycles[1]?.addStep(step(id, 1));
    const complete = { episode_id: id, outcome_type: 'success', verdict: 'done' } as const;
    const racing = await Promise.all(
      lifecycles.flatMap((lifecycle) => [
        lifecycle.completeTask(complete),
        lifecycle.completeTask(complete),
      ]),
    );
    expect(racing.filter((answer) => !answer.duplicate)).toHaveLength(1);
    const winner = racing.find((answer) => !answer.duplicate);
    const later = await Promise.all(
      lifecycles.map((lifecycle) => lifecycle.completeTask(complete)),
    );
    for (const answer of [...racing, ...later]) {
      if (answer === winner) continue;
      expect(answer).toEqual({ ...winner, duplicate: true });
    }
    const read = await runs.read(id);
    expect(read.records.filter((record) => record.type === 'run.end')).toHaveLength(1);
    expect((await artifacts.list({ kind: 'reflection' })).artifacts).toHaveLength(1);
    // Another outcome is refused, racing or later.
    await expectEpisodicError(
      lifecycles[2]?.completeTask({ episode_id: id, outcome_type: 'failure', reason: 'no' }) ??
        Promise.resolve(),
      'CONFLICT',
    );
  });

  it('reads only what was appended since its last call, never the whole run again', async () => {
    const { lifecycle, runAdapter } = setup();
    const { id } = await lifecycle.createTask(rateLimiting);
    const readsAfter: number[] = [];
    const original = runAdapter.adapter.readAfter.bind(runAdapter.adapter);
    (runAdapter.adapter as { readAfter: RunStoreAdapter['readAfter'] }).readAfter = (
      runId,
      position,
    ) => {
      readsAfter.push(position);
      return original(runId, position);
    };
    runAdapter.calls.length = 0;
    for (let number = 1; number <= 20; number++) await lifecycle.addStep(step(id, number));
    await lifecycle.getTimeline({ episode_id: id, offset: 10, limit: 5 });
    expect(runAdapter.calls).not.toContain('read');
    // Each call continues where the previous one ended (3 records created the task).
    expect(readsAfter).toEqual(Array.from({ length: 21 }, (_, index) => 3 + index));
  });

  it('pages the timeline with offset and limit', async () => {
    const { lifecycle } = setup();
    const { id } = await lifecycle.createTask(rateLimiting);
    for (let number = 1; number <= 12; number++) await lifecycle.addStep(step(id, number * 10));
    const first = await lifecycle.getTimeline({ episode_id: id, limit: 5 });
    expect(first.timeline.map((entry) => entry.step_number)).toEqual([10, 20, 30, 40, 50]);
    expect(first).toMatchObject({ step_count: 12, next_offset: 5 });
    const last = await lifecycle.getTimeline({ episode_id: id, offset: 10, limit: 5 });
    expect(last.timeline.map((entry) => entry.step_number)).toEqual([110, 120]);
    expect(last.next_offset).toBeNull();
    expect((await lifecycle.getTimeline({ episode_id: id, offset: 50 })).timeline).toEqual([]);
    for (const bad of [
      { offset: -1 },
      { limit: 0 },
      { limit: 1001 },
      { offset: 1.5 },
      { page: 2 },
    ]) {
      await expectEpisodicError(
        lifecycle.getTimeline({ episode_id: id, ...bad } as never),
        'VALIDATION_ERROR',
      );
    }
  });
});
