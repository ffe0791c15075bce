import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { runLearningCycle } from '../learning/learning-cycle.js';
import { type QualityGateOptions, qualityGateOptionsSchema } from '../learning/quality-gate.js';
import { taskEpisodeRef } from '../schema/artifact.js';
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord } from '../schema/run-record.js';
import { uuidSchema } from '../schema/session-state.js';
import {
  type AddStepInput,
  addStepInputSchema,
  type CompleteTaskInput,
  type CreateTaskInput,
  completeTaskInputSchema,
  createTaskInputSchema,
  type DeleteTaskInput,
  deleteTaskInputSchema,
  TASK_MAX_STEPS,
  type TaskEpisode,
  type TaskIdInput,
  type TaskOutcome,
  type TaskStep,
  type TaskTimeline,
  type TaskTimelineInput,
  taskIdInputSchema,
  taskTimelineInputSchema,
} from '../schema/task.js';
import { TASK_COMPLETED_EVENT, TASK_STEP_EVENT } from '../schema/task-run-records.js';
import type { ArtifactStore, DeleteEpisodeReceipt } from '../store/artifact-store.js';
import type { RunStore } from '../store/run-store.js';
import { frozenJsonCopy } from '../util/json.js';
import { jsonEqual } from '../util/json-equal.js';
import { pauseAfterLostRace } from '../util/lost-race-pause.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { storeSchema } from '../validation/store-schema.js';
import { EPISODIC_SERVER_INFO } from '../version.js';
import { createKeyedQueue } from './keyed-queue.js';
import { createTaskFold, type TaskFold, timelineOf } from './task-records.js';

/** Options of `createTaskLifecycle`. */
export interface TaskLifecycleOptions {
  /** Where task episodes are recorded, as runs. */
  runs: RunStore;
  /** Where patterns and reflections are stored as artifacts, with each task's metadata. */
  artifacts: ArtifactStore;
  /**
   * The clock that stamps start, step and completion times.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Generates task episode ids; must return a UUID (lowercased when stored).
   * @default () => globalThis.crypto.randomUUID()
   */
  generateId?: () => string;
  /**
   * The quality gate: when set, a completed task keeps its patterns only if its `reward_score`
   * reaches `threshold`. Off by default.
   * @default undefined
   */
  qualityGate?: QualityGateOptions;
}

/** What `deleteTask` did. */
export interface DeleteTaskReceipt {
  /** The deleted task episode. */
  episode_id: string;
  /** Artifacts deleted because this task was their last associated episode. */
  deleted_artifacts: string[];
  /** Artifacts that lost this task's association (and metadata contribution) but remain. */
  updated_artifacts: string[];
}

/**
 * What `completeTask` answers: the completed task, and whether this call only repeated the
 * completion already stored.
 */
export interface TaskCompletion extends TaskEpisode {
  /**
   * False for the one call whose completion was stored. True when the task was already completed
   * with this same outcome (a concurrent or later identical call, or a retry after an error): the
   * task is returned as stored by the original completion (its time, reward, reflection and
   * patterns) and nothing new was recorded.
   */
  duplicate: boolean;
}

/**
 * The task episode lifecycle (seed 004) over a run store and an artifact store. Every method
 * takes the matching MCP tool's input object, validates it first (an invalid id is a
 * `VALIDATION_ERROR` before any storage access) and reports success only once everything was
 * stored.
 */
export interface TaskLifecycle {
  /** `create_episode`: starts a task episode (a new run) and returns it. */
  createTask(input: CreateTaskInput): Promise<TaskEpisode>;
  /**
   * `add_episode_step`: records one step, visible immediately. `NOT_FOUND` for an unknown task,
   * `CONFLICT` after completion or for a step number not above the last one.
   */
  addStep(input: AddStepInput): Promise<TaskStep>;
  /**
   * `complete_episode`: records the outcome and runs the learning cycle (reward, reflection,
   * patterns); returns the completed task with `duplicate: false`. Exactly one completion of a
   * task is stored and acknowledged so: a call with the same outcome, whether it raced the
   * stored one or came after it, gets the stored task with `duplicate: true`; a call with another
   * outcome gets `CONFLICT`.
   */
  completeTask(input: CompleteTaskInput): Promise<TaskCompletion>;
  /** `get_episode`: the task with its steps, outcome, reflection, reward and patterns. */
  getTask(input: TaskIdInput): Promise<TaskEpisode>;
  /**
   * `get_episode_timeline`: the steps in order (one page with `offset`/`limit`), with the duration
   * and outcome once ended.
   */
  getTimeline(input: TaskTimelineInput): Promise<TaskTimeline>;
  /**
   * `delete_episode`: deletes the task's run and its artifact associations (an artifact goes only
   * when no other episode remains). Needs `confirm: true` (`CONFIRMATION_REQUIRED`).
   */
  deleteTask(input: DeleteTaskInput): Promise<DeleteTaskReceipt>;
}

