import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  complexityArbitrary,
  failureArbitrary,
  partialArbitrary,
  seedWorkflowTask,
  successArbitrary,
  taskOf,
  taskShapeArbitrary,
} from './__fixtures__/tasks.js';
import { computeReward, REWARD_TOTAL_MAX, rewardScore } from './reward.js';

describe('computeReward', () => {
  it('ranks success > partial success > failure with everything else equal (property)', () => {
    fc.assert(
      fc.property(
        taskShapeArbitrary,
        complexityArbitrary,
        successArbitrary,
        partialArbitrary,
        failureArbitrary,
        (shape, complexity, success, partial, failure) => {
          const ofSuccess = computeReward(taskOf(shape, success, complexity));
          const ofPartial = computeReward(taskOf(shape, partial, complexity));
          const ofFailure = computeReward(taskOf(shape, failure, complexity));
          expect(ofSuccess.reward_score).toBeGreaterThan(ofPartial.reward_score);
          expect(ofPartial.reward_score).toBeGreaterThan(ofFailure.reward_score);
          expect(ofSuccess.total).toBeGreaterThan(ofPartial.total);
          expect(ofPartial.total).toBeGreaterThan(ofFailure.total);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('raises the reward with complexity (strictly unless the base is 0) (property)', () => {
    fc.assert(
      fc.property(
        taskShapeArbitrary,
        fc.oneof(successArbitrary, partialArbitrary, failureArbitrary),
        (shape, outcome) => {
          const [simple, moderate, complex] = (['simple', 'moderate', 'complex'] as const).map(
            (complexity) => computeReward(taskOf(shape, outcome, complexity)),
          ) as [
            ReturnType<typeof computeReward>,
            ReturnType<typeof computeReward>,
            ReturnType<typeof computeReward>,
          ];
          if (outcome.type === 'failure') {
            expect(moderate.reward_score).toBe(simple.reward_score);
            expect(complex.reward_score).toBe(moderate.reward_score);
          } else {
            expect(moderate.reward_score).toBeGreaterThan(simple.reward_score);
            expect(complex.reward_score).toBeGreaterThan(moderate.reward_score);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('keeps every component in its documented range and reward_score in [0, 1] (property)', () => {
    fc.assert(
      fc.property(
        taskShapeArbitrary,
        complexityArbitrary,
        fc.oneof(successArbitrary, partialArbitrary, failureArbitrary),
        (shape, complexity, outcome) => {
          const reward = computeReward(taskOf(shape, outcome, complexity));
          expect(reward.base).toBeGreaterThanOrEqual(0);
          expect(reward.base).toBeLessThanOrEqual(1);
          expect(reward.efficiency).toBeGreaterThanOrEqual(0.5);
          expect(reward.efficiency).toBeLessThanOrEqual(1.5);
          expect(reward.quality_multiplier).toBeGreaterThanOrEqual(0.5);
          expect(reward.quality_multiplier).toBeLessThanOrEqual(1.5);
          expect(reward.learning_bonus).toBeGreaterThanOrEqual(0);
          expect(reward.learning_bonus).toBeLessThanOrEqual(0.5);
          expect(reward.total).toBeCloseTo(
            reward.base * reward.efficiency * reward.complexity_bonus * reward.quality_multiplier +
              reward.learning_bonus,
            12,
          );
          expect(reward.total).toBeLessThanOrEqual(REWARD_TOTAL_MAX);
          expect(reward.reward_score).toBeGreaterThanOrEqual(0);
          expect(reward.reward_score).toBeLessThanOrEqual(1);
          expect(reward.reward_score).toBe(rewardScore(reward.total));
          // Deterministic: the same task, the same reward.
          expect(computeReward(taskOf(shape, outcome, complexity))).toEqual(reward);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('maps the raw total to reward_score monotonically, 0 at 0', () => {
    expect(rewardScore(0)).toBe(0);
    expect(rewardScore(-1)).toBe(0);
    expect(rewardScore(REWARD_TOTAL_MAX)).toBeLessThan(1);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 3.2, noNaN: true }),
        fc.double({ min: 0, max: 3.2, noNaN: true }),
        (a, b) => {
          if (a < b) expect(rewardScore(a)).toBeLessThanOrEqual(rewardScore(b));
        },
      ),
    );
  });

  it("computes seed 004's workflow exactly (worked example)", () => {
    const reward = computeReward(seedWorkflowTask());
    // 20 s, 3 steps: duration score 0.5 + e^(−1/6), step score 0.5 + e^(−0.15).
    const efficiency = 0.5 * (0.5 + Math.exp(-20 / 120)) + 0.5 * (0.5 + Math.exp(-3 / 20));
    expect(reward.base).toBe(1);
    expect(reward.efficiency).toBeCloseTo(efficiency, 12);
    expect(reward.complexity_bonus).toBe(1.1);
    // 1 + 0.1 (a tests artifact) + 0.05 (three artifacts) + 0.1 (no failed steps).
    expect(reward.quality_multiplier).toBeCloseTo(1.25, 12);
    // 0.1 (3 distinct tools) + 0.15 (3 of 3 steps succeeded) + 0.1 (under 30 s with 3 steps).
    expect(reward.learning_bonus).toBeCloseTo(0.35, 12);
    expect(reward.total).toBeCloseTo(efficiency * 1.1 * 1.25 + 0.35, 12);
    expect(reward.reward_score).toBeCloseTo(1 - Math.exp(-reward.total), 12);
    expect(reward.reward_score).toBeGreaterThan(0.8);
  });

  it('scores partial success by its completed share and treats test artifacts by whole word', () => {
    const shape = { steps: [], seconds: 0, tags: [] };
    const partial = (completed: string[], failed: string[]) =>
      computeReward(taskOf(shape, { type: 'partial_success', verdict: 'v', completed, failed }))
        .base;
    expect(partial(['a', 'b', 'c'], ['d'])).toBe(0.625);
    expect(partial([], [])).toBe(0.5);
    expect(partial([], ['d'])).toBe(0.25);
    const quality = (artifacts: string[]) =>
      computeReward(taskOf(shape, { type: 'success', verdict: 'v', artifacts })).quality_multiplier;
    expect(quality(['auth_tests.rs'])).toBeCloseTo(1.1, 12);
    expect(quality(['latest.rs'])).toBe(1); // "latest" is not the word "test"
  });
});
