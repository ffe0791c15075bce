import type { RunRecord } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { createRunFollower } from './live-run.js';

let home: UiHome;

beforeAll(async () => {
  home = await createUiHome();
});
afterAll(() => home.close());

describe('live runs', () => {
  it('returns only what a running run appended since the last poll, then its end', async () => {
    const runId = home.ids.runningRunId;
    const follower = createRunFollower(home.stores.runs, runId, { position: '2' });
    expect(await follower.poll()).toEqual({ records: [], damaged: 0, ended: false, position: 2 });
    const ts = new Date().toISOString();
    await home.stores.runs.append(runId, [
      {
        type: 'agent.event',
        run_id: runId,
        ts,
        seq: 0,
        event: { type: 'tool_call', tool: 'grep', args: '{}', tool_call_id: 'c1' },
      } as RunRecord,
    ]);
    const batch = await follower.poll();
    expect(batch.records.map((record) => [record.index, record.type])).toEqual([
      [2, 'agent.event'],
    ]);
    expect(batch.records[0]?.call).toEqual({ id: 'c1', tool: 'grep', partner_index: null });
    await home.stores.runs.append(runId, [
      {
        type: 'tool.output',
        run_id: runId,
        ts,
        tool: 'grep',
        tool_call_id: 'c1',
        result_raw: 'found',
      } as RunRecord,
      { type: 'run.end', run_id: runId, ts, outcome: 'completed' } as RunRecord,
    ]);
    const last = await follower.poll();
    expect(last.records.map((record) => record.type)).toEqual(['tool.output', 'run.end']);
    expect(last.records[0]?.call?.partner_index).toBe(2);
    expect(last.ended).toBe(true);
    expect(last.position).toBe(5);
    // A page read before the last records were written gets them on its first poll.
    const late = createRunFollower(home.stores.runs, runId, { position: '3' });
    expect((await late.poll()).records.map((record) => [record.index, record.type])).toEqual([
      [3, 'tool.output'],
      [4, 'run.end'],
    ]);
  });
});
