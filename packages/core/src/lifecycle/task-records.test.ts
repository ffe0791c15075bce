import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import { createMemoryArtifactStore } from '../store/memory-artifact-store.js';
import { createMemoryRunStoreAdapter } from '../store/memory-run-store.js';
import { createRunStore, type RunReadResult } from '../store/run-store.js';
import { createTaskLifecycle } from './task-lifecycle.js';
import { taskFromRun } from './task-records.js';

const ID = '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c';

describe('reading a task episode back from its run', () => {
  it('tolerates damaged lines, and reports an unreadable start as CORRUPT_DATA', async () => {
    const adapter = createMemoryRunStoreAdapter();
    const lifecycle = createTaskLifecycle({
      runs: createRunStore(adapter),
      artifacts: createMemoryArtifactStore(),
      generateId: () => ID,
      now: () => new Date('2026-01-21T10:00:00.000Z'),
    });
    await lifecycle.createTask({ task_description: 'd', domain: 'x', task_type: 'testing' });
    await lifecycle.addStep({ episode_id: ID, step_number: 1, tool: 't', action: 'a' });
    adapter.writeRaw(ID, '{"type":"agent.event","run_id":"torn');
    await lifecycle.addStep({ episode_id: ID, step_number: 2, tool: 't', action: 'b' });
    expect((await lifecycle.getTimeline({ episode_id: ID })).step_count).toBe(2);

    const read = (await adapter.read(ID)) as RunReadResult;
    const header = JSON.stringify(read.records[0]);
    adapter.writeRaw(ID, `${header}\n{"type":"run.start", broken\n`, { replace: true });
    try {
      await lifecycle.getTask({ episode_id: ID });
      throw new Error('expected CORRUPT_DATA');
    } catch (error) {
      expect(EpisodicError.hasCode(error, 'CORRUPT_DATA')).toBe(true);
    }
  });
});

describe('a task episode whose run has no records yet', () => {
  it('is NOT_FOUND (not there yet), not CORRUPT_DATA, and reads once its records land', async () => {
    const adapter = createMemoryRunStoreAdapter();
    const lifecycle = () =>
      createTaskLifecycle({
        runs: createRunStore(adapter),
        artifacts: createMemoryArtifactStore(),
        generateId: () => ID,
        now: () => new Date('2026-01-21T10:00:00.000Z'),
      });
    await lifecycle().createTask({ task_description: 'd', domain: 'x', task_type: 'testing' });
    const written = (await adapter.read(ID)) as RunReadResult;
    const lines = `${written.records.map((record) => JSON.stringify(record)).join('\n')}\n`;

    // The run as a creating process leaves it between creating the file and its first write.
    adapter.writeRaw(ID, '', { replace: true });
    const reader = lifecycle();
    await reader.getTask({ episode_id: ID }).then(
      () => {
        throw new Error('expected NOT_FOUND');
      },
      (caught: unknown) => {
        expect(EpisodicError.hasCode(caught, 'NOT_FOUND')).toBe(true);
        expect((caught as EpisodicError).message).toContain('has no records yet');
      },
    );
    expect(() =>
      taskFromRun({
        runId: ID,
        header: null,
        records: [],
        errors: [],
        bestEffort: true,
        ended: false,
        position: 0,
      }),
    ).toThrow(/has no records yet/);

    // The creator's records land: the same reader now reads the task.
    adapter.writeRaw(ID, lines, { replace: true });
    expect((await reader.getTask({ episode_id: ID })).task_description).toBe('d');
  });
});
