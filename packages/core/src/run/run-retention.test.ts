import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrownError } from '../__fixtures__/episodic-errors.js';
import type { RunRecord } from '../schema/run-record.js';
import { createMemoryRunStore } from '../store/memory-run-store.js';
import {
  collectExpiredRuns,
  planRunRetention,
  type RunRetentionCandidate,
} from './run-retention.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T00:00:00.000Z');
const SESSION = '00000000-0000-4000-8000-0000000000aa';
const iso = (ms: number) => new Date(ms).toISOString();

describe('planRunRetention', () => {
  it('expires a run by its last record, falling back to startedAt when that is unreadable', () => {
    const runs: RunRetentionCandidate[] = [
      { runId: 'old', startedAt: iso(NOW - 40 * DAY), lastRecordAt: iso(NOW - 31 * DAY) },
      // Started long ago but written to yesterday: still alive.
      { runId: 'busy', startedAt: iso(NOW - 40 * DAY), lastRecordAt: iso(NOW - DAY) },
      { runId: 'fallback', startedAt: iso(NOW - 40 * DAY), lastRecordAt: 'not a time' },
      { runId: 'young', startedAt: iso(NOW - DAY) },
      { runId: 'unknown', startedAt: 'garbage' },
    ];
    const plan = planRunRetention(runs, { olderThanDays: 30, nowMs: NOW });
    expect(plan.expired).toEqual(['old', 'fallback']);
    expect(plan.kept).toBe(3);
    expect(plan.cutoffMs).toBe(NOW - 30 * DAY);
  });

  it('keeps runs outside the scope or session; runs without a scope are the default scope', () => {
    const old = iso(NOW - 100 * DAY);
    const runs: RunRetentionCandidate[] = [
      { runId: 'a', startedAt: old, scope: 'ci', sessionId: 's1' },
      { runId: 'b', startedAt: old, scope: 'ci', sessionId: 's2' },
      { runId: 'c', startedAt: old },
    ];
    expect(planRunRetention(runs, { olderThanDays: 1, nowMs: NOW, scope: 'ci' }).expired).toEqual([
      'a',
      'b',
    ]);
    expect(
      planRunRetention(runs, { olderThanDays: 1, nowMs: NOW, scope: 'default' }).expired,
    ).toEqual(['c']);
    expect(
      planRunRetention(runs, { olderThanDays: 1, nowMs: NOW, sessionId: 's2' }).expired,
    ).toEqual(['b']);
  });

  it('names the field, the value and the fix for a bad policy', () => {
    const error = thrownError(() => planRunRetention([], { olderThanDays: -1, nowMs: NOW }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('olderThanDays');
    expect(error.message).toContain('-1');
    expect(
      thrownError(() => planRunRetention([], { olderThanDays: 1, scope: ' ' })).message,
    ).toContain('scope');
    expect(
      thrownError(() => planRunRetention([], { olderThanDays: Number.NaN } as never)).code,
    ).toBe('VALIDATION_ERROR');
  });

  it('never expires a run newer than the cutoff, nor one outside the scope (property)', () => {
    const candidate = fc.record({
      runId: fc.uuid(),
      startedAt: fc.integer({ min: 0, max: 400 }).map((days) => iso(NOW - days * DAY)),
      lastRecordAt: fc.option(
        fc.integer({ min: 0, max: 400 * 24 }).map((hours) => iso(NOW - hours * 3_600_000)),
        { nil: undefined },
      ),
      scope: fc.option(fc.constantFrom('default', 'ci', 'prod'), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 30 }),
        fc.double({ min: 0, max: 500, noNaN: true }),
        fc.option(fc.constantFrom('default', 'ci', 'prod'), { nil: undefined }),
        (runs, days, scope) => {
          const plan = planRunRetention(runs, {
            olderThanDays: days,
            nowMs: NOW,
            ...(scope === undefined ? {} : { scope }),
          });
          const expired = new Set(plan.expired);
          for (const run of runs) {
            if (!expired.has(run.runId)) continue;
            const time = Date.parse(run.lastRecordAt ?? run.startedAt);
            expect(time).toBeLessThan(NOW - days * DAY);
            if (scope !== undefined) expect(run.scope ?? 'default').toBe(scope);
          }
          // Every old run in scope does expire.
          for (const run of runs) {
            const time = Date.parse(run.lastRecordAt ?? run.startedAt);
            const inScope = scope === undefined || (run.scope ?? 'default') === scope;
            if (inScope && time < NOW - days * DAY) expect(expired.has(run.runId)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('collectExpiredRuns', () => {
  const ids = {
    old: '00000000-0000-4000-8000-000000000001',
    running: '00000000-0000-4000-8000-000000000002',
    recent: '00000000-0000-4000-8000-000000000003',
    scoped: '00000000-0000-4000-8000-000000000004',
  };

  async function seeded() {
    const runs = createMemoryRunStore();
    const write = async (runId: string, startMs: number, lastMs: number, extra = {}) => {
      const records: RunRecord[] = [
        {
          type: 'header',
          schema_version: 1,
          run_id: runId,
          started_at: iso(startMs),
          session_id: SESSION,
          ...extra,
        } as RunRecord,
        {
          type: 'agent.event',
          run_id: runId,
          ts: iso(lastMs),
          seq: 0,
          event: { type: 'text', content: 'hi' },
        },
      ];
      await runs.append(runId, records);
    };
    await write(ids.old, NOW - 60 * DAY, NOW - 50 * DAY);
    // Started long ago, not ended, still writing: kept.
    await write(ids.running, NOW - 60 * DAY, NOW - 2 * DAY);
    await write(ids.recent, NOW - DAY, NOW - DAY);
    await write(ids.scoped, NOW - 60 * DAY, NOW - 50 * DAY, { scope: 'ci' });
    return runs;
  }

  it('counts and names in a dry run, changing nothing; then deletes the same runs', async () => {
    const runs = await seeded();
    const dry = await collectExpiredRuns(runs, { olderThanDays: 30, nowMs: NOW, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, deleted: 2, unreadable: 0 });
    expect(dry.runIds?.sort()).toEqual([ids.old, ids.scoped]);
    expect(dry.byScope).toEqual({ default: 1, ci: 1 });
    expect((await runs.list()).runs).toHaveLength(4);
    const done = await collectExpiredRuns(runs, { olderThanDays: 30, nowMs: NOW });
    expect(done).toMatchObject({ dryRun: false, deleted: 2 });
    expect(done.runIds).toBeUndefined();
    expect((await runs.list()).runs.map((run) => run.runId).sort()).toEqual([
      ids.running,
      ids.recent,
    ]);
  });

  it('deletes only the runs of the scope and session asked for', async () => {
    const runs = await seeded();
    const ci = await collectExpiredRuns(runs, { olderThanDays: 30, nowMs: NOW, scope: 'ci' });
    expect(ci.deleted).toBe(1);
    expect(ci.byScope).toEqual({ ci: 1 });
    expect((await runs.list()).runs.map((run) => run.runId)).not.toContain(ids.scoped);
    expect((await runs.list()).runs.map((run) => run.runId)).toContain(ids.old);
    const other = await collectExpiredRuns(runs, {
      olderThanDays: 30,
      nowMs: NOW,
      sessionId: '00000000-0000-4000-8000-0000000000ff',
    });
    expect(other.deleted).toBe(0);
    const mine = await collectExpiredRuns(runs, {
      olderThanDays: 30,
      nowMs: NOW,
      sessionId: SESSION,
      dryRun: true,
    });
    expect(mine.runIds).toEqual([ids.old]);
    const byDefault = await collectExpiredRuns(runs, {
      olderThanDays: 30,
      nowMs: NOW,
      scope: 'default',
    });
    expect(byDefault.deleted).toBe(1);
    expect((await runs.list()).runs).toHaveLength(2);
  });

  it('rejects bad options before touching the store', async () => {
    const runs = await seeded();
    await expect(collectExpiredRuns(runs, { olderThanDays: 'ten' } as never)).rejects.toMatchObject(
      { code: 'VALIDATION_ERROR' },
    );
    await expect(collectExpiredRuns(runs, { olderThanDays: 2_000_000 })).rejects.toThrow(
      /olderThanDays/,
    );
    expect((await runs.list()).runs).toHaveLength(4);
  });
});
