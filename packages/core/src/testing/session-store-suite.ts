import { describe, expect, it } from 'vitest';
import type { EpisodeRunRange, SessionState } from '../schema/session-state.js';
import { createSession } from '../session/create-session.js';
import { loadSession } from '../session/load-session.js';
import type { ModelCall } from '../session/model-call.js';
import type { SessionStore } from '../store/session-store.js';
import { raceTurn } from './conformance-child.js';
import { messageEpisode, SESSION_TS, sessionBase } from './session-fixtures.js';
import type { CreateStoreHarness, StoreConformanceCapabilities } from './store-harness.js';
import { expectEpisodicError, openStore, requireCapability, utf8 } from './suite-helpers.js';

const CONTRACT = 'SessionStore';

const SESSION_1 = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const SESSION_2 = '7a2d3b5f-4c6e-4d8f-8a91-2b3c4d5e6f70';
const SESSION_3 = '8b3e4c60-5d7f-4e90-9ba2-3c4d5e6f7081';

function stateOf(
  sessionId: string,
  revision: number,
  updatedAt = '2026-02-03T12:00:00.000Z',
): SessionState {
  return {
    schema_version: 1,
    session_id: sessionId,
    updated_at: updatedAt,
    run_id: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
    invoke_seq: revision,
    messages: [
      { role: 'system', content: 'You are a coding assistant.' },
      { role: 'user', content: `message ${revision}` },
    ],
    revision,
  };
}

/**
 * Commits `count` turns of one episode each to `store`, starting from revision `from` with
 * `episodes` already in the log; returns the log after them.
 */
async function commitTurns(
  store: SessionStore,
  sessionId: string,
  from: number,
  count: number,
  episodes: unknown[] = [],
  fold = false,
): Promise<unknown[]> {
  const log = [...episodes];
  for (let turn = 0; turn < count; turn++) {
    const revision = from + turn + 1;
    const episode = messageEpisode(log.length + 1, `turn ${revision}`);
    log.push(episode);
    const snapshot = [...log];
    await store.commit({
      sessionId,
      expectedRevision: revision === 1 ? null : revision - 1,
      delta: { revision, updated_at: SESSION_TS, episodes: [episode], run_id: `run-${revision}` },
      base: () => sessionBase(sessionId, revision, snapshot, { run_id: `run-${revision}` }),
      fold,
    });
  }
  return log;
}

