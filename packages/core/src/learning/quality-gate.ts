import * as z from 'zod';
import type { TaskQualityGate, TaskReward } from '../schema/task.js';

/**
 * The quality gate: off unless configured. When on, a completed task whose `reward_score` is below
 * `threshold` keeps its outcome, reward and reflection but contributes no patterns, so weak runs
 * do not teach the shared pattern store.
 */
export const qualityGateOptionsSchema = z.strictObject({
  /** The lowest `reward_score` (0 to 1) whose patterns are kept. */
  threshold: z.number().min(0).max(1),
});
export type QualityGateOptions = z.infer<typeof qualityGateOptionsSchema>;

/** The gate's verdict for `reward`, or null when the gate is off. */
export function evaluateQualityGate(
  reward: TaskReward,
  gate: QualityGateOptions | undefined,
): TaskQualityGate | null {
  if (gate === undefined) return null;
  return {
    threshold: gate.threshold,
    score: reward.reward_score,
    passed: reward.reward_score >= gate.threshold,
  };
}
