import type * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { secondsBetween } from '../learning/task-facts.js';
import type { RunRecord } from '../schema/run-record.js';
import type { TaskEpisode, TaskStep, TaskTimeline } from '../schema/task.js';
import {
  runStartTaskSchema,
  TASK_COMPLETED_EVENT,
  TASK_STEP_EVENT,
  taskCompletedEventSchema,
  taskStepEventSchema,
} from '../schema/task-run-records.js';
import type { RunReadResult } from '../store/run-store.js';

// How a task episode is stored as a run: `../schema/task-run-records.ts`.

/** A task episode as read back from its run, plus the bookkeeping the lifecycle needs. */
export interface StoredTask {
  task: TaskEpisode;
  /** The next `agent.event` seq of the run. */
  nextEventSeq: number;
}

function notATask(runId: string): EpisodicError {
  return new EpisodicError({
    code: 'NOT_FOUND',
    message: `Task episode ${runId} was not found: run ${runId} exists but is not a task episode. Use the episode_id returned by create_episode.`,
    details: { episode_id: runId },
  });
}

function notYetWritten(runId: string): EpisodicError {
  return new EpisodicError({
    code: 'NOT_FOUND',
    message: `Task episode ${runId} was not found: run ${runId} has no records yet (another process is creating it, or its creation stopped before the first write). Retry once create_episode has returned.`,
    details: { episode_id: runId, records: 0 },
  });
}

/** What a task fold knows without copying its steps: enough to decide the next step or completion. */
export interface TaskFoldState {
  readonly stepCount: number;
  /** The step number of the last step stored, or null before the first. */
  readonly lastStepNumber: number | null;
  /** True once the completion was read. */
  readonly completed: boolean;
  /** The next `agent.event` seq of the run. */
  readonly nextEventSeq: number;
}

/**
 * A task episode folded from its run's records as they are read, so a caller that keeps the fold
 * reads only what was appended since (`RunStore.readAfter`). Tolerant like every run reader:
 * damaged lines were reported by the store and only counted here, as are step events that do not
 * parse; steps after the completion are ignored.
 */
export interface TaskFold {
  readonly runId: string;
  /** Folds the next records (and counts the damaged lines met with them). */
  apply(records: readonly RunRecord[], damagedLines?: number): void;
  /**
   * The state so far. `NOT_FOUND` when the run is not a task episode (it has no task
   * `run.start`) or has no records yet; `CORRUPT_DATA` when the record that starts it is damaged.
   */
  state(): TaskFoldState;
  /**
   * The task episode so far (with the same errors as `state`). With `withSteps` false its `steps`
   * are left empty, so nothing is copied (read them with `steps()`).
   */
  task(withSteps?: boolean): StoredTask;
  /** Steps `offset` to `offset + limit` (storage order) without copying the others. */
  steps(offset: number, limit: number): readonly TaskStep[];
}

