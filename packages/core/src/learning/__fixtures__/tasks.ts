import fc from 'fast-check';
import type { TaskComplexity, TaskOutcome, TaskStep } from '../../schema/index.js';
import type { CompletedTask } from '../task-facts.js';

export const START = '2026-01-21T10:00:00.000Z';

/** An ISO time `seconds` after START. */
export function after(seconds: number): string {
  return new Date(Date.parse(START) + seconds * 1000).toISOString();
}

const stepArbitrary = fc.record(
  {
    tool: fc.constantFrom('planner', 'code_generator', 'test_runner', 'compiler', 'linter', 'git'),
    action: fc.constantFrom('Run analysis', 'Check if tests pass', 'Modify config', 'Write code'),
    result: fc.option(
      fc.oneof(
        fc.constant({ type: 'success' as const, output: 'ok' }),
        fc.constant({ type: 'error' as const, message: 'failed after 3 retries' }),
        fc.constant({ type: 'timeout' as const }),
      ),
      { nil: undefined },
    ),
    latency_ms: fc.option(fc.integer({ min: 0, max: 5_000 }), { nil: undefined }),
  },
  { requiredKeys: ['tool', 'action'] },
);

/** Everything of a completed task except its outcome and complexity. */
export const taskShapeArbitrary = fc.record({
  steps: fc.array(stepArbitrary, { maxLength: 25 }).map((steps) =>
    steps.map(
      (step, index): TaskStep => ({
        step_number: index + 1,
        timestamp: after(index),
        tool: step.tool,
        action: step.action,
        ...(step.result === undefined ? {} : { result: step.result }),
        ...(step.latency_ms === undefined ? {} : { latency_ms: step.latency_ms }),
      }),
    ),
  ),
  seconds: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 20_000 })),
  tags: fc.array(fc.constantFrom('api', 'auth', 'security'), { maxLength: 3 }),
});

export const successArbitrary: fc.Arbitrary<TaskOutcome> = fc.record({
  type: fc.constant('success' as const),
  verdict: fc.constant('done'),
  artifacts: fc.array(fc.constantFrom('auth.rs', 'auth_tests.rs', 'README.md', 'latest.rs'), {
    maxLength: 4,
  }),
});

export const partialArbitrary: fc.Arbitrary<TaskOutcome> = fc.record({
  type: fc.constant('partial_success' as const),
  verdict: fc.constant('half'),
  completed: fc.array(fc.constantFrom('login', 'logout'), { maxLength: 3 }),
  failed: fc.array(fc.constantFrom('2fa', 'reset'), { maxLength: 3 }),
});

export const failureArbitrary: fc.Arbitrary<TaskOutcome> = fc.record(
  {
    type: fc.constant('failure' as const),
    reason: fc.constant('Incompatible dependency versions'),
    error_details: fc.constant('axum 0.7 requires tokio 1.35+'),
  },
  { requiredKeys: ['type', 'reason'] },
);

export const complexityArbitrary = fc.constantFrom<TaskComplexity>('simple', 'moderate', 'complex');

/** Builds a completed task from its parts. */
export function taskOf(
  shape: { steps: TaskStep[]; seconds: number; tags: string[] },
  outcome: TaskOutcome,
  complexity: TaskComplexity = 'moderate',
): CompletedTask {
  return {
    task_description: 'Add rate limiting to API endpoints',
    task_type: 'code_generation',
    context: {
      domain: 'web-api',
      language: 'rust',
      framework: 'axum',
      complexity,
      tags: shape.tags,
    },
    steps: shape.steps,
    outcome,
    start_time: START,
    end_time: after(shape.seconds),
  };
}

/** Seed 004's documented workflow: three successful steps, then success. */
export function seedWorkflowTask(): CompletedTask {
  return {
    task_description: 'Add rate limiting to API endpoints',
    task_type: 'code_generation',
    context: {
      domain: 'web-api',
      language: 'rust',
      framework: 'axum',
      complexity: 'moderate',
      tags: ['api', 'security', 'rate-limiting'],
    },
    steps: [
      {
        step_number: 1,
        timestamp: after(5),
        tool: 'architect',
        action: 'Designing rate limiting strategy',
        result: { type: 'success', output: 'Chose token bucket algorithm with Redis backend' },
        latency_ms: 100,
      },
      {
        step_number: 2,
        timestamp: after(10),
        tool: 'code_generator',
        action: 'Implementing rate limiter middleware',
        parameters: { algorithm: 'token-bucket', backend: 'redis' },
        result: { type: 'success', output: 'Created middleware and tests' },
        latency_ms: 450,
      },
      {
        step_number: 3,
        timestamp: after(15),
        tool: 'test_runner',
        action: 'Running integration tests',
        result: { type: 'success', output: 'All 12 tests passed' },
        latency_ms: 800,
      },
    ],
    outcome: {
      type: 'success',
      verdict: 'Rate limiting successfully implemented and tested',
      artifacts: ['rate_limiter.rs', 'rate_limiter_tests.rs', 'redis_backend.rs'],
    },
    start_time: START,
    end_time: after(20),
  };
}
