import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { createStoreAccess } from '../stores/ui-stores.js';
import { createRunDigestCache } from './run-digests.js';
import { createRunStatusCache } from './run-status.js';
import { listRunsPage } from './runs-list.js';

let home: UiHome;
let deps: Parameters<typeof listRunsPage>[0];

beforeAll(async () => {
  home = await createUiHome();
  deps = {
    runs: home.stores.runs,
    statuses: createRunStatusCache(home.stores.runs),
    digests: createRunDigestCache(home.stores.runs),
    access: createStoreAccess(home.stores),
  };
});
afterAll(() => home.close());

describe('GET /api/runs', () => {
  it('lists every run newest first with its status, model, end and size in bytes', async () => {
    const page = await listRunsPage(deps, {});
    const byId = new Map(page.runs.map((run) => [run.run_id, run]));
    expect(page.runs).toHaveLength(6);
    expect(byId.get(home.ids.failedRunId)?.status).toBe('failed');
    expect(byId.get(home.ids.runningRunId)?.status).toBe('running');
    expect(byId.get(home.ids.runningRunId)?.ended_at).toBeNull();
    expect(byId.get(home.ids.toolRunId)).toMatchObject({
      status: 'completed',
      model: 'test/echo-1',
      session_id: home.ids.sessionId,
    });
    expect(byId.get(home.ids.toolRunId)?.bytes).toBeGreaterThan(10_000);
    const starts = page.runs.map((run) => Date.parse(run.started_at));
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
    expect(page.next_cursor).toBeNull();
  });

  it('gives each run a title, a duration and its tokens, read only for the runs on the page', async () => {
    const page = await listRunsPage(deps, {});
    const byId = new Map(page.runs.map((run) => [run.run_id, run]));
    const tool = byId.get(home.ids.toolRunId);
    expect(tool?.title).toBe('What is in the log?');
    expect(tool?.input_tokens).toBeGreaterThanOrEqual(150);
    expect(tool?.output_tokens).toBeGreaterThanOrEqual(7);
    expect(tool?.model_responses).toBeGreaterThan(0);
    expect(tool?.duration_ms).toBe(
      Date.parse(tool?.ended_at ?? '') - Date.parse(tool?.started_at ?? ''),
    );
    const running = byId.get(home.ids.runningRunId);
    expect(running).toMatchObject({ title: 'Still going', duration_ms: null });
    expect(byId.get(home.ids.failedRunId)?.title).toBe('Fail please');
    // A run with no model response reports no tokens rather than zero.
    expect(running?.model_responses === 0 ? running.input_tokens : null).toBeNull();
  });

  it('pages with a cursor: every run exactly once, in the same order', async () => {
    const all = (await listRunsPage(deps, {})).runs.map((run) => run.run_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listRunsPage(deps, { limit: '2', ...(cursor === null ? {} : { cursor }) });
      expect(page.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.runs.map((run) => run.run_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(all);
  });

  it('filters by status and session', async () => {
    const failed = await listRunsPage(deps, { status: 'failed' });
    expect(failed.runs.map((run) => run.run_id)).toEqual([home.ids.failedRunId]);
    const open = await listRunsPage(deps, { status: 'running,cancelled' });
    expect(open.runs.map((run) => run.run_id)).toEqual([home.ids.runningRunId]);
    const ofFork = await listRunsPage(deps, { session: home.ids.forkId.toUpperCase() });
    expect(ofFork.runs.map((run) => run.run_id)).toEqual([home.ids.forkRunId]);
  });

  it('scans statuses a chunk of runs at a time, and pages a status filter without losing a run', async () => {
    const small = { ...deps, statusChunk: 2 };
    const completed = (await listRunsPage(deps, { status: 'completed' })).runs.map(
      (run) => run.run_id,
    );
    expect(completed).toHaveLength(4);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listRunsPage(small, {
        status: 'completed',
        limit: '3',
        ...(cursor === null ? {} : { cursor }),
      });
      seen.push(...page.runs.map((run) => run.run_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(completed);
  });

  it('filters by start date: a bare date is the whole day (UTC)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect((await listRunsPage(deps, { from: today, to: today })).runs).toHaveLength(6);
    expect((await listRunsPage(deps, { to: '2000-01-01' })).runs).toHaveLength(0);
  });

  it('refuses bad parameters naming each, and a cursor it did not make', async () => {
    await expect(listRunsPage(deps, { status: 'done' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(listRunsPage(deps, { from: 'yesterday' })).rejects.toThrow(/from/);
    await expect(listRunsPage(deps, { limit: '0' })).rejects.toThrow(/limit/);
    await expect(listRunsPage(deps, { session: 'not-a-uuid' })).rejects.toThrow(/session/);
    await expect(listRunsPage(deps, { cursor: 'garbage' })).rejects.toThrow(/cursor/);
    await expect(listRunsPage(deps, { extra: '1' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
