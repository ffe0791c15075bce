// RunStore.list: order, filters (session, run ids, scope, time range) and limit.
import { expect, it } from 'vitest';
import { headerFor, runIdFor, SESSION_A, SESSION_B } from '../../run-fixtures.js';
import type { ContractGroup } from '../contract-group.js';

/** Registers the tests of `RunStore.list`. */
export function runListTests({ open }: ContractGroup<'runs'>): void {
  it('lists runs newest first, by session, by run ids, by inclusive time range and with a limit', async (context) => {
    const { store } = await open(context);
    const starts = [
      '2026-01-31T23:59:59.000Z',
      '2026-02-01T10:00:00.000Z',
      '2026-02-02T10:00:00.000Z',
      '2026-02-03T10:00:00.000Z',
    ];
    for (const [index, startedAt] of starts.entries()) {
      const runId = runIdFor(20 + index);
      const sessionId = index % 2 === 0 ? SESSION_A : SESSION_B;
      await store.append(runId, [headerFor(runId, { startedAt, sessionId })]);
    }
    const all = await store.list();
    expect(all.errors).toEqual([]);
    expect(all.runs.map((run) => run.startedAt)).toEqual([...starts].reverse());
    expect(all.runs[0]).toEqual({
      runId: runIdFor(23),
      sessionId: SESSION_B,
      startedAt: starts[3],
      schemaVersion: 1,
      bestEffort: false,
      model: { provider: 'test', name: 'test-model' },
      runtime: { cwd: '/work/project', os: 'linux' },
    });
    const bySession = await store.list({ sessionId: SESSION_A });
    expect(bySession.runs.map((run) => run.runId)).toEqual([runIdFor(22), runIdFor(20)]);
    const upper = await store.list({ sessionId: SESSION_A.toUpperCase() });
    expect(upper.runs).toHaveLength(2);
    const range = await store.list({ from: starts[1], to: starts[2] });
    expect(range.runs.map((run) => run.runId)).toEqual([runIdFor(22), runIdFor(21)]);
    const limited = await store.list({ limit: 2 });
    expect(limited.runs.map((run) => run.runId)).toEqual([runIdFor(23), runIdFor(22)]);
    const combined = await store.list({ sessionId: SESSION_B, from: starts[0], limit: 1 });
    expect(combined.runs.map((run) => run.runId)).toEqual([runIdFor(23)]);
    const named = await store.list({
      runIds: [runIdFor(20), runIdFor(23).toUpperCase(), runIdFor(99)],
    });
    expect(named.runs.map((run) => run.runId)).toEqual([runIdFor(23), runIdFor(20)]);
    const namedOfSession = await store.list({
      runIds: [runIdFor(20), runIdFor(21), runIdFor(23)],
      sessionId: SESSION_A,
    });
    expect(namedOfSession.runs.map((run) => run.runId)).toEqual([runIdFor(20)]);
    expect((await store.list({ runIds: [] })).runs).toEqual([]);
  });

  it('lists the runs of one scope; a header without a scope belongs to the default scope', async (context) => {
    const { store } = await open(context);
    const scopes: Array<string | undefined> = ['team-a', 'team-b', undefined, '', 'team-a'];
    for (const [index, scope] of scopes.entries()) {
      const runId = runIdFor(40 + index);
      const header = headerFor(runId, {
        startedAt: `2026-02-0${index + 1}T10:00:00.000Z`,
        sessionId: index === 4 ? SESSION_B : SESSION_A,
      });
      await store.append(runId, [scope === undefined ? header : { ...header, scope }]);
    }
    const ids = async (query: Parameters<typeof store.list>[0]) => {
      const listed = await store.list(query);
      expect(listed.errors).toEqual([]);
      return listed.runs.map((run) => run.runId);
    };
    expect(await ids({ scope: 'team-a' })).toEqual([runIdFor(44), runIdFor(40)]);
    expect(await ids({ scope: 'team-b' })).toEqual([runIdFor(41)]);
    expect(await ids({ scope: 'default' })).toEqual([runIdFor(43), runIdFor(42)]);
    expect(await ids({ scope: 'team-c' })).toEqual([]);
    expect(await ids({ scope: 'team-a', limit: 1 })).toEqual([runIdFor(44)]);
    expect(await ids({ scope: 'team-a', sessionId: SESSION_A })).toEqual([runIdFor(40)]);
    expect(await ids({ scope: 'team-a', runIds: [runIdFor(40), runIdFor(41)] })).toEqual([
      runIdFor(40),
    ]);
    expect(await ids({ scope: 'default', to: '2026-02-03T12:00:00.000Z' })).toEqual([runIdFor(42)]);
    await expect(store.list({ scope: '' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
}
