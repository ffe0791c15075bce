import type { TaskPattern, TaskStep } from '../schema/task.js';
import { contentKey } from './content-key.js';
import { type CompletedTask, isSuccessfulStep, taskFacts } from './task-facts.js';
import { decisionWordsIn, normalizeText } from './words.js';

/** The most tools a tool-sequence pattern keeps (the first steps of the task). */
export const TOOL_SEQUENCE_MAX_TOOLS = 10;
/** The longest normalized error kept in an error-recovery pattern, in characters. */
const ERROR_SIGNATURE_MAX = 200;

/**
 * The error of a failed step as a signature that survives small variations: lowercased, whitespace
 * collapsed, every run of digits replaced by `#` ("timeout after 30s" and "timeout after 31s" are
 * one signature). A timed-out step's signature is `timeout`.
 */
export function errorSignature(step: TaskStep): string {
  if (step.result?.type !== 'error') return 'timeout';
  const signature = normalizeText(step.result.message.replace(/\p{Nd}+/gu, '#'));
  return signature.slice(0, ERROR_SIGNATURE_MAX);
}

function toolSequence(task: CompletedTask): TaskPattern[] {
  if (task.steps.length < 2) return [];
  const tools = task.steps.slice(0, TOOL_SEQUENCE_MAX_TOOLS).map((step) => step.tool);
  return [{ type: 'tool_sequence', key: contentKey('tool_sequence', [tools]), tools }];
}

function decisionPoints(task: CompletedTask): TaskPattern[] {
  const patterns: TaskPattern[] = [];
  for (const step of task.steps) {
    const decision_words = decisionWordsIn(step.action);
    if (decision_words.length === 0) continue;
    const condition = normalizeText(step.action);
    patterns.push({
      type: 'decision_point',
      key: contentKey('decision_point', [step.tool, condition]),
      tool: step.tool,
      condition,
      decision_words,
    });
  }
  return patterns;
}

function errorRecoveries(task: CompletedTask): TaskPattern[] {
  return taskFacts(task).recoveries.map(({ failed, recovered }) => {
    const error = errorSignature(failed);
    const recovery_action = normalizeText(recovered.action);
    return {
      type: 'error_recovery',
      key: contentKey('error_recovery', [failed.tool, error, recovered.tool, recovery_action]),
      failed_tool: failed.tool,
      error,
      recovery_tool: recovered.tool,
      recovery_action,
    };
  });
}

function contextPattern(task: CompletedTask): TaskPattern[] {
  const recommended_tools: string[] = [];
  for (const step of task.steps) {
    if (isSuccessfulStep(step) && !recommended_tools.includes(step.tool)) {
      recommended_tools.push(step.tool);
    }
  }
  if (recommended_tools.length === 0) return [];
  const { context } = task;
  const context_features = [
    `task_type:${task.task_type}`,
    `domain:${context.domain}`,
    ...(context.language === undefined ? [] : [`language:${context.language}`]),
    ...(context.framework === undefined ? [] : [`framework:${context.framework}`]),
    `complexity:${context.complexity}`,
    ...[...new Set(context.tags)].sort().map((tag) => `tag:${tag}`),
  ];
  return [
    {
      type: 'context',
      key: contentKey('context', [context_features, recommended_tools]),
      context_features,
      recommended_tools,
    },
  ];
}

/**
 * The patterns of a completed task, in a stable order: the tool sequence, decision points (step
 * order), error recoveries (step order), the context pattern. Each key is derived from the
 * pattern's content only, so the same pattern in two tasks has one key; duplicates within the task
 * are dropped. Patterns are learned from what worked: a task that failed yields none (its lessons
 * are in the reflection's improvements).
 *
 * - tool sequence: the tools of the first 10 steps, when there are at least 2 steps;
 * - decision point: a step whose action contains a decision word as a whole word ("Check if the
 *   cache is warm"; "Modify config" has none: "modify" is not the word "if");
 * - error recovery: a step that failed (error or timeout) directly followed by a successful step;
 * - context: the task's context features and the tools of its successful steps.
 */
export function extractPatterns(task: CompletedTask): TaskPattern[] {
  if (task.outcome.type === 'failure') return [];
  const patterns = [
    ...toolSequence(task),
    ...decisionPoints(task),
    ...errorRecoveries(task),
    ...contextPattern(task),
  ];
  const seen = new Set<string>();
  return patterns.filter((pattern) => {
    if (seen.has(pattern.key)) return false;
    seen.add(pattern.key);
    return true;
  });
}
