import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { debuggingTask } from './__fixtures__/debugging-task.js';
import {
  failureArbitrary,
  partialArbitrary,
  seedWorkflowTask,
  successArbitrary,
  taskOf,
  taskShapeArbitrary,
} from './__fixtures__/tasks.js';
import { contentKey } from './content-key.js';
import { extractPatterns } from './patterns.js';

describe('extractPatterns', () => {
  it("extracts the tool sequence and context of seed 004's workflow", () => {
    expect(extractPatterns(seedWorkflowTask())).toEqual([
      {
        type: 'tool_sequence',
        key: contentKey('tool_sequence', [['architect', 'code_generator', 'test_runner']]),
        tools: ['architect', 'code_generator', 'test_runner'],
      },
      {
        type: 'context',
        key: expect.stringMatching(/^context:[0-9a-f]{32}$/),
        context_features: [
          'task_type:code_generation',
          'domain:web-api',
          'language:rust',
          'framework:axum',
          'complexity:moderate',
          'tag:api',
          'tag:rate-limiting',
          'tag:security',
        ],
        recommended_tools: ['architect', 'code_generator', 'test_runner'],
      },
    ]);
  });

  it('extracts decision points by whole word, error recoveries and a deduplicated context', () => {
    const patterns = extractPatterns(debuggingTask());
    expect(patterns.map((pattern) => pattern.type)).toEqual([
      'tool_sequence',
      'decision_point',
      'error_recovery',
      'error_recovery',
      'context',
    ]);
    // Steps 4 and 5 share the decision "Check if the fix holds": one pattern. "Run analysis" and
    // "Modify config" are not decisions ("analysis" is not the word "is", "modify" not "if").
    expect(patterns[1]).toEqual({
      type: 'decision_point',
      key: contentKey('decision_point', ['validator', 'check if the fix holds']),
      tool: 'validator',
      condition: 'check if the fix holds',
      decision_words: ['check', 'if'],
    });
    expect(patterns[2]).toMatchObject({
      failed_tool: 'http',
      error: 'connection refused on port #',
      recovery_tool: 'http',
      recovery_action: 'retry with backoff',
    });
    expect(patterns[3]).toMatchObject({ failed_tool: 'validator', error: 'timeout' });
    expect(patterns[4]).toMatchObject({
      context_features: [
        'task_type:debugging',
        'domain:cli',
        'complexity:complex',
        'tag:a',
        'tag:b',
      ],
      recommended_tools: ['reader', 'http', 'validator'],
    });
  });

  it('gives the same pattern the same key in different tasks (different outcome, time, errors)', () => {
    const first = debuggingTask();
    const second = {
      ...debuggingTask(),
      outcome: { type: 'success' as const, verdict: 'all good', artifacts: [] },
      end_time: first.start_time,
      steps: first.steps.map((step) =>
        step.step_number === 2
          ? {
              ...step,
              result: { type: 'error' as const, message: 'connection REFUSED on port 9090' },
            }
          : step,
      ),
    };
    expect(extractPatterns(second).map((pattern) => pattern.key)).toEqual(
      extractPatterns(first).map((pattern) => pattern.key),
    );
  });

  it('learns nothing from a failure; keys are unique and content-derived (property)', () => {
    fc.assert(
      fc.property(
        taskShapeArbitrary,
        fc.oneof(successArbitrary, partialArbitrary),
        failureArbitrary,
        (shape, outcome, failure) => {
          expect(extractPatterns(taskOf(shape, failure))).toEqual([]);
          const patterns = extractPatterns(taskOf(shape, outcome));
          const keys = patterns.map((pattern) => pattern.key);
          expect(new Set(keys).size).toBe(keys.length);
          for (const pattern of patterns)
            expect(pattern.key.startsWith(`${pattern.type}:`)).toBe(true);
          expect(
            extractPatterns(taskOf({ ...shape, seconds: shape.seconds + 7 }, outcome)),
          ).toEqual(patterns);
        },
      ),
      { numRuns: 500 },
    );
  });
});
