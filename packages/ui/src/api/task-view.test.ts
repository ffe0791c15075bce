import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { listTasksPage, taskView } from './task-view.js';

let home: UiHome;

beforeAll(async () => {
  home = await createUiHome();
});
afterAll(() => home.close());

describe('GET /api/tasks/:id', () => {
  it('shows the steps with latency, the outcome, the reward factors, the reflection and the patterns with provenance', async () => {
    const task = await taskView(home.stores, home.ids.taskId);
    expect(task.description).toBe('Add rate limiting');
    expect(
      task.steps.map((step) => [step.step_number, step.tool, step.result_type, step.latency_ms]),
    ).toEqual([
      [1, 'architect', 'success', 120],
      [2, 'test_runner', 'error', 900],
      [3, 'coder', 'success', 300],
    ]);
    expect(task.steps[1]?.detail).toBe('2 failures');
    expect(task.outcome).toEqual({ type: 'success', text: 'Implemented and tested' });
    expect(task.reward?.factors.map((factor) => factor.name)).toEqual([
      'base (outcome)',
      'efficiency',
      'complexity',
      'quality',
      'learning',
    ]);
    expect(task.reward?.score).toBeGreaterThan(0);
    expect(task.reward?.score).toBeLessThanOrEqual(1);
    expect(task.reflection?.successes.length).toBeGreaterThan(0);
    expect(task.patterns.length).toBeGreaterThan(0);
    for (const pattern of task.patterns)
      expect(pattern.episodes).toContain(`task:${home.ids.taskId}`);
    expect(task.patterns.find((pattern) => pattern.type === 'tool_sequence')?.description).toBe(
      'architect → test_runner → coder',
    );
    expect(task.patterns[0]?.effective_metadata).toEqual({ team: ['infra'], priority: [3] });
  });

  it('lists completed task episodes, and refuses a run that is not a task', async () => {
    const list = await listTasksPage(home.stores.artifacts, {});
    expect(list.tasks).toEqual([
      expect.objectContaining({ episode_id: home.ids.taskId, outcome: 'success' }),
    ]);
    await expect(taskView(home.stores, home.ids.toolRunId)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
