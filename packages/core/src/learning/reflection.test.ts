import { describe, expect, it } from 'vitest';
import { debuggingTask } from './__fixtures__/debugging-task.js';
import { after, seedWorkflowTask } from './__fixtures__/tasks.js';
import { reflectOnTask } from './reflection.js';
import { computeReward } from './reward.js';
import type { CompletedTask } from './task-facts.js';

const reflect = (task: CompletedTask) => reflectOnTask(task, computeReward(task));

describe('reflectOnTask', () => {
  it("reflects on seed 004's workflow", () => {
    expect(reflect(seedWorkflowTask())).toEqual({
      successes: [
        'Completed the task: Rate limiting successfully implemented and tested',
        'Produced 3 artifacts: rate_limiter.rs, rate_limiter_tests.rs, redis_backend.rs',
        'All 3 steps succeeded',
        'Finished in 20 s with 3 steps',
      ],
      improvements: [],
      insights: [
        'code_generation task in web-api (moderate) ended in success with reward_score 0.89',
        'Tool sequence: architect → code_generator → test_runner',
        'Step latency: 1350 ms in total, 450 ms on average over 3 steps',
      ],
    });
  });

  it('reflects on errors, recoveries, pending steps and a slow partial success', () => {
    expect(reflect(debuggingTask())).toEqual({
      successes: [
        'Partially completed the task: Fixed the crash',
        'Completed: crash',
        '3 of 6 steps succeeded',
        'Recovered from the error in step 2 (http) with step 3 (http)',
        'Recovered from the timeout in step 4 (validator) with step 5 (validator)',
      ],
      improvements: [
        'Not completed: slow start',
        'Step 2 (http) failed: Connection refused on port 8080',
        'Step 4 (validator) timed out',
        "1 step had no recorded result; record each step's result",
        'Took 900 s; the slowest step was 2 (http, 2000 ms)',
      ],
      insights: [
        'debugging task in cli (complex) ended in partial_success with reward_score 0.49',
        'Tool sequence: reader → http → http → validator → validator → editor',
        'Most used tool: http (2 of 6 steps)',
        // "Run analysis" and "Modify config" are not decisions: whole words only.
        'Decision points: step 4 (validator), step 5 (validator)',
        'http errors were resolved by http',
        'validator timeouts were resolved by validator',
        'Step latency: 2030 ms in total, 1015 ms on average over 2 steps',
      ],
    });
  });

  it('reflects on a failure without steps, and on a tool retried many times', () => {
    const failed: CompletedTask = {
      ...seedWorkflowTask(),
      steps: [],
      outcome: {
        type: 'failure',
        reason: 'Incompatible dependency versions',
        error_details: 'axum 0.7 requires tokio 1.35+',
      },
    };
    const reflection = reflect(failed);
    expect(reflection.successes).toEqual([]);
    expect(reflection.improvements).toEqual([
      'The task failed: Incompatible dependency versions',
      'Error details: axum 0.7 requires tokio 1.35+',
      'No steps were recorded; log each step to learn from the task',
    ]);
    const retried: CompletedTask = {
      ...seedWorkflowTask(),
      steps: Array.from({ length: 4 }, (_, index) => ({
        step_number: index + 1,
        timestamp: after(index),
        tool: 'compiler',
        action: 'Build',
        result: { type: 'error' as const, message: `error ${index}` },
      })),
      outcome: { type: 'failure', reason: 'Does not compile' },
    };
    expect(reflect(retried).improvements).toContain(
      'compiler ran 4 times in a row (steps 1–4); check whether it was retried blindly',
    );
    expect(reflect(retried)).toEqual(reflect(retried));
  });
});
