import * as z from 'zod';
import type { TaskPattern, TaskQualityGate, TaskReflection, TaskReward } from '../schema/task.js';
import { parseInput } from '../validation/parse-input.js';
import { extractPatterns } from './patterns.js';
import {
  evaluateQualityGate,
  type QualityGateOptions,
  qualityGateOptionsSchema,
} from './quality-gate.js';
import { reflectOnTask } from './reflection.js';
import { computeReward } from './reward.js';
import type { CompletedTask } from './task-facts.js';

/** Options of the learning cycle. */
export interface LearningCycleOptions {
  /**
   * The quality gate. Off when absent: every completed task contributes its patterns.
   * @default undefined
   */
  qualityGate?: QualityGateOptions | undefined;
}

/** What completing a task derives from it. */
export interface LearningResult {
  reward: TaskReward;
  reflection: TaskReflection;
  /** The patterns to store as artifacts (empty when the quality gate failed). */
  patterns: TaskPattern[];
  /** The gate's verdict, or null when the gate is off. */
  qualityGate: TaskQualityGate | null;
}

const optionsSchema = z
  .strictObject({ qualityGate: qualityGateOptionsSchema.optional() })
  .optional();

/**
 * Runs the learning cycle on a completed task, synchronously and deterministically (no clock
 * reads, no randomness): the reward, then the reflection (which quotes the reward score), then
 * the patterns, filtered by the quality gate when it is on.
 */
export function runLearningCycle(
  task: CompletedTask,
  options?: LearningCycleOptions,
): LearningResult {
  const { qualityGate } = parseInput(optionsSchema, options, 'learning cycle options') ?? {};
  const reward = computeReward(task);
  const reflection = reflectOnTask(task, reward);
  const gate = evaluateQualityGate(reward, qualityGate);
  const patterns = gate === null || gate.passed ? extractPatterns(task) : [];
  return { reward, reflection, patterns, qualityGate: gate };
}
