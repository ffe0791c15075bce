import {
  type AccessPolicy,
  type AddStepInput,
  type CompleteTaskInput,
  type DeleteTaskInput,
  EpisodicError,
  type TaskIdInput,
  type TaskTimelineInput,
} from '@episodic/core';
import type { CreateTaskRequest } from '@episodic/core/schemas';
import { allowedByPolicy, type ToolContext, type ToolHandler } from './tool-context.js';

function describePolicy(policy: AccessPolicy): string {
  return Object.entries(policy.required)
    .map(([key, allowed]) =>
      Array.isArray(allowed)
        ? `${key} one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`
        : `${key} = ${JSON.stringify(allowed)}`,
    )
    .join('; ');
}

async function createEpisode(args: CreateTaskRequest, context: ToolContext) {
  if (context.policy !== undefined && !allowedByPolicy(context, args.metadata)) {
    // A caller must not create what it could not read back.
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid create_episode arguments: metadata must satisfy this connection's access policy (${describePolicy(context.policy)}). Set those metadata values and call again; nothing was created.`,
    });
  }
  const task = await context.lifecycle.createTask(args);
  return {
    success: true,
    episode_id: task.id,
    task_description: task.task_description,
    domain: task.context.domain,
    task_type: task.task_type,
    complexity: task.context.complexity,
    start_time: task.start_time,
    message: 'Episode created successfully',
  };
}

async function addEpisodeStep(args: AddStepInput, context: ToolContext) {
  const step = await context.lifecycle.addStep(args);
  return {
    success: true,
    episode_id: args.episode_id.toLowerCase(),
    step_number: step.step_number,
    timestamp: step.timestamp,
    message: 'Step added successfully',
  };
}

async function completeEpisode(args: CompleteTaskInput, context: ToolContext) {
  const task = await context.lifecycle.completeTask(args);
  return {
    success: true,
    episode_id: task.id,
    outcome_type: task.outcome?.type ?? args.outcome_type,
    reward_score: task.reward_score,
    patterns_extracted: task.patterns.length,
    ...(task.quality_gate === null ? {} : { quality_gate: task.quality_gate }),
    duplicate: task.duplicate,
    message: task.duplicate
      ? `Episode was already completed with this same outcome at ${task.end_time}; this is that completion's result (duplicate: true). Nothing new was recorded.`
      : 'Episode completed successfully. Learning cycle triggered (reward, reflection, patterns).',
  };
}

async function getEpisode(args: TaskIdInput, context: ToolContext) {
  return { success: true, episode: await context.lifecycle.getTask(args) };
}

async function getEpisodeTimeline(args: TaskTimelineInput, context: ToolContext) {
  return { success: true, ...(await context.lifecycle.getTimeline(args)) };
}

async function deleteEpisode(args: DeleteTaskInput, context: ToolContext) {
  const receipt = await context.lifecycle.deleteTask(args);
  return {
    success: true,
    episode_id: receipt.episode_id,
    deleted_artifacts: receipt.deleted_artifacts,
    updated_artifacts: receipt.updated_artifacts,
    message: 'Episode deleted permanently',
  };
}

/** The six seed 004 tools, over the scoped task lifecycle. */
export const lifecycleHandlers = {
  create_episode: createEpisode as ToolHandler,
  add_episode_step: addEpisodeStep as ToolHandler,
  complete_episode: completeEpisode as ToolHandler,
  get_episode: getEpisode as ToolHandler,
  get_episode_timeline: getEpisodeTimeline as ToolHandler,
  delete_episode: deleteEpisode as ToolHandler,
};
