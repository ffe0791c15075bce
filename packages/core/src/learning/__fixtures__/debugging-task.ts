import type { CompletedTask } from '../task-facts.js';
import { after, START } from './tasks.js';

/** A worked example: a debugging task with an error, a timeout, a pending step, a partial success. */
export function debuggingTask(): CompletedTask {
  return {
    task_description: 'Fix the crash on start',
    task_type: 'debugging',
    context: { domain: 'cli', complexity: 'complex', tags: ['b', 'a', 'b'] },
    steps: [
      {
        step_number: 1,
        timestamp: after(1),
        tool: 'reader',
        action: 'Run analysis of the logs',
        result: { type: 'success', output: 'found' },
        latency_ms: 30,
      },
      {
        step_number: 2,
        timestamp: after(2),
        tool: 'http',
        action: 'Fetch status',
        result: { type: 'error', message: 'Connection refused on port 8080' },
        latency_ms: 2000,
      },
      {
        step_number: 3,
        timestamp: after(3),
        tool: 'http',
        action: 'Retry  with backoff',
        result: { type: 'success' },
      },
      {
        step_number: 4,
        timestamp: after(4),
        tool: 'validator',
        action: 'Check if the fix holds',
        result: { type: 'timeout' },
      },
      {
        step_number: 5,
        timestamp: after(5),
        tool: 'validator',
        action: 'Check if the fix holds',
        result: { type: 'success' },
      },
      { step_number: 6, timestamp: after(6), tool: 'editor', action: 'Modify config' },
    ],
    outcome: {
      type: 'partial_success',
      verdict: 'Fixed the crash',
      completed: ['crash'],
      failed: ['slow start'],
    },
    start_time: START,
    end_time: after(900),
  };
}
