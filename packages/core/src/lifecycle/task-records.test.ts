import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import { createMemoryArtifactStore } from '../store/memory-artifact-store.js';
import { createMemoryRunStoreAdapter } from '../store/memory-run-store.js';
import { createRunStore, type RunReadResult } from '../store/run-store.js';
import { createTaskLifecycle } from './task-lifecycle.js';

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
