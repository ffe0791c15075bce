// Public exports of this area, listed by name.
export { contentKey, sha256Hex } from './content-key.js';
export type { LearningCycleOptions, LearningResult } from './learning-cycle.js';
export { runLearningCycle } from './learning-cycle.js';
export { errorSignature, extractPatterns, TOOL_SEQUENCE_MAX_TOOLS } from './patterns.js';
export type { QualityGateOptions } from './quality-gate.js';
export { evaluateQualityGate, qualityGateOptionsSchema } from './quality-gate.js';
export { reflectOnTask } from './reflection.js';
export {
  baseReward,
  COMPLEXITY_BONUS,
  computeReward,
  efficiencyMultiplier,
  learningBonus,
  qualityMultiplier,
  REWARD_TOTAL_MAX,
  rewardScore,
} from './reward.js';
export type { CompletedTask, Recovery, TaskFacts } from './task-facts.js';
export { isFailedStep, isSuccessfulStep, secondsBetween, taskFacts } from './task-facts.js';
export { containsWord, DECISION_WORDS, decisionWordsIn, normalizeText, wordsOf } from './words.js';
