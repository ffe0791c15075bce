import {
  type ArtifactStore,
  type RunStore,
  type TaskPattern,
  taskFromRun,
  timelineOf,
} from '@episodic/core';
import { taskEpisodeRef } from '@episodic/core/schemas';
import * as z from 'zod';
import type { PatternView, TaskListResponse, TaskViewResponse } from './api-types.js';
import { limitParam, parseQuery } from './query-params.js';

/** One line for a pattern (stored as an artifact's content). */
export function describePattern(content: unknown): { type: string | null; description: string } {
  if (typeof content !== 'object' || content === null)
    return { type: null, description: JSON.stringify(content) };
  const pattern = content as Partial<Record<string, unknown>> & { type?: unknown };
  switch (pattern.type as TaskPattern['type']) {
    case 'tool_sequence':
      return {
        type: 'tool_sequence',
        description: ((pattern.tools as string[]) ?? []).join(' → '),
      };
    case 'decision_point':
      return {
        type: 'decision_point',
        description: `${String(pattern.tool)} decides when "${String(pattern.condition)}"`,
      };
    case 'error_recovery':
      return {
        type: 'error_recovery',
        description: `${String(pattern.failed_tool)} failed ("${String(pattern.error)}"), ${String(pattern.recovery_tool)} recovered`,
      };
    case 'context':
      return {
        type: 'context',
        description: ((pattern.context_features as string[]) ?? []).join(', '),
      };
    default:
      return {
        type: typeof pattern.type === 'string' ? pattern.type : null,
        description: JSON.stringify(content),
      };
  }
}

/** How many patterns the task view lists. */
const MAX_PATTERNS = 100;

/**
 * `GET /api/tasks/:id`: a task episode read from its run (core's `taskFromRun`): steps with their
 * latency, the outcome, the reward and its factors, the reflection, and the patterns learned from
 * it with their provenance (every task episode each pattern is associated with).
 */
export async function taskView(
  deps: { runs: RunStore; artifacts: ArtifactStore },
  rawId: string,
): Promise<TaskViewResponse> {
  const id = await deps.runs.resolveRunId(rawId, { kind: 'task', subject: 'task episode id' });
  const run = await deps.runs.read(id);
  const { task } = taskFromRun(run);
  const timeline = timelineOf(task);
  const header = run.header as Record<string, unknown> | null;
  const page = await deps.artifacts.list({
    episode: taskEpisodeRef(id),
    kind: 'pattern',
    limit: MAX_PATTERNS,
  });
  const patterns: PatternView[] = page.artifacts.map((artifact) => ({
    key: artifact.key,
    ...describePattern(artifact.content),
    episodes: artifact.episodes,
    effective_metadata: artifact.effectiveMetadata,
  }));
  const outcome = task.outcome;
  const reward = task.reward;
  return {
    episode_id: task.id,
    scope: typeof header?.scope === 'string' ? header.scope : null,
    session_id: task.session_id ?? null,
    description: task.task_description,
    task_type: task.task_type,
    context: task.context as Record<string, unknown>,
    start_time: task.start_time,
    end_time: task.end_time,
    duration_seconds: timeline.duration_seconds,
    outcome:
      outcome === null
        ? null
        : { type: outcome.type, text: 'verdict' in outcome ? outcome.verdict : outcome.reason },
    reward:
      reward === null
        ? null
        : {
            score: reward.reward_score,
            total: reward.total,
            factors: [
              { name: 'base (outcome)', value: reward.base, role: 'base' },
              { name: 'efficiency', value: reward.efficiency, role: 'multiplier' },
              { name: 'complexity', value: reward.complexity_bonus, role: 'multiplier' },
              { name: 'quality', value: reward.quality_multiplier, role: 'multiplier' },
              { name: 'learning', value: reward.learning_bonus, role: 'bonus' },
            ],
          },
    reflection: task.reflection,
    steps: timeline.timeline.map((entry, index) => {
      const result = task.steps[index]?.result as Record<string, unknown> | undefined;
      const detail =
        typeof result?.message === 'string'
          ? result.message
          : typeof result?.output === 'string'
            ? result.output
            : null;
      return {
        step_number: entry.step_number,
        timestamp: entry.timestamp,
        tool: entry.tool,
        action: entry.action,
        result_type: entry.result_type,
        latency_ms: entry.latency_ms,
        detail,
      };
    }),
    patterns,
  };
}

const listSchema = z.strictObject({
  cursor: z.string().max(1000).optional(),
  limit: limitParam(50, 200),
});

/**
 * `GET /api/tasks`: completed task episodes, from the reflection each completion stores (one
 * artifact per task, read a page at a time). Tasks still running have no reflection yet: they are
 * in the runs list.
 */
export async function listTasksPage(
  artifacts: ArtifactStore,
  rawQuery: Record<string, string>,
): Promise<TaskListResponse> {
  const query = parseQuery(listSchema, rawQuery, 'tasks query');
  const page = await artifacts.list({
    kind: 'reflection',
    limit: query.limit,
    ...(query.cursor === undefined ? {} : { afterKey: query.cursor }),
  });
  return {
    tasks: page.artifacts.flatMap((artifact) => {
      const content = artifact.content as Record<string, unknown> | null;
      if (typeof content?.episode_id !== 'string') return [];
      return [
        {
          episode_id: content.episode_id,
          outcome: String(content.outcome_type ?? '?'),
          reward_score: typeof content.reward_score === 'number' ? content.reward_score : null,
          updated_at: artifact.updatedAt,
        },
      ];
    }),
    next_cursor: page.nextKey,
  };
}
