import type {
  TaskComplexity,
  TaskContext,
  TaskOutcome,
  TaskStep,
  TaskType,
} from '../schema/task.js';

/** What the learning cycle reads: a completed task episode. */
export interface CompletedTask {
  /** The task description. */
  task_description: string;
  /** The kind of task. */
  task_type: TaskType;
  /** Domain, language, framework, complexity and tags. */
  context: TaskContext;
  /** The recorded steps, in step order. */
  steps: readonly TaskStep[];
  /** How the task ended. */
  outcome: TaskOutcome;
  /** When the task was created (ISO-8601). */
  start_time: string;
  /** When the task was completed (ISO-8601, from the injected clock). */
  end_time: string;
}

/** A failed or timed-out step directly followed by a successful one. */
export interface Recovery {
  failed: TaskStep;
  recovered: TaskStep;
}

/** Facts about a completed task that several rules share. Pure and deterministic. */
export interface TaskFacts {
  stepCount: number;
  successCount: number;
  errorCount: number;
  timeoutCount: number;
  pendingCount: number;
  /** Seconds from start to completion (0 when the clock went backwards or a time is unreadable). */
  durationSeconds: number;
  distinctTools: string[];
  recoveries: Recovery[];
  complexity: TaskComplexity;
}

const resultType = (step: TaskStep) => step.result?.type ?? 'pending';

/** True for a step whose result is `error` or `timeout`. */
export function isFailedStep(step: TaskStep): boolean {
  const type = resultType(step);
  return type === 'error' || type === 'timeout';
}

/** True for a step whose result is `success`. */
export function isSuccessfulStep(step: TaskStep): boolean {
  return resultType(step) === 'success';
}

/** Seconds between two ISO timestamps; 0 when either is unreadable or the order is reversed. */
export function secondsBetween(start: string, end: string): number {
  const from = Date.parse(start);
  const to = Date.parse(end);
  if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) return 0;
  return (to - from) / 1000;
}

/** Derives the shared facts of `task`. */
export function taskFacts(task: CompletedTask): TaskFacts {
  let successCount = 0;
  let errorCount = 0;
  let timeoutCount = 0;
  let pendingCount = 0;
  const distinctTools: string[] = [];
  const seenTools = new Set<string>();
  const recoveries: Recovery[] = [];
  task.steps.forEach((step, index) => {
    const type = resultType(step);
    if (type === 'success') successCount++;
    else if (type === 'error') errorCount++;
    else if (type === 'timeout') timeoutCount++;
    else pendingCount++;
    if (!seenTools.has(step.tool)) {
      seenTools.add(step.tool);
      distinctTools.push(step.tool);
    }
    const next = task.steps[index + 1];
    if (next !== undefined && isFailedStep(step) && isSuccessfulStep(next)) {
      recoveries.push({ failed: step, recovered: next });
    }
  });
  return {
    stepCount: task.steps.length,
    successCount,
    errorCount,
    timeoutCount,
    pendingCount,
    durationSeconds: secondsBetween(task.start_time, task.end_time),
    distinctTools,
    recoveries,
    complexity: task.context.complexity,
  };
}
