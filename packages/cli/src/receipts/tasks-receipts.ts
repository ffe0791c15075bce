import { taskEpisodeSchema, taskStepSchema, taskTimelineSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

/** The scope the task episodes belong to (`--scope`, `$EPISODIC_SCOPE`, else `default`). */
const scope = z.string();

/** `tasks create --json`. */
export const tasksCreateReceiptSchema = successReceiptSchema('episodic.tasks.create.v1', {
  scope,
  task: taskEpisodeSchema,
});

/** `tasks step --json`. */
export const tasksStepReceiptSchema = successReceiptSchema('episodic.tasks.step.v1', {
  scope,
  episode_id: z.string(),
  step: taskStepSchema,
});

/** `tasks complete --json`: the task with its outcome, reward, reflection and patterns. */
export const tasksCompleteReceiptSchema = successReceiptSchema('episodic.tasks.complete.v1', {
  scope,
  task: taskEpisodeSchema,
  /**
   * True when the task was already completed with this same outcome (a repeated or concurrent
   * call): `task` is the stored completion and nothing new was recorded. Absent in receipts of
   * versions before it was added.
   */
  duplicate: z.boolean().optional(),
});

/** `tasks show --json`. */
export const tasksShowReceiptSchema = successReceiptSchema('episodic.tasks.show.v1', {
  scope,
  task: taskEpisodeSchema,
});

/** `tasks timeline --json`. */
export const tasksTimelineReceiptSchema = successReceiptSchema('episodic.tasks.timeline.v1', {
  scope,
  timeline: taskTimelineSchema,
});

/** `tasks delete --json`. */
export const tasksDeleteReceiptSchema = successReceiptSchema('episodic.tasks.delete.v1', {
  scope,
  episode_id: z.string(),
  /** Artifacts deleted because this task was their last episode. */
  deleted_artifacts: z.array(z.string()),
  /** Artifacts that lost this task's association but remain. */
  updated_artifacts: z.array(z.string()),
});

/** `tasks list --json`: the scope's task episodes, newest first. */
export const tasksListReceiptSchema = successReceiptSchema('episodic.tasks.list.v1', {
  scope,
  store: z.enum(['sqlite', 'fs']),
  filters: z.object({
    outcomes: z.array(z.string()),
    from: z.string().nullable(),
    to: z.string().nullable(),
    session_id: z.string().nullable(),
    limit: z.number().int().positive(),
  }),
  count: z.number().int().nonnegative(),
  tasks: z.array(
    z.object({
      episode_id: z.string(),
      task_description: z.string(),
      task_type: z.string(),
      domain: z.string(),
      session_id: z.string().nullable(),
      start_time: z.string(),
      end_time: z.string().nullable(),
      steps: z.number().int().nonnegative(),
      /** `success`, `partial_success` or `failure`; null while open. */
      outcome: z.string().nullable(),
      reward_score: z.number().nullable(),
      patterns: z.number().int().nonnegative(),
    }),
  ),
  /** For a person: where it looked when it found nothing, and what else the home holds. */
  notes: z.array(z.string()),
});