/** Registers the `SessionStore` contract tests (see `describeStoreConformance`). */
export function describeSessionStoreSuite(
  createHarness: CreateStoreHarness,
  capabilities: StoreConformanceCapabilities,
): void {
  const open = async (context: Parameters<typeof openStore>[0]) =>
    openStore(context, createHarness, 'sessions', CONTRACT);

  describe(CONTRACT, () => {
    it('declares its capabilities as data', async (context) => {
      const { store } = await open(context);
      expect(typeof store.name).toBe('string');
      expect(typeof store.capabilities.atomicSave).toBe('boolean');
      expect(typeof store.capabilities.crossProcessConflicts).toBe('boolean');
    });

    it('saves and loads a snapshot, keeping unknown fields; a missing one loads as null', async (context) => {
      const { store } = await open(context);
      expect(await store.load(SESSION_1)).toBeNull();
      const state = {
        ...stateOf(SESSION_1, 1),
        meta: { runtime: { cwd: '/a' } },
        future_field: { kept: true },
      } as SessionState;
      await store.save(state);
      expect(await store.load(SESSION_1)).toEqual(state);
    });

    it('resolves a unique session id prefix; an ambiguous one names its candidates', async (context) => {
      const { store } = await open(context);
      const twin = '6f1c2a4e-3b5d-4c7e-9f80-000000000000';
      for (const sessionId of [SESSION_1, SESSION_2, twin]) await store.save(stateOf(sessionId, 1));
      expect(await store.resolveSessionId('7A2D3B')).toBe(SESSION_2);
      expect(await store.resolveSessionId(SESSION_3.toUpperCase())).toBe(SESSION_3);
      const ambiguous = await expectEpisodicError(
        store.resolveSessionId('6f1c2a4e'),
        'VALIDATION_ERROR',
      );
      expect(ambiguous.details).toMatchObject({ count: 2, candidates: [twin, SESSION_1].sort() });
      expect(ambiguous.message).not.toContain(SESSION_2);
      await expectEpisodicError(store.resolveSessionId('8b3e4c'), 'NOT_FOUND');
      await expectEpisodicError(store.resolveSessionId('6f1c'), 'VALIDATION_ERROR');
    });

    it('returns fresh copies: changing a loaded snapshot never changes the store', async (context) => {
      const { store } = await open(context);
      await store.save(stateOf(SESSION_1, 1));
      const loaded = (await store.load(SESSION_1)) as SessionState;
      loaded.messages.push({ role: 'user', content: 'mutated' });
      loaded.revision = 99;
      expect(await store.load(SESSION_1)).toEqual(stateOf(SESSION_1, 1));
    });

    it('enforces expectedRevision: null for a new session, CONFLICT for a stale one, nothing stored', async (context) => {
      const { store } = await open(context);
      await store.save(stateOf(SESSION_1, 1), { expectedRevision: null });
      await expectEpisodicError(
        store.save(stateOf(SESSION_1, 2), { expectedRevision: null }),
        'CONFLICT',
      );
      const stale = await expectEpisodicError(
        store.save(stateOf(SESSION_1, 2), { expectedRevision: 0 }),
        'CONFLICT',
      );
      expect(stale.message).toContain(SESSION_1);
      expect((await store.load(SESSION_1))?.revision).toBe(1);
      await store.save(stateOf(SESSION_1, 2), { expectedRevision: 1 });
      expect((await store.load(SESSION_1))?.revision).toBe(2);
    });

    it('lets exactly one of two saves from the same revision win', async (context) => {
      const { store } = await open(context);
      await store.save(stateOf(SESSION_1, 1));
      const results = await Promise.allSettled([
        store.save(stateOf(SESSION_1, 2), { expectedRevision: 1 }),
        store.save({ ...stateOf(SESSION_1, 2), invoke_seq: 42 }, { expectedRevision: 1 }),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((result) => result.status === 'rejected');
      expect((rejected as PromiseRejectedResult).reason.code).toBe('CONFLICT');
    });

    it('is idempotent: saving the same snapshot twice without an expected revision succeeds', async (context) => {
      const { store } = await open(context);
      await store.save(stateOf(SESSION_1, 1));
      await store.save(stateOf(SESSION_1, 1));
      expect(await store.list()).toHaveLength(1);
    });

    it('lists summaries newest first and deletes once', async (context) => {
      const { store } = await open(context);
      await store.save(stateOf(SESSION_1, 1, '2026-02-01T00:00:00.000Z'));
      await store.save(stateOf(SESSION_2, 3, '2026-02-03T00:00:00.000Z'));
      await store.save(stateOf(SESSION_3, 2, '2026-02-02T00:00:00.000Z'));
      const listed = await store.list();
      expect(listed.map((summary) => summary.sessionId)).toEqual([SESSION_2, SESSION_3, SESSION_1]);
      expect(listed[0]).toEqual({
        sessionId: SESSION_2,
        updatedAt: '2026-02-03T00:00:00.000Z',
        revision: 3,
        runId: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
        messageCount: 2,
        baseRevision: 3,
        // Seed 001's last_user_message.
        lastUserMessage: 'message 3',
      });
      expect(await store.delete(SESSION_3)).toBe(true);
      expect(await store.delete(SESSION_3)).toBe(false);
      expect(await store.load(SESSION_3)).toBeNull();
      expect((await store.list()).map((summary) => summary.sessionId)).toEqual([
        SESSION_2,
        SESSION_1,
      ]);
    });

    it('rejects bad input with VALIDATION_ERROR, storing nothing', async (context) => {
      const { store } = await open(context);
      await expectEpisodicError(store.load('../../etc/passwd'), 'VALIDATION_ERROR');
      await expectEpisodicError(store.delete('x/y'), 'VALIDATION_ERROR');
      await expectEpisodicError(
        store.save({ ...stateOf(SESSION_1, 1), messages: 'nope' } as unknown as SessionState),
        'VALIDATION_ERROR',
      );
      await expectEpisodicError(
        store.save({ ...stateOf(SESSION_1, 1), session_id: '../x' }),
        'VALIDATION_ERROR',
      );
      await expectEpisodicError(
        store.save(stateOf(SESSION_1, 1), { expectedRevision: -1 }),
        'VALIDATION_ERROR',
      );
      expect(await store.list()).toEqual([]);
      expect(await store.load(SESSION_1)).toBeNull();
    });

    it('redacts secrets in a snapshot as its next revision, and content mode replaces all text', async (context) => {
      const { store } = await open(context);
      const aws = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');
      const state: SessionState = {
        ...stateOf(SESSION_1, 3),
        messages: [
          { role: 'system', content: 'You are a coding assistant.' },
          { role: 'user', content: `deploy with ${aws}` },
        ],
        context: { env: { AWS_ACCESS_KEY_ID: aws }, cwd: '/repo' },
      };
      await store.save(state);
      const receipt = await store.redact(SESSION_1);
      expect(receipt).toEqual({
        sessionId: SESSION_1,
        mode: 'secrets',
        changed: true,
        replacements: 2,
        revision: 4,
      });
      const loaded = await store.load(SESSION_1);
      expect(JSON.stringify(loaded)).not.toContain(aws);
      expect(loaded?.messages[0]).toEqual(state.messages[0]);
      expect(loaded?.messages[1]?.content).toBe('deploy with [REDACTED:aws_key]');
      expect(loaded?.revision).toBe(4);
      // A session still holding revision 3 cannot write the secret back.
      await expectEpisodicError(store.save(state, { expectedRevision: 3 }), 'CONFLICT');
      expect(await store.redact(SESSION_1)).toMatchObject({ changed: false, revision: 4 });

      const content = await store.redact(SESSION_1, { mode: 'content' });
      expect(content).toMatchObject({ changed: true, revision: 5 });
      const blank = await store.load(SESSION_1);
      expect(blank?.messages.map((message) => message.role)).toEqual(['system', 'user']);
      expect(JSON.stringify(blank)).not.toContain('coding assistant');
      expect(blank?.session_id).toBe(SESSION_1);

      await expectEpisodicError(store.redact(SESSION_2), 'NOT_FOUND');
      await expectEpisodicError(store.redact('not-a-uuid'), 'VALIDATION_ERROR');
      await expectEpisodicError(
        store.redact(SESSION_1, { mode: 'all' as never }),
        'VALIDATION_ERROR',
      );
    });

    describe('commits: a base and deltas', () => {
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
            base: () => sessionBase(SESSION_1, 1, [stale]),
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
            base: () => sessionBase(SESSION_1, 5, []),
          }),
          'VALIDATION_ERROR',
        );
      });

      it('lets exactly one of many commits from the same revision win', async (context) => {
        const { store } = await open(context);
        const log = await commitTurns(store, SESSION_1, 0, 1);
        const attempts = await Promise.allSettled(
          Array.from({ length: 8 }, (_, writer) => {
            const episode = messageEpisode(2, `writer ${writer}`);
            return store.commit({
              sessionId: SESSION_1,
              expectedRevision: 1,
              delta: { revision: 2, updated_at: SESSION_TS, episodes: [episode] },
              base: () => sessionBase(SESSION_1, 2, [...log, episode]),
            });
          }),
        );
        expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
        for (const attempt of attempts) {
          if (attempt.status === 'rejected') expect(attempt.reason.code).toBe('CONFLICT');
        }
        expect((await store.load(SESSION_1))?.episodes).toHaveLength(2);
      });

      it('folds the deltas into a new base on demand, and commits continue after it', async (context) => {
        const { store } = await open(context);
        const log = await commitTurns(store, SESSION_1, 0, 4);
        const before = await store.load(SESSION_1);
        const pending = (await store.read(SESSION_1))?.deltas.length;
        expect(await store.fold(SESSION_1)).toEqual({
          sessionId: SESSION_1,
          revision: 4,
          folded: pending,
        });
        const stored = await store.read(SESSION_1);
        expect(stored?.baseRevision).toBe(4);
        expect(stored?.deltas).toEqual([]);
        expect(await store.load(SESSION_1)).toEqual(before);
        expect(await store.fold(SESSION_1)).toMatchObject({ revision: 4, folded: 0 });
        const after = await commitTurns(store, SESSION_1, 4, 2, log);
        expect((await store.load(SESSION_1))?.episodes).toEqual(after);
        await expectEpisodicError(store.fold(SESSION_2), 'NOT_FOUND');
      });

      it('folds when a commit asks for it, keeping every episode', async (context) => {
        const { store } = await open(context);
        const log = await commitTurns(store, SESSION_1, 0, 3);
        const more = await commitTurns(store, SESSION_1, 3, 1, log, true);
        const stored = await store.read(SESSION_1);
        expect(stored?.baseRevision).toBe(4);
        expect(stored?.deltas).toEqual([]);
        expect((await store.load(SESSION_1))?.episodes).toEqual(more);
      });

      it('applies a reset (clear) and a context change from the deltas', async (context) => {
        const { store } = await open(context);
        const log = await commitTurns(store, SESSION_1, 0, 2);
        await store.commit({
          sessionId: SESSION_1,
          expectedRevision: 2,
          delta: { revision: 3, updated_at: SESSION_TS, reset: true, context: { cleared: true } },
          base: () => sessionBase(SESSION_1, 3, [], { context: { cleared: true } }),
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
      });
    });

    describe('damaged data', () => {
      it('ignores a torn last delta (a commit never acknowledged), and the next commit repairs it', async (context) => {
        requireCapability(context, capabilities.deltaDamage, 'deltaDamage');
        const { store, harness } = await open(context);
        const append = harness.damage?.appendRawToDeltas;
        if (append === undefined)
          throw new Error('capabilities.deltaDamage needs damage.appendRawToDeltas');
        const log = await commitTurns(store, SESSION_1, 0, 3);
        await append(SESSION_1, utf8('{"revision":4,"updated_at":"2026-02-03T12:00:00.000Z","epi'));
        expect((await store.load(SESSION_1))?.revision).toBe(3);
        const after = await commitTurns(store, SESSION_1, 3, 1, log);
        expect((await store.load(SESSION_1))?.episodes).toEqual(after);
        // Damage before the last line is not a torn commit: the session is CORRUPT_DATA.
        await append(SESSION_1, utf8('not a delta\n'));
        await append(
          SESSION_1,
          utf8(`${JSON.stringify({ revision: 5, updated_at: SESSION_TS })}\n`),
        );
        const error = await expectEpisodicError(store.load(SESSION_1), 'CORRUPT_DATA');
        expect(error.message).toContain(SESSION_1);
      });

      it('loads a damaged snapshot as CORRUPT_DATA and leaves it out of the list', async (context) => {
        requireCapability(context, capabilities.snapshotDamage, 'snapshotDamage');
        const { store, harness } = await open(context);
        const write = harness.damage?.writeRawSnapshot;
        if (write === undefined)
          throw new Error('capabilities.snapshotDamage needs damage.writeRawSnapshot');
        await store.save(stateOf(SESSION_1, 1));
        await store.save(stateOf(SESSION_2, 1));
        await write(SESSION_2, utf8('{"schema_version":1,"session_id":"'));
        await write(SESSION_3, utf8(''));
        const error = await expectEpisodicError(store.load(SESSION_2), 'CORRUPT_DATA');
        expect(error.message).toContain(SESSION_2);
        await expectEpisodicError(store.load(SESSION_3), 'CORRUPT_DATA');
        expect((await store.list()).map((summary) => summary.sessionId)).toEqual([SESSION_1]);
        await store.save(stateOf(SESSION_2, 2));
        expect((await store.load(SESSION_2))?.revision).toBe(2);
      });
    });
  });
}