const functionSchema = <Value>() =>
  z.custom<Value>((value) => typeof value === 'function', 'must be a function');

const optionsSchema = z.strictObject({
  runs: storeSchema<RunStore>(['append', 'readAfter', 'delete'], 'a RunStore (see createRunStore)'),
  artifacts: storeSchema<ArtifactStore>(
    ['upsert', 'deleteEpisode', 'setEpisodeMetadata'],
    'an ArtifactStore (see createArtifactStore)',
  ),
  now: functionSchema<() => Date>().optional(),
  generateId: functionSchema<() => string>().optional(),
  qualityGate: qualityGateOptionsSchema.optional(),
});

/** Only the id, so an invalid id is reported first, before any other field or storage access. */
const idOnlySchema = z.looseObject({ episode_id: taskIdInputSchema.shape.episode_id });

function notFound(episodeId: string): EpisodicError {
  return new EpisodicError({
    code: 'NOT_FOUND',
    message: `Task episode ${episodeId} was not found. Check the episode_id (it is returned by create_episode), or create the task first.`,
    details: { episode_id: episodeId },
  });
}

function alreadyCompleted(task: TaskEpisode, what: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Task episode ${task.id} was already completed (${task.outcome?.type} at ${task.end_time}), so ${what} cannot be recorded. Create a new task episode to track more work.`,
    details: { episode_id: task.id, outcome_type: task.outcome?.type, end_time: task.end_time },
  });
}

function outcomeOf(input: z.output<typeof completeTaskInputSchema>): TaskOutcome {
  switch (input.outcome_type) {
    case 'success':
      return { type: 'success', verdict: input.verdict, artifacts: input.artifacts ?? [] };
    case 'partial_success':
      return {
        type: 'partial_success',
        verdict: input.verdict,
        completed: input.completed,
        failed: input.failed,
      };
    case 'failure':
      return {
        type: 'failure',
        reason: input.reason,
        ...(input.error_details === undefined ? {} : { error_details: input.error_details }),
      };
  }
}

/** How many tasks' folded state one lifecycle keeps (the least recently used is dropped). */
const VIEW_CACHE_SIZE = 256;
/** How often a step or completion re-reads and decides again after losing a race. */
const MAX_ATTEMPTS = 200;

/** What this lifecycle knows of one task: its run folded up to `position`. */
interface TaskView {
  readonly fold: TaskFold;
  position: number;
}

/** True for the `CONFLICT` of a compare-and-append that lost the race to another writer. */
function lostRace(error: unknown): boolean {
  return (
    EpisodicError.hasCode(error, 'CONFLICT') &&
    typeof (error as EpisodicError).details?.expectedPosition === 'number'
  );
}

function tooBusy(episodeId: string, attempts: number): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Task episode ${episodeId} kept changing underneath this call: ${attempts} attempts each lost the race to another writer. Nothing was recorded by this call; retry it.`,
    details: { episode_id: episodeId, attempts },
  });
}

/**
 * Creates the task lifecycle. A task episode IS a run: its id is a UUIDv4 run id and its history
 * is stored as run records (see `task-records.ts`), so it shows up in run listings and replays.
 *
 * Every step and the completion is a compare-and-append at the position this lifecycle last read:
 * when another writer (another instance, process or machine on the same store) appended first, it
 * reads only what was added (`readAfter`), decides again and retries. So step numbers increase in
 * storage order, exactly one completion wins (every other gets `CONFLICT`) and no step is stored
 * after it, for any number of writers, and each call costs the new records, not the whole run.
 * Calls on one task are also serialized within this instance.
 */
