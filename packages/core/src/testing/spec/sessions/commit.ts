// SessionStore.commit and SessionStore.read: a base and deltas, guarded by expectedRevision, in one
// process and across processes.
import { expect, it, type TestContext } from 'vitest';
import type { EpisodeRunRange } from '../../../schema/session-state.js';
import { createSession } from '../../../session/create-session.js';
import { loadSession } from '../../../session/load-session.js';
import type { ModelCall } from '../../../session/model-call.js';
import { raceTurn } from '../../conformance-child.js';
import { messageEpisode, SESSION_TS, sessionBase } from '../../session-fixtures.js';
import { expectEpisodicError, requireCapability } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { commitTurns, SESSION_1, stateOf } from './fixtures.js';

/** Registers the tests of `SessionStore.commit` (folding is `fold.ts`). */
export function sessionCommitTests({ open, capabilities }: ContractGroup<'sessions'>): void {
  /**
   * Opens the store for a race of child processes, SESSION_1 committed at revision 1; skips the
   * test where the harness runs no children or the store does not guard commits across processes.
   */
  const openRace = async (context: TestContext) => {
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const { store, harness } = await open(context);
    requireCapability(
      context,
      store.capabilities.crossProcessConflicts,
      'crossProcessConflicts (SessionStore)',
    );
    const runInChild = harness.runInChild;
    if (runInChild === undefined) {
      throw new Error('capabilities.crossProcess needs StoreHarness.runInChild');
    }
    await commitTurns(store, SESSION_1, 0, 1);
    return { store, runInChild };
  };

  it('reads back, after a base and its deltas, the state the last commit left', async (context) => {
    const { store } = await open(context);
    const log = await commitTurns(store, SESSION_1, 0, 5);
    const stored = await store.read(SESSION_1);
    expect(stored?.state).toMatchObject({
      revision: 5,
      run_id: 'run-5',
      session_id: SESSION_1,
    });
    // Whatever the store's fold policy did, the deltas follow the base without a gap.
    const baseRevision = stored?.baseRevision ?? 0;
    expect(stored?.deltas.map((delta) => delta.revision)).toEqual(
      Array.from({ length: 5 - baseRevision }, (_, index) => baseRevision + index + 1),
    );
    const loaded = await store.load(SESSION_1);
    expect(loaded).toMatchObject({ schema_version: 2, revision: 5, run_id: 'run-5' });
    expect(loaded?.episodes).toEqual(log);
    expect(loaded?.messages.map((message) => message.content)).toEqual(
      log.map((_, index) => `turn ${index + 1}`),
    );
    const [summary] = await store.list();
    expect(summary).toMatchObject({ sessionId: SESSION_1, revision: 5, runId: 'run-5' });
  });

  it('guards every commit with expectedRevision: a stale one is CONFLICT and stores nothing', async (context) => {
    const { store } = await open(context);
    await commitTurns(store, SESSION_1, 0, 2);
    const stale = messageEpisode(3, 'stale');
    const commit = (expectedRevision: number | null) =>
      store.commit({
        sessionId: SESSION_1,
        expectedRevision,
        delta: {
          revision: (expectedRevision ?? 0) + 1,
          updated_at: SESSION_TS,
          episodes: [stale],
        },
        ...(expectedRevision === null ? { state: sessionBase(SESSION_1, 1, [stale]) } : {}),
      });
    await expectEpisodicError(commit(1), 'CONFLICT');
    await expectEpisodicError(commit(null), 'CONFLICT');
    await expectEpisodicError(commit(3), 'CONFLICT');
    const loaded = await store.load(SESSION_1);
    expect(loaded?.revision).toBe(2);
    expect(JSON.stringify(loaded)).not.toContain('stale');
    // A commit must make the revision after the one it expects.
    await expectEpisodicError(
      store.commit({
        sessionId: SESSION_1,
        expectedRevision: 2,
        delta: { revision: 5, updated_at: SESSION_TS },
      }),
      'VALIDATION_ERROR',
    );
  });

  it('takes a whole state for a new session only: any other commit hands over its delta alone', async (context) => {
    const { store } = await open(context);
    const episode = messageEpisode(1, 'first');
    // A new session without its state stores nothing.
    await expectEpisodicError(
      store.commit({
        sessionId: SESSION_1,
        expectedRevision: null,
        delta: { revision: 1, updated_at: SESSION_TS, episodes: [episode] },
      }),
      'VALIDATION_ERROR',
    );
    expect(await store.read(SESSION_1)).toBeNull();
    const log = await commitTurns(store, SESSION_1, 0, 2);
    // A stored session's commit never hands the store a state: the store folds what it stored.
    const next = messageEpisode(3, 'not stored');
    const refused = await expectEpisodicError(
      store.commit({
        sessionId: SESSION_1,
        expectedRevision: 2,
        delta: { revision: 3, updated_at: SESSION_TS, episodes: [next] },
        state: sessionBase(SESSION_1, 3, [...log, next]),
      }),
      'VALIDATION_ERROR',
    );
    expect(refused.message).toContain('state');
    expect((await store.load(SESSION_1))?.revision).toBe(2);
    // A fold after many commits is built from the stored base and deltas alone.
    await commitTurns(store, SESSION_1, 2, 3, log, true);
    const stored = await store.read(SESSION_1);
    expect(stored?.baseRevision).toBe(5);
    expect((await store.load(SESSION_1))?.episodes).toHaveLength(5);
  });

  it('lets exactly one of many commits from the same revision win', async (context) => {
    const { store } = await open(context);
    await commitTurns(store, SESSION_1, 0, 1);
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, writer) => {
        const episode = messageEpisode(2, `writer ${writer}`);
        return store.commit({
          sessionId: SESSION_1,
          expectedRevision: 1,
          delta: { revision: 2, updated_at: SESSION_TS, episodes: [episode] },
        });
      }),
    );
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect(attempt.reason.code).toBe('CONFLICT');
    }
    expect((await store.load(SESSION_1))?.episodes).toHaveLength(2);
  });

  it('applies a reset (clear) and a context change from the deltas', async (context) => {
    const { store } = await open(context);
    const log = await commitTurns(store, SESSION_1, 0, 2);
    await store.commit({
      sessionId: SESSION_1,
      expectedRevision: 2,
      delta: { revision: 3, updated_at: SESSION_TS, reset: true, context: { cleared: true } },
    });
    const loaded = await store.load(SESSION_1);
    expect(loaded?.episodes).toEqual([]);
    expect(loaded?.context).toEqual({ cleared: true });
    expect(log).toHaveLength(2);
  });

  it('keeps which run committed which episodes, through per-commit folds, a load and a fold', async (context) => {
    const { store } = await open(context);
    const answer: ModelCall = () => ({
      output: [{ type: 'message', role: 'assistant', content: 'ok' }],
    });
    const ranges: EpisodeRunRange[] = [];
    const turn = async (session: ReturnType<typeof createSession>, runId?: string) => {
      const first = session.log.lastId + 1;
      await session.runTurn(`turn of ${runId ?? 'no run'}`, answer, runId ? { runId } : {});
      if (runId) ranges.push({ run_id: runId, first_id: first, last_id: session.log.lastId });
    };
    const session = createSession({ store, id: SESSION_1, now: () => new Date(SESSION_TS) });
    await turn(session, 'run-a');
    await turn(session, 'run-b');
    await turn(session);
    // A small session is folded on every commit (the default policy): its base names every
    // commit's run, not only the last one.
    const loaded = await loadSession(store, SESSION_1);
    await turn(loaded, 'run-c');
    expect((await store.read(SESSION_1))?.state.episode_runs).toEqual(ranges);
    expect((await store.load(SESSION_1))?.episode_runs).toEqual(ranges);
    await store.fold(SESSION_1);
    expect((await store.read(SESSION_1))?.base.head.episode_runs).toEqual(ranges);
  });

  it('continues a version 1 snapshot with deltas, and folds it into version 2', async (context) => {
    const { store } = await open(context);
    const first = messageEpisode(1, 'from version 1');
    await store.save({
      ...stateOf(SESSION_1, 1),
      episodic: `${JSON.stringify(first)}\n`,
    });
    await commitTurns(store, SESSION_1, 1, 1, [first]);
    const loaded = await store.load(SESSION_1);
    expect(loaded?.episodes?.map((episode) => (episode as { id: number }).id)).toEqual([1, 2]);
    await store.fold(SESSION_1);
    const stored = await store.read(SESSION_1);
    expect(stored?.base.log).toMatchObject({ episodes: [first, messageEpisode(2, 'turn 2')] });
    expect((await store.load(SESSION_1))?.schema_version).toBe(2);
  });

  it('never moves a revision back on save', async (context) => {
    const { store } = await open(context);
    await commitTurns(store, SESSION_1, 0, 3);
    const error = await expectEpisodicError(store.save(stateOf(SESSION_1, 2)), 'CONFLICT');
    expect(error.message).toContain('move it back');
    expect((await store.load(SESSION_1))?.revision).toBe(3);
    await store.save(stateOf(SESSION_1, 3));
    expect(await store.load(SESSION_1)).toEqual(stateOf(SESSION_1, 3));
  });

  it('holds across processes: racing commits lose nothing and never share a revision', async (context) => {
    const { store, runInChild } = await openRace(context);
    const writers = 3;
    const count = 15;
    const results = await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        runInChild({ kind: 'session-commit-race', sessionId: SESSION_1, writer, count }),
      ),
    );
    const loaded = await store.load(SESSION_1);
    expect(loaded?.revision).toBe(1 + writers * count);
    const texts = (loaded?.episodes ?? []).map(
      (episode) => (episode as { payload: { item: { content: string } } }).payload.item.content,
    );
    expect(texts).toHaveLength(1 + writers * count);
    results.forEach((result, writer) => {
      for (const ack of result.acknowledged) {
        // Revision r added the r-th episode: exactly this writer's turn.
        expect(texts[ack.position - 1]).toBe(raceTurn(writer, ack.n));
      }
    });
    if (capabilities.snapshotLoads === true) {
      expect(results.reduce((sum, result) => sum + (result.rereads ?? 0), 0)).toBe(0);
    }
  });

  it('holds across processes: a load racing folding writers reads one snapshot', async (context) => {
    // Small: every commit of the writers folds, replacing the base the readers are reading.
    const { store, runInChild } = await openRace(context);
    const writers = 2;
    const count = 15;
    const last = 1 + writers * count;
    const tasks = [
      ...Array.from({ length: writers }, (_, writer) =>
        runInChild({ kind: 'session-commit-race', sessionId: SESSION_1, writer, count }),
      ),
      ...Array.from({ length: 2 }, () =>
        runInChild({
          kind: 'session-read-race',
          sessionId: SESSION_1,
          untilRevision: last,
          count: 5000,
        }),
      ),
    ];
    const results = await Promise.all(tasks);
    const readers = results.slice(writers);
    for (const reader of readers) {
      // Each read saw a whole revision (the child checks its episodes), never an older one.
      const revisions = reader.acknowledged.map((ack) => ack.position);
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    }
    expect((await store.load(SESSION_1))?.revision).toBe(last);
    const rereads = results.reduce((sum, result) => sum + (result.rereads ?? 0), 0);
    // One snapshot per load: never a base of one fold with the deltas (or rows) of another.
    if (capabilities.snapshotLoads === true) expect(rereads).toBe(0);
  });

  it('folds what another process committed between two commits of this store', async (context) => {
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const { store, harness } = await open(context);
    const runInChild = harness.runInChild;
    if (runInChild === undefined) {
      throw new Error('capabilities.crossProcess needs StoreHarness.runInChild');
    }
    // Small: every commit folds, from what this store last stored itself when nothing came between.
    const log = await commitTurns(store, SESSION_1, 0, 3);
    const other = await runInChild({
      kind: 'session-commit-race',
      sessionId: SESSION_1,
      writer: 0,
      count: 2,
    });
    expect(other.acknowledged.map((ack) => ack.position)).toEqual([4, 5]);
    const episode = messageEpisode(6, 'turn 6');
    await store.commit({
      sessionId: SESSION_1,
      expectedRevision: 5,
      delta: { revision: 6, updated_at: SESSION_TS, episodes: [episode] },
      fold: true,
    });
    const stored = await store.read(SESSION_1);
    expect(stored?.deltas).toEqual([]);
    const texts = (await store.load(SESSION_1))?.episodes?.map(
      (entry) => (entry as { payload: { item: { content: string } } }).payload.item.content,
    );
    expect(texts).toEqual([
      ...log.map((_, index) => `turn ${index + 1}`),
      raceTurn(0, 0),
      raceTurn(0, 1),
      'turn 6',
    ]);
  });

  it('folds what another process saved at the very revision this store last wrote', async (context) => {
    requireCapability(context, capabilities.crossProcess, 'crossProcess');
    const { store, harness } = await open(context);
    const runInChild = harness.runInChild;
    if (runInChild === undefined) {
      throw new Error('capabilities.crossProcess needs StoreHarness.runInChild');
    }
    // Small: every commit folds, and the store keeps what it folded to fold the next from.
    await commitTurns(store, SESSION_1, 0, 3);
    expect((await store.read(SESSION_1))?.deltas).toEqual([]);
    // Another process rewrites the base at revision 3: same revision, same number of deltas.
    await runInChild({ kind: 'session-rewrite', sessionId: SESSION_1, text: 'rewritten' });
    await store.commit({
      sessionId: SESSION_1,
      expectedRevision: 3,
      delta: { revision: 4, updated_at: SESSION_TS, episodes: [messageEpisode(4, 'turn 4')] },
    });
    const stored = await store.read(SESSION_1);
    expect(stored?.deltas).toEqual([]);
    const texts = (await store.load(SESSION_1))?.episodes?.map(
      (entry) => (entry as { payload: { item: { content: string } } }).payload.item.content,
    );
    expect(texts).toEqual(['turn 1', 'turn 2', 'rewritten', 'turn 4']);
  });
}
