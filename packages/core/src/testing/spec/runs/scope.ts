// A run store bound to one scope (`scopeRunStore`): another scope's run, or one the access
// predicate hides, answers exactly like a missing one.
import { expect, it } from 'vitest';
import { compileAccessPolicy } from '../../../provenance/access-policy.js';
import type { RunRecord } from '../../../schema/run-record.js';
import { scopeRunStore } from '../../../store/scoped-run-store.js';
import { agentEvent, completedRun, headerFor, runIdFor } from '../../run-fixtures.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/** Run ids sharing the prefix `0f0e0d0c-0b0a-4908-8706-0000000005` (a prefix of both). */
const MINE = runIdFor(0x50);
const THEIRS = runIdFor(0x51);
const MISSING = runIdFor(0x52);

/** A completed task run whose `run.start` carries `metadata`. */
function taskRun(runId: string, metadata: Record<string, unknown>): RunRecord[] {
  const [header, start, ...rest] = completedRun(runId, 1);
  return [header as RunRecord, { ...(start as RunRecord), task: { metadata } }, ...rest];
}

/** Registers the tests of `scopeRunStore` over the backend. */
export function runScopeTests({ open }: ContractGroup<'runs'>): void {
  it('a scoped store stamps its scope, lists only its runs, and answers NOT_FOUND for another scope exactly as for a missing run', async (context) => {
    const { store } = await open(context);
    const mine = scopeRunStore(store, { scope: 'team-a' });
    const theirs = scopeRunStore(store, { scope: 'team-b' });
    await mine.append(MINE, completedRun(MINE, 2));
    await theirs.append(THEIRS, completedRun(THEIRS, 2));

    // Headers are stamped; the backend itself lists both runs under their scopes.
    expect((await store.read(MINE)).header).toMatchObject({ scope: 'team-a' });
    expect((await store.list({ scope: 'team-b' })).runs.map((run) => run.runId)).toEqual([THEIRS]);
    expect((await mine.list()).runs.map((run) => run.runId)).toEqual([MINE]);
    expect(
      (await mine.list({ limit: 1, sessionId: headerFor(MINE).session_id as string })).runs,
    ).toHaveLength(1);

    // Reads of its own run work.
    expect((await mine.read(MINE)).records).toHaveLength(7);
    expect((await mine.tail(MINE, { count: 1 })).records.map((r) => r.type)).toEqual(['run.end']);
    expect((await mine.readAfter(MINE, 6)).records).toHaveLength(1);
    await mine.append(MINE, [agentEvent(MINE, 9)]);

    // Another scope's run: every method answers like a missing run, with the same message.
    const missing = async (runId: string) => [
      (await expectEpisodicError(mine.read(runId), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.readAfter(runId, 0), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.tail(runId), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.append(runId, [agentEvent(runId, 1)]), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.redact(runId), 'NOT_FOUND')).message,
      await mine.delete(runId),
    ];
    const other = await missing(THEIRS);
    const none = await missing(MISSING);
    expect(other.map((value) => String(value).replace(THEIRS, MISSING))).toEqual(none.map(String));
    // Nothing of the other scope's run was changed.
    expect((await store.read(THEIRS)).records).toHaveLength(7);

    // A prefix shared by both runs resolves to this scope's run only, never counting the other.
    const prefix = MINE.slice(0, -1);
    expect(await mine.resolveRunId(prefix)).toBe(MINE);
    expect(await theirs.resolveRunId(prefix)).toBe(THEIRS);
    await expectEpisodicError(store.resolveRunId(prefix), 'VALIDATION_ERROR');

    // Its own run can be deleted; then it is missing.
    expect(await mine.delete(MINE)).toBe(true);
    await expectEpisodicError(mine.read(MINE), 'NOT_FOUND');
    expect((await store.list()).runs.map((run) => run.runId)).toEqual([THEIRS]);
  });

  it('a run deleted behind a scoped store and recreated in another scope answers NOT_FOUND through it, exactly as a missing run', async (context) => {
    const { store } = await open(context);
    const mine = scopeRunStore(store, { scope: 'team-a' });
    const theirs = scopeRunStore(store, { scope: 'team-b' });
    await mine.append(MINE, completedRun(MINE, 2));
    // Every path of both scoped stores has met the run (and may remember what it decided).
    expect((await mine.read(MINE)).records).toHaveLength(7);
    expect((await mine.readAfter(MINE, 6)).records).toHaveLength(1);
    expect((await mine.tail(MINE, { count: 1 })).records).toHaveLength(1);
    await mine.append(MINE, [agentEvent(MINE, 9)]);
    expect(await mine.resolveRunId(MINE.slice(0, -1))).toBe(MINE);
    await expectEpisodicError(theirs.read(MINE), 'NOT_FOUND');
    await expectEpisodicError(theirs.tail(MINE), 'NOT_FOUND');

    // Deleted through the backend itself (as by another process), then created again with the
    // same id (ids can be chosen by callers) in the other scope, starting later.
    expect(await store.delete(MINE)).toBe(true);
    const later = headerFor(MINE, { startedAt: '2026-02-04T08:00:00.000Z' });
    const [, ...rest] = completedRun(MINE, 4);
    await theirs.append(MINE, [later, ...rest]);

    const missing = async (runId: string) => [
      (await expectEpisodicError(mine.read(runId), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.readAfter(runId, 0), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.readAfter(runId, 6), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.tail(runId), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.append(runId, [agentEvent(runId, 10)]), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.redact(runId), 'NOT_FOUND')).message,
      (await expectEpisodicError(mine.resolveRunId(runId.slice(0, -1)), 'NOT_FOUND')).message,
      await mine.delete(runId),
    ];
    const replaced = await missing(MINE);
    const none = await missing(MISSING);
    // (Both ids share the prefix resolved, so its messages are the same text.)
    expect(replaced.map((value) => String(value).replaceAll(MINE, MISSING))).toEqual(
      none.map(String),
    );
    expect((await mine.list()).runs).toEqual([]);
    // The other scope's run was not changed, and its own scoped store sees it.
    expect((await store.read(MINE)).records).toHaveLength(9);
    expect((await theirs.read(MINE)).records).toHaveLength(9);
    expect((await theirs.tail(MINE, { count: 1 })).records.map((r) => r.type)).toEqual(['run.end']);
  });

  it('a run the access predicate allowed, deleted and recreated for another tenant, answers NOT_FOUND', async (context) => {
    const { store } = await open(context);
    const visible = compileAccessPolicy({ required: { tenant: 'acme' } });
    const scoped = scopeRunStore(store, { scope: 'team-a', visible });
    await scoped.append(MINE, taskRun(MINE, { tenant: 'acme' }));
    expect((await scoped.tail(MINE)).records).toHaveLength(6);
    expect(await store.delete(MINE)).toBe(true);
    const [, ...rest] = taskRun(MINE, { tenant: 'other' });
    await scopeRunStore(store, { scope: 'team-a' }).append(MINE, [
      headerFor(MINE, { startedAt: '2026-02-04T08:00:00.000Z' }),
      ...rest,
    ]);
    const hidden = await expectEpisodicError(scoped.tail(MINE), 'NOT_FOUND');
    const none = await expectEpisodicError(scoped.tail(MISSING), 'NOT_FOUND');
    expect(hidden.message.replace(MINE, MISSING)).toBe(none.message);
    await expectEpisodicError(scoped.readAfter(MINE, 1), 'NOT_FOUND');
    await expectEpisodicError(scoped.read(MINE), 'NOT_FOUND');
  });

  it('a run recorded without a scope belongs to the default scope', async (context) => {
    const { store } = await open(context);
    await store.append(MINE, completedRun(MINE, 1));
    const fallback = scopeRunStore(store, { scope: 'default' });
    expect((await fallback.list()).runs.map((run) => run.runId)).toEqual([MINE]);
    expect((await fallback.tail(MINE)).records).toHaveLength(6);
    await expectEpisodicError(scopeRunStore(store, { scope: 'team-a' }).tail(MINE), 'NOT_FOUND');
  });

  it('a run the access predicate hides (by its run.start task metadata) answers like a missing one', async (context) => {
    const { store } = await open(context);
    const visible = compileAccessPolicy({ required: { tenant: 'acme' } });
    const scoped = scopeRunStore(store, { scope: 'team-a', visible });
    await scoped.append(MINE, taskRun(MINE, { tenant: 'acme' }));
    await scoped.append(THEIRS, taskRun(THEIRS, { tenant: 'other' }));
    expect((await scoped.list()).runs.map((run) => run.runId)).toEqual([MINE]);
    expect((await scoped.list({ limit: 1 })).runs.map((run) => run.runId)).toEqual([MINE]);
    expect((await scoped.read(MINE)).runId).toBe(MINE);
    const hidden = await expectEpisodicError(scoped.tail(THEIRS), 'NOT_FOUND');
    const none = await expectEpisodicError(scoped.tail(MISSING), 'NOT_FOUND');
    expect(hidden.message.replace(THEIRS, MISSING)).toBe(none.message);
    expect(await scoped.delete(THEIRS)).toBe(false);
    expect(await scoped.resolveRunId(MINE.slice(0, -1))).toBe(MINE);
  });

  it('rejects bad scope options with a VALIDATION_ERROR naming the field', async (context) => {
    const { store } = await open(context);
    const empty = await expectEpisodicError(
      Promise.resolve().then(() => scopeRunStore(store, { scope: '' })),
      'VALIDATION_ERROR',
    );
    expect(empty.message).toContain('scope');
    await expectEpisodicError(
      Promise.resolve().then(() => scopeRunStore(store, { scope: 'a', visible: 'x' } as never)),
      'VALIDATION_ERROR',
    );
  });
}
