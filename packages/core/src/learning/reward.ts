import type { TaskComplexity, TaskOutcome, TaskReward } from '../schema/task.js';
import { type CompletedTask, type TaskFacts, taskFacts } from './task-facts.js';
import { wordsOf } from './words.js';

/** The efficiency multiplier's bounds. */
const EFFICIENCY_MIN = 0.5;
const EFFICIENCY_MAX = 1.5;
/** The quality multiplier's bounds. */
const QUALITY_MIN = 0.5;
const QUALITY_MAX = 1.5;
/** The learning bonus cap. */
const LEARNING_BONUS_MAX = 0.5;

/** The complexity bonus by complexity. */
export const COMPLEXITY_BONUS: Readonly<Record<TaskComplexity, number>> = {
  simple: 1.0,
  moderate: 1.1,
  complex: 1.2,
};

/**
 * The largest raw total the formula can produce: base 1 × efficiency 1.5 × complexity 1.2 ×
 * quality 1.5 + learning 0.5.
 */
export const REWARD_TOTAL_MAX = 1 * EFFICIENCY_MAX * 1.2 * QUALITY_MAX + LEARNING_BONUS_MAX;

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * Base reward from the outcome. Partial success lies strictly between failure and success, whatever
 * its completed share, so that success > partial success > failure holds with all else equal.
 */
export function baseReward(outcome: TaskOutcome): number {
  switch (outcome.type) {
    case 'success':
      return 1;
    case 'partial_success': {
      const total = outcome.completed.length + outcome.failed.length;
      const share = total === 0 ? 0.5 : outcome.completed.length / total;
      return 0.25 + 0.5 * share;
    }
    case 'failure':
      return 0;
  }
}

/**
 * Efficiency from duration and step count, each scored 0.5–1.5 with exponential decay and averaged:
 * duration score `0.5 + e^(−seconds/120)` (1.5 at 0 s, ≈1.11 at 60 s); step score `0.5 + e^(−steps/20)`
 * (0.5 with no steps, ≈1.36 at 3 steps).
 */
export function efficiencyMultiplier(
  facts: Pick<TaskFacts, 'durationSeconds' | 'stepCount'>,
): number {
  const durationScore =
    facts.durationSeconds <= 0 ? EFFICIENCY_MAX : 0.5 + Math.exp(-facts.durationSeconds / 120);
  const stepScore = facts.stepCount === 0 ? EFFICIENCY_MIN : 0.5 + Math.exp(-facts.stepCount / 20);
  return clamp(0.5 * durationScore + 0.5 * stepScore, EFFICIENCY_MIN, EFFICIENCY_MAX);
}

const TEST_WORDS: ReadonlySet<string> = new Set(['test', 'tests', 'spec', 'specs', 'coverage']);

/**
 * Quality from the artifacts of a success (+0.1 when one is a test or coverage artifact, +0.05 for
 * three or more) and the step error rate (errors and timeouts over all steps: 0 → +0.1,
 * above 0.1 → −0.1, above 0.3 → −0.2), within 0.5–1.5.
 */
export function qualityMultiplier(
  outcome: TaskOutcome,
  facts: Pick<TaskFacts, 'stepCount' | 'errorCount' | 'timeoutCount'>,
): number {
  let quality = 1;
  if (outcome.type === 'success') {
    const hasTests = outcome.artifacts.some((artifact) =>
      wordsOf(artifact).some((word) => TEST_WORDS.has(word)),
    );
    if (hasTests) quality += 0.1;
    if (outcome.artifacts.length >= 3) quality += 0.05;
  }
  if (facts.stepCount > 0) {
    const errorRate = (facts.errorCount + facts.timeoutCount) / facts.stepCount;
    if (errorRate > 0.3) quality -= 0.2;
    else if (errorRate > 0.1) quality -= 0.1;
    else if (errorRate === 0) quality += 0.1;
  }
  return clamp(quality, QUALITY_MIN, QUALITY_MAX);
}

/**
 * A bonus for what the run teaches, from the steps only (never from the outcome, so it cannot
 * reorder outcomes): tool diversity (3+ steps: 5+ distinct tools 0.15, 3+ tools 0.1), reliability
 * (more than 90 % of 5+ steps succeeded 0.2; else every one of 3+ steps succeeded 0.15), error
 * recovery (a failed step directly followed by a successful one 0.15), speed (under 30 s with 1–9
 * steps 0.1); at most 0.5.
 */
export function learningBonus(facts: TaskFacts): number {
  let bonus = 0;
  if (facts.stepCount >= 3) {
    if (facts.distinctTools.length >= 5) bonus += 0.15;
    else if (facts.distinctTools.length >= 3) bonus += 0.1;
  }
  if (facts.stepCount > 0) {
    const successShare = facts.successCount / facts.stepCount;
    if (successShare > 0.9 && facts.stepCount >= 5) bonus += 0.2;
    else if (successShare === 1 && facts.stepCount >= 3) bonus += 0.15;
  }
  if (facts.recoveries.length > 0) bonus += 0.15;
  if (facts.durationSeconds < 30 && facts.stepCount > 0 && facts.stepCount < 10) bonus += 0.1;
  return Math.min(bonus, LEARNING_BONUS_MAX);
}

/** Maps a raw total (0 to 3.2) to `reward_score` in [0, 1): `1 − e^(−total)`, strictly increasing. */
export function rewardScore(total: number): number {
  return clamp(1 - Math.exp(-Math.max(0, total)), 0, 1);
}

/**
 * The reward of a completed task (seed 004): the components, the raw total
 * `base × efficiency × complexity_bonus × quality_multiplier + learning_bonus` and `reward_score`.
 * Deterministic: the same task always gets the same reward.
 */
export function computeReward(task: CompletedTask): TaskReward {
  const facts = taskFacts(task);
  const base = baseReward(task.outcome);
  const efficiency = efficiencyMultiplier(facts);
  const complexity_bonus = COMPLEXITY_BONUS[task.context.complexity];
  const quality_multiplier = qualityMultiplier(task.outcome, facts);
  const learning_bonus = learningBonus(facts);
  const total = base * efficiency * complexity_bonus * quality_multiplier + learning_bonus;
  return {
    base,
    efficiency,
    complexity_bonus,
    quality_multiplier,
    learning_bonus,
    total,
    reward_score: rewardScore(total),
  };
}
