import type { TaskReflection, TaskReward, TaskStep } from '../schema/task.js';
import { type CompletedTask, isFailedStep, taskFacts } from './task-facts.js';
import { decisionWordsIn } from './words.js';

/** How many failed steps and recoveries the reflection names one by one. */
const LISTED_STEPS = 5;
/** How many items of a list (artifacts, completed, failed) a sentence names. */
const LISTED_ITEMS = 10;

function list(items: readonly string[]): string {
  const shown = items.slice(0, LISTED_ITEMS).join(', ');
  return items.length > LISTED_ITEMS ? `${shown} and ${items.length - LISTED_ITEMS} more` : shown;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

function seconds(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

const failure = (step: TaskStep) => (step.result?.type === 'timeout' ? 'timeout' : 'error');

/**
 * A rule-based reflection on a completed task. Each list is built by fixed rules in a fixed order
 * (and steps in step order), so the same task always gets the same reflection:
 *
 * - successes: the outcome (verdict, completed items), the artifacts produced, how many steps
 *   succeeded, each recovery from a failed step, a quick finish;
 * - improvements: the failure (reason, details) or the items not completed, each failed or
 *   timed-out step, steps without a result, no steps at all, many steps, a long duration, a tool
 *   run three or more times in a row;
 * - insights: the task summary with its reward score, the tool sequence, the most used tool,
 *   the decision points, which tool resolved which tool's errors, the step latency.
 */
export function reflectOnTask(task: CompletedTask, reward: TaskReward): TaskReflection {
  const facts = taskFacts(task);
  const { outcome, steps } = task;
  const successes: string[] = [];
  const improvements: string[] = [];
  const insights: string[] = [];

  // Successes.
  if (outcome.type === 'success') {
    successes.push(`Completed the task: ${clip(outcome.verdict, 300)}`);
    if (outcome.artifacts.length > 0) {
      successes.push(
        `Produced ${plural(outcome.artifacts.length, 'artifact')}: ${list(outcome.artifacts)}`,
      );
    }
  } else if (outcome.type === 'partial_success') {
    successes.push(`Partially completed the task: ${clip(outcome.verdict, 300)}`);
    if (outcome.completed.length > 0) successes.push(`Completed: ${list(outcome.completed)}`);
  }
  if (facts.stepCount > 0 && facts.successCount === facts.stepCount) {
    successes.push(`All ${plural(facts.stepCount, 'step')} succeeded`);
  } else if (facts.successCount > 0) {
    successes.push(`${facts.successCount} of ${plural(facts.stepCount, 'step')} succeeded`);
  }
  for (const { failed, recovered } of facts.recoveries.slice(0, LISTED_STEPS)) {
    successes.push(
      `Recovered from the ${failure(failed)} in step ${failed.step_number} (${failed.tool}) with step ${recovered.step_number} (${recovered.tool})`,
    );
  }
  if (
    outcome.type !== 'failure' &&
    facts.stepCount > 0 &&
    facts.stepCount <= 10 &&
    facts.durationSeconds < 60
  ) {
    successes.push(
      `Finished in ${seconds(facts.durationSeconds)} s with ${plural(facts.stepCount, 'step')}`,
    );
  }

  // Improvements.
  if (outcome.type === 'failure') {
    improvements.push(`The task failed: ${clip(outcome.reason, 300)}`);
    if (outcome.error_details !== undefined) {
      improvements.push(`Error details: ${clip(outcome.error_details, 300)}`);
    }
  } else if (outcome.type === 'partial_success' && outcome.failed.length > 0) {
    improvements.push(`Not completed: ${list(outcome.failed)}`);
  }
  const failedSteps = steps.filter(isFailedStep);
  for (const step of failedSteps.slice(0, LISTED_STEPS)) {
    improvements.push(
      step.result?.type === 'error'
        ? `Step ${step.step_number} (${step.tool}) failed: ${clip(step.result.message, 200)}`
        : `Step ${step.step_number} (${step.tool}) timed out`,
    );
  }
  if (failedSteps.length > LISTED_STEPS) {
    improvements.push(`${failedSteps.length - LISTED_STEPS} more steps failed or timed out`);
  }
  if (facts.pendingCount > 0) {
    improvements.push(
      `${plural(facts.pendingCount, 'step')} had no recorded result; record each step's result`,
    );
  }
  if (facts.stepCount === 0) {
    improvements.push('No steps were recorded; log each step to learn from the task');
  }
  if (facts.stepCount > 20) {
    improvements.push(`Used ${facts.stepCount} steps; look for a shorter path`);
  }
  if (facts.durationSeconds > 600) {
    const slowest = steps.reduce<TaskStep | undefined>(
      (current, step) =>
        step.latency_ms !== undefined && step.latency_ms > (current?.latency_ms ?? -1)
          ? step
          : current,
      undefined,
    );
    improvements.push(
      slowest === undefined
        ? `Took ${seconds(facts.durationSeconds)} s; look for the slowest steps`
        : `Took ${seconds(facts.durationSeconds)} s; the slowest step was ${slowest.step_number} (${slowest.tool}, ${slowest.latency_ms} ms)`,
    );
  }
  for (let start = 0; start < steps.length; ) {
    let end = start;
    while (end + 1 < steps.length && steps[end + 1]?.tool === steps[start]?.tool) end++;
    const run = end - start + 1;
    if (run >= 3) {
      const first = steps[start] as TaskStep;
      const last = steps[end] as TaskStep;
      improvements.push(
        `${first.tool} ran ${run} times in a row (steps ${first.step_number}–${last.step_number}); check whether it was retried blindly`,
      );
    }
    start = end + 1;
  }

  // Insights.
  const context = task.context;
  insights.push(
    `${task.task_type} task in ${context.domain} (${context.complexity}) ended in ${outcome.type} with reward_score ${reward.reward_score.toFixed(2)}`,
  );
  if (steps.length >= 2) {
    const tools = steps.slice(0, 10).map((step) => step.tool);
    insights.push(`Tool sequence: ${tools.join(' → ')}${steps.length > 10 ? ' → …' : ''}`);
  }
  if (steps.length >= 3) {
    const counts = new Map<string, number>();
    for (const step of steps) counts.set(step.tool, (counts.get(step.tool) ?? 0) + 1);
    let best: [string, number] | undefined;
    for (const entry of counts) if (best === undefined || entry[1] > best[1]) best = entry;
    if (best !== undefined && best[1] >= 2) {
      insights.push(`Most used tool: ${best[0]} (${best[1]} of ${steps.length} steps)`);
    }
  }
  const decisions = steps.filter((step) => decisionWordsIn(step.action).length > 0);
  if (decisions.length > 0) {
    const named = decisions
      .slice(0, LISTED_STEPS)
      .map((step) => `step ${step.step_number} (${step.tool})`)
      .join(', ');
    insights.push(`Decision points: ${named}`);
  }
  const resolved = new Set<string>();
  for (const { failed, recovered } of facts.recoveries) {
    const sentence = `${failed.tool} ${failure(failed)}s were resolved by ${recovered.tool}`;
    if (!resolved.has(sentence)) {
      resolved.add(sentence);
      insights.push(sentence);
    }
  }
  const latencies = steps.flatMap((step) =>
    step.latency_ms === undefined ? [] : [step.latency_ms],
  );
  if (latencies.length > 0) {
    const sum = latencies.reduce((total, value) => total + value, 0);
    insights.push(
      `Step latency: ${sum} ms in total, ${Math.round(sum / latencies.length)} ms on average over ${plural(latencies.length, 'step')}`,
    );
  }

  return { successes, improvements, insights };
}
