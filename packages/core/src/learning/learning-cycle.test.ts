import { describe, expect, it } from 'vitest';
import type { EpisodicError } from '../errors/index.js';
import { debuggingTask } from './__fixtures__/debugging-task.js';
import { seedWorkflowTask } from './__fixtures__/tasks.js';
import { runLearningCycle } from './learning-cycle.js';

describe('runLearningCycle', () => {
  it('derives reward, reflection and patterns; the quality gate is off by default', () => {
    const result = runLearningCycle(seedWorkflowTask());
    expect(result.qualityGate).toBeNull();
    expect(result.patterns).toHaveLength(2);
    expect(result.reflection.insights[0]).toContain(result.reward.reward_score.toFixed(2));
    expect(runLearningCycle(seedWorkflowTask())).toEqual(result);
  });

  it('keeps patterns only from tasks at or above the configured threshold', () => {
    const weak = runLearningCycle(debuggingTask(), { qualityGate: { threshold: 0.7 } });
    expect(weak.reward.reward_score).toBeLessThan(0.7);
    expect(weak.qualityGate).toEqual({
      threshold: 0.7,
      score: weak.reward.reward_score,
      passed: false,
    });
    expect(weak.patterns).toEqual([]);
    expect(weak.reflection.improvements.length).toBeGreaterThan(0);
    const strong = runLearningCycle(seedWorkflowTask(), { qualityGate: { threshold: 0.7 } });
    expect(strong.qualityGate?.passed).toBe(true);
    expect(strong.patterns).toHaveLength(2);
    const atZero = runLearningCycle(debuggingTask(), { qualityGate: { threshold: 0 } });
    expect(atZero.patterns).toHaveLength(5);
  });

  it('rejects a bad threshold with VALIDATION_ERROR', () => {
    expect(() => runLearningCycle(seedWorkflowTask(), { qualityGate: { threshold: 1.5 } })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }) as unknown as EpisodicError,
    );
  });
});
