import * as z from 'zod';
import { metadataSchema } from './metadata.js';
import {
  TASK_TYPES,
  taskContextSchema,
  taskOutcomeSchema,
  taskPatternSchema,
  taskQualityGateSchema,
  taskReflectionSchema,
  taskRewardSchema,
  taskStepResultSchema,
} from './task.js';

/**
 * How a task episode is stored as a run (seed 001 records), so it shows up in run listings and
 * replays like any other run:
 *
 * - `header`: the run header (`started_at` = the task's start, `session_id` when given);
 * - `run.start`: `input.text` is the task description, and a `task` field carries the task type,
 *   the context and the metadata;
 * - `run.status: running`;
 * - one `agent.event` per step, `event: { type: 'task_step', step_number, tool, action,
 *   parameters?, result?, latency_ms? }` (the record's `ts` is the step's timestamp);
 * - on completion, `agent.event` `{ type: 'task_completed', outcome, reward, reflection, patterns,
 *   quality_gate }`, then the terminal records: `run.status: completed` + `run.end: completed`
 *   for a success or partial success, `run.error` (`TaskFailure`) + `run.status: error` +
 *   `run.end: error` for a failure.
 */

/** The `agent.event` type of a step. */
export const TASK_STEP_EVENT = 'task_step';
/** The `agent.event` type of the completion. */
export const TASK_COMPLETED_EVENT = 'task_completed';

/** The `task` field of a task's `run.start` record. */
export const runStartTaskSchema = z.looseObject({
  task_type: z.enum(TASK_TYPES),
  context: taskContextSchema,
  metadata: metadataSchema.optional(),
});

/** The `event` of a step's `agent.event` record. */
export const taskStepEventSchema = z.looseObject({
  type: z.literal(TASK_STEP_EVENT),
  step_number: z.number().int().min(1),
  tool: z.string(),
  action: z.string(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  result: taskStepResultSchema.optional(),
  latency_ms: z.number().int().nonnegative().optional(),
});

/** The `event` of a completion's `agent.event` record. */
export const taskCompletedEventSchema = z.looseObject({
  type: z.literal(TASK_COMPLETED_EVENT),
  outcome: taskOutcomeSchema,
  reward: taskRewardSchema,
  reflection: taskReflectionSchema,
  patterns: z.array(taskPatternSchema),
  quality_gate: taskQualityGateSchema.nullable(),
});