/** Creates an empty fold for the task episode stored as run `runId`. */
export function createTaskFold(runId: string): TaskFold {
  let sawFirst = false;
  let header = false;
  let headerSessionId: string | undefined;
  let damaged = 0;
  let start: RunRecord | undefined;
  let task: z.infer<typeof runStartTaskSchema> | undefined;
  const steps: TaskStep[] = [];
  let completed: { ts: string; event: z.infer<typeof taskCompletedEventSchema> } | undefined;
  let nextEventSeq = 0;

  const check = () => {
    if (start === undefined) {
      // An empty run is one whose creation has not written its header yet (or never will): not
      // there yet, rather than damaged.
      if (!sawFirst && damaged === 0) throw notYetWritten(runId);
      if (!header || damaged > 0) {
        throw new EpisodicError({
          code: 'CORRUPT_DATA',
          message: `Task episode ${runId} cannot be read: the record that starts it is damaged (${damaged} damaged line(s)). Inspect the run with "episodic runs show ${runId}".`,
          details: { episode_id: runId, damaged_lines: damaged },
        });
      }
      throw notATask(runId);
    }
    if (task === undefined) throw notATask(runId);
    return { start, task };
  };

  return {
    runId,
    apply(records, damagedLines = 0) {
      damaged += damagedLines;
      for (const record of records) {
        if (!sawFirst) {
          sawFirst = true;
          header = record.type === 'header';
          const session = (record as { session_id?: unknown }).session_id;
          if (header && typeof session === 'string') headerSessionId = session;
        }
        if (record.type === 'run.start' && start === undefined) {
          start = record;
          const parsed = runStartTaskSchema.safeParse((record as { task?: unknown }).task);
          if (parsed.success) task = parsed.data;
          continue;
        }
        if (record.type !== 'agent.event') continue;
        const { seq, ts, event } = record as { seq?: unknown; ts?: unknown; event?: unknown };
        if (typeof seq === 'number' && Number.isInteger(seq) && seq >= nextEventSeq) {
          nextEventSeq = seq + 1;
        }
        if (typeof ts !== 'string') continue;
        const type = (event as { type?: unknown } | null)?.type;
        if (type === TASK_STEP_EVENT && completed === undefined) {
          const parsed = taskStepEventSchema.safeParse(event);
          if (!parsed.success) continue;
          const { type: _type, ...fields } = parsed.data;
          steps.push({
            step_number: fields.step_number,
            timestamp: ts,
            tool: fields.tool,
            action: fields.action,
            ...(fields.parameters === undefined ? {} : { parameters: fields.parameters }),
            ...(fields.result === undefined ? {} : { result: fields.result }),
            ...(fields.latency_ms === undefined ? {} : { latency_ms: fields.latency_ms }),
          });
        } else if (type === TASK_COMPLETED_EVENT && completed === undefined) {
          const parsed = taskCompletedEventSchema.safeParse(event);
          if (parsed.success) completed = { ts, event: parsed.data };
        }
      }
    },
    state() {
      check();
      return {
        stepCount: steps.length,
        lastStepNumber: steps.at(-1)?.step_number ?? null,
        completed: completed !== undefined,
        nextEventSeq,
      };
    },
    task(withSteps = true) {
      const { start: first, task: stored } = check();
      const startRecord = first as {
        ts: string;
        input?: { text?: unknown };
        session_id?: unknown;
      };
      const description = typeof startRecord.input?.text === 'string' ? startRecord.input.text : '';
      const sessionId =
        typeof startRecord.session_id === 'string' ? startRecord.session_id : headerSessionId;
      return {
        nextEventSeq,
        task: {
          id: runId,
          task_description: description,
          task_type: stored.task_type,
          context: stored.context,
          ...(stored.metadata === undefined ? {} : { metadata: stored.metadata }),
          ...(sessionId === undefined ? {} : { session_id: sessionId }),
          start_time: startRecord.ts,
          end_time: completed?.ts ?? null,
          steps: withSteps ? steps.slice() : [],
          outcome: completed?.event.outcome ?? null,
          reflection: completed?.event.reflection ?? null,
          reward: completed?.event.reward ?? null,
          reward_score: completed?.event.reward.reward_score ?? null,
          patterns: completed?.event.patterns ?? [],
          quality_gate: completed?.event.quality_gate ?? null,
        },
      };
    },
    steps(offset, limit) {
      check();
      return steps.slice(offset, offset + limit);
    },
  };
}

/**
 * Rebuilds a task episode from a whole run (see `createTaskFold`). A run without a task
 * `run.start` is `NOT_FOUND` (it is not a task episode, or has no records yet); a task whose `run.start` is unreadable is
 * `CORRUPT_DATA`.
 */
export function taskFromRun(read: RunReadResult): StoredTask {
  const fold = createTaskFold(read.runId);
  fold.apply(read.records, read.errors.length);
  return fold.task();
}

/**
 * The timeline of a task episode: `steps` (the page starting at step `offset` of `stepCount`, all
 * of them by default) in order, and the duration and outcome once ended.
 */
export function timelineOf(
  task: TaskEpisode,
  steps: readonly TaskStep[] = task.steps,
  offset = 0,
  stepCount = task.steps.length,
): TaskTimeline {
  const end = offset + steps.length;
  return {
    episode_id: task.id,
    task_description: task.task_description,
    start_time: task.start_time,
    end_time: task.end_time,
    duration_seconds:
      task.end_time === null ? null : secondsBetween(task.start_time, task.end_time),
    step_count: stepCount,
    outcome: task.outcome?.type ?? null,
    timeline: steps.map((step) => ({
      step_number: step.step_number,
      timestamp: step.timestamp,
      tool: step.tool,
      action: step.action,
      result_type: step.result?.type ?? 'pending',
      latency_ms: step.latency_ms ?? null,
    })),
    next_offset: end < stepCount ? end : null,
  };
}