export function createTaskLifecycle(options: TaskLifecycleOptions): TaskLifecycle {
  const checked = parseInput(optionsSchema, options, 'task lifecycle options');
  const runs = options.runs;
  const artifacts = options.artifacts;
  const now = checked.now ?? (() => new Date());
  const generateId = checked.generateId ?? (() => globalThis.crypto.randomUUID());
  const qualityGate = checked.qualityGate;
  const queue = createKeyedQueue();
  const views = new Map<string, TaskView>();

  const timestamp = (): string => {
    const date = now();
    if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
      throw invalidField('task lifecycle options', 'now', date, 'must return a valid Date');
    }
    return date.toISOString();
  };

  const newId = (): string => {
    const id = generateId();
    if (!uuidSchema.safeParse(id).success) {
      throw invalidField('task lifecycle options', 'generateId', id, 'must return a UUID');
    }
    return id.toLowerCase();
  };

  const keep = (episodeId: string, view: TaskView): void => {
    views.delete(episodeId);
    views.set(episodeId, view);
    if (views.size > VIEW_CACHE_SIZE) views.delete(views.keys().next().value as string);
  };

  /**
   * The task's view, brought up to date with what was appended since it was last read (all of
   * the run the first time). `NOT_FOUND` when the run does not exist or is not a task episode.
   */
  const sync = async (episodeId: string): Promise<TaskView> => {
    let view = views.get(episodeId);
    for (;;) {
      try {
        const after = await runs.readAfter(episodeId, view?.position ?? 0);
        view ??= { fold: createTaskFold(episodeId), position: 0 };
        view.fold.apply(after.records, after.errors.length);
        view.position = after.position;
        keep(episodeId, view);
        view.fold.state();
        return view;
      } catch (error) {
        if (
          EpisodicError.hasCode(error, 'NOT_FOUND') &&
          !(error as EpisodicError).details?.episode_id
        ) {
          views.delete(episodeId);
          throw notFound(episodeId);
        }
        // Shorter than the view: the run was deleted and started again. Read it afresh.
        if (EpisodicError.hasCode(error, 'CONFLICT') && view !== undefined) {
          views.delete(episodeId);
          view = undefined;
          continue;
        }
        throw error;
      }
    }
  };

  /**
   * Appends `records` where `view` ends. True when they were stored (the view then includes
   * them), false when another writer appended first (the caller syncs and decides again).
   */
  const appendAt = async (
    episodeId: string,
    view: TaskView,
    records: RunRecord[],
  ): Promise<boolean> => {
    try {
      const receipt = await runs.append(episodeId, records, { expectedPosition: view.position });
      view.fold.apply(records);
      view.position = receipt.position as number;
      return true;
    } catch (error) {
      if (lostRace(error)) return false;
      throw error;
    }
  };

  /** Stores what a completion learned: each pattern and the reflection, as artifacts. */
  const storeLearning = async (
    episodeId: string,
    outcomeType: TaskOutcome['type'],
    learning: Pick<ReturnType<typeof runLearningCycle>, 'patterns' | 'reward' | 'reflection'>,
  ): Promise<void> => {
    const ref = taskEpisodeRef(episodeId);
    for (const pattern of learning.patterns) {
      await artifacts.upsert({
        key: pattern.key,
        kind: 'pattern',
        content: pattern,
        episodes: [ref],
      });
    }
    await artifacts.upsert({
      key: reflectionKey(episodeId),
      kind: 'reflection',
      content: {
        episode_id: episodeId,
        outcome_type: outcomeType,
        reward_score: learning.reward.reward_score,
        reflection: learning.reflection,
      },
      episodes: [ref],
    });
  };

  const episodeIdOf = (input: unknown, schema: z.ZodType, subject: string) =>
    (parseInput(schema, input, subject) as { episode_id: string }).episode_id.toLowerCase();

  return {
    async createTask(input) {
      const request = parseInput(createTaskInputSchema, input, 'create_episode input');
      const metadata =
        request.metadata === undefined
          ? undefined
          : frozenJsonCopy(request.metadata, 'create_episode input');
      const id = newId();
      const startedAt = timestamp();
      const sessionId = request.session_id?.toLowerCase();
      const context = {
        domain: request.domain,
        ...(request.language === undefined ? {} : { language: request.language }),
        ...(request.framework === undefined ? {} : { framework: request.framework }),
        complexity: request.complexity,
        tags: request.tags ?? [],
      };
      const records: RunRecord[] = [
        {
          type: 'header',
          schema_version: RUN_RECORD_SCHEMA_VERSION,
          run_id: id,
          ...(sessionId === undefined ? {} : { session_id: sessionId }),
          started_at: startedAt,
          server: { ...EPISODIC_SERVER_INFO },
        },
        {
          type: 'run.start',
          run_id: id,
          ts: startedAt,
          ...(sessionId === undefined ? {} : { session_id: sessionId }),
          input: { type: 'text', text: request.task_description },
          task: {
            task_type: request.task_type,
            context,
            ...(metadata === undefined ? {} : { metadata }),
          },
        },
        { type: 'run.status', run_id: id, ts: startedAt, status: 'running' },
      ];
      return queue.run(id, async () => {
        // The metadata first: if the run cannot be written, an unused id keeps harmless metadata;
        // the other order could leave a task nobody knows the id of.
        if (metadata !== undefined)
          await artifacts.setEpisodeMetadata(taskEpisodeRef(id), metadata);
        // At position 0: a task is created once, never over a run that exists.
        const view: TaskView = { fold: createTaskFold(id), position: 0 };
        if (!(await appendAt(id, view, records))) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `A run with the new task episode id ${id} already exists; nothing was written. Check that generateId returns fresh ids, then retry.`,
            details: { episode_id: id },
          });
        }
        keep(id, view);
        return view.fold.task().task;
      });
    },

    async addStep(input) {
      const episodeId = episodeIdOf(input, idOnlySchema, 'add_episode_step input');
      const request = parseInput(addStepInputSchema, input, 'add_episode_step input');
      const parameters =
        request.parameters === undefined
          ? undefined
          : frozenJsonCopy(request.parameters, 'add_episode_step input');
      return queue.run(episodeId, async () => {
        for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
          const view = await sync(episodeId);
          const state = view.fold.state();
          if (state.completed) {
            throw alreadyCompleted(view.fold.task(false).task, `step ${request.step_number}`);
          }
          const last = state.lastStepNumber;
          if (last !== null && request.step_number <= last) {
            throw new EpisodicError({
              code: 'CONFLICT',
              message: `Task episode ${episodeId} already has step ${last}, so step_number ${request.step_number} cannot be added; step numbers increase. Use step_number ${last + 1} or higher.`,
              details: {
                episode_id: episodeId,
                step_number: request.step_number,
                last_step_number: last,
              },
            });
          }
          if (state.stepCount >= TASK_MAX_STEPS) {
            throw invalidField(
              'add_episode_step input',
              'step_number',
              request.step_number,
              `cannot be added: task episode ${episodeId} already has ${TASK_MAX_STEPS} steps, the limit. Complete it and start a new task episode`,
            );
          }
          const ts = timestamp();
          const step: TaskStep = {
            step_number: request.step_number,
            timestamp: ts,
            tool: request.tool,
            action: request.action,
            ...(parameters === undefined ? {} : { parameters }),
            ...(request.result === undefined ? {} : { result: request.result }),
            ...(request.latency_ms === undefined ? {} : { latency_ms: request.latency_ms }),
          };
          const { timestamp: _timestamp, ...fields } = step;
          const record: RunRecord = {
            type: 'agent.event',
            run_id: episodeId,
            ts,
            seq: state.nextEventSeq,
            event: { type: TASK_STEP_EVENT, ...fields },
          };
          if (await appendAt(episodeId, view, [record])) return step;
          await pauseAfterLostRace(attempt);
        }
        throw tooBusy(episodeId, MAX_ATTEMPTS);
      });
    },

    async completeTask(input) {
      const episodeId = episodeIdOf(input, idOnlySchema, 'complete_episode input');
      const request = parseInput(completeTaskInputSchema, input, 'complete_episode input');
      const outcome = outcomeOf(request);
      return queue.run(episodeId, async () => {
        for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
          const view = await sync(episodeId);
          const { task, nextEventSeq } = view.fold.task();
          if (task.outcome !== null) {
            // Another outcome is a CONFLICT. The same outcome is answered alike whether it raced
            // the stored completion or follows it: the stored task, marked as a duplicate (never
            // a second acknowledged completion). When the stored completion's artifacts are not
            // all there yet (its writer failed after the run was written, or is storing them
            // now), this call stores them first (an upsert of the same content), so a duplicate
            // answer also means everything the completion learned is stored.
            if (
              task.reward === null ||
              task.reflection === null ||
              !jsonEqual(task.outcome, outcome)
            )
              throw alreadyCompleted(task, 'another outcome');
            if ((await artifacts.get(reflectionKey(episodeId))) === null) {
              await storeLearning(episodeId, task.outcome.type, {
                patterns: task.patterns,
                reward: task.reward,
                reflection: task.reflection,
              });
            }
            return { ...task, duplicate: true };
          }
          const endTime = timestamp();
          const learning = runLearningCycle(
            {
              task_description: task.task_description,
              task_type: task.task_type,
              context: task.context,
              steps: task.steps,
              outcome,
              start_time: task.start_time,
              end_time: endTime,
            },
            qualityGate === undefined ? undefined : { qualityGate },
          );
          const completion: RunRecord = {
            type: 'agent.event',
            run_id: episodeId,
            ts: endTime,
            seq: nextEventSeq,
            event: {
              type: TASK_COMPLETED_EVENT,
              outcome,
              reward: learning.reward,
              reflection: learning.reflection,
              patterns: learning.patterns,
              quality_gate: learning.qualityGate,
            },
          };
          const final = outcome.type === 'failure' ? outcome.reason : outcome.verdict;
          const terminal: RunRecord[] =
            outcome.type === 'failure'
              ? [
                  {
                    type: 'run.error',
                    run_id: episodeId,
                    ts: endTime,
                    error: { name: 'TaskFailure', message: outcome.reason },
                  },
                  {
                    type: 'run.status',
                    run_id: episodeId,
                    ts: endTime,
                    status: 'error',
                    message: outcome.reason,
                  },
                  { type: 'run.end', run_id: episodeId, ts: endTime, outcome: 'error', final },
                ]
              : [
                  { type: 'run.status', run_id: episodeId, ts: endTime, status: 'completed' },
                  { type: 'run.end', run_id: episodeId, ts: endTime, outcome: 'completed', final },
                ];
          // The run first: it is where the one completion is decided. The artifacts follow; if
          // storing them fails, the same completion retried stores them (see above).
          if (await appendAt(episodeId, view, [completion, ...terminal])) {
            await storeLearning(episodeId, outcome.type, learning);
            return { ...view.fold.task().task, duplicate: false };
          }
          await pauseAfterLostRace(attempt);
        }
        throw tooBusy(episodeId, MAX_ATTEMPTS);
      });
    },

    async getTask(input) {
      const episodeId = episodeIdOf(input, taskIdInputSchema, 'get_episode input');
      return queue.run(episodeId, async () => (await sync(episodeId)).fold.task().task);
    },

    async getTimeline(input) {
      const request = parseInput(taskTimelineInputSchema, input, 'get_episode_timeline input');
      const episodeId = request.episode_id.toLowerCase();
      return queue.run(episodeId, async () => {
        const { fold } = await sync(episodeId);
        const { stepCount } = fold.state();
        const offset = request.offset ?? 0;
        const steps = fold.steps(offset, request.limit ?? TASK_MAX_STEPS);
        return timelineOf(fold.task(false).task, steps, offset, stepCount);
      });
    },

    async deleteTask(input) {
      const episodeId = episodeIdOf(input, idOnlySchema, 'delete_episode input');
      if ((input as { confirm?: unknown } | null)?.confirm !== true) {
        const given = (input as { confirm?: unknown } | null)?.confirm;
        if (given !== undefined && typeof given !== 'boolean') {
          parseInput(deleteTaskInputSchema, input, 'delete_episode input');
        }
        throw new EpisodicError({
          code: 'CONFIRMATION_REQUIRED',
          message: `Deleting task episode ${episodeId} is permanent and needs confirm: true. Call delete_episode again with "confirm": true to delete it; nothing was deleted.`,
          details: { episode_id: episodeId },
        });
      }
      parseInput(deleteTaskInputSchema, input, 'delete_episode input');
      return queue.run(episodeId, async () => {
        await sync(episodeId);
        // Associations first: if deleting the run fails, a retry finds the task and finishes;
        // the other order could leave associations to a task that no longer exists.
        const receipt: DeleteEpisodeReceipt = await artifacts.deleteEpisode(
          taskEpisodeRef(episodeId),
        );
        const deleted = await runs.delete(episodeId);
        views.delete(episodeId);
        if (!deleted) throw notFound(episodeId);
        return {
          episode_id: episodeId,
          deleted_artifacts: receipt.deletedArtifacts,
          updated_artifacts: receipt.updatedArtifacts,
        };
      });
    },
  };
}

/** The key of a task's reflection artifact. */
function reflectionKey(episodeId: string): string {
  return `reflection:${episodeId}`;
}
