// The Session contract as the OpenAI Agents SDK documents it (agents-core's memory/session.d.ts and
// MemorySession), run on every Episodic backend: every answer is the SDK MemorySession's answer
// to the same calls. (The SDK's own MemorySession tests run too, in sdk-conformance.test.ts, when
// their file is at hand.)
import { normalizeScope } from '@episodic/core';
import { type AgentInputItem, MemorySession } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './__fixtures__/backends.js';
import { EVERY_KIND } from './__fixtures__/items.js';
import { EpisodicSession } from './episodic-session.js';
import { sessionRunId } from './session-records.js';

const user = (text: string): AgentInputItem => ({ role: 'user', content: text });
const call = (callId: string, args: string): AgentInputItem => ({
  type: 'function_call',
  callId,
  name: 'lookup',
  arguments: args,
  status: 'completed',
});

describe.each(BACKENDS)('EpisodicSession contract on $name', (backend) => {
  async function withRuns(
    test: (
      open: (sessionId: string, scope?: string) => EpisodicSession,
      runs: never,
    ) => Promise<void>,
  ): Promise<void> {
    const opened = await backend.open();
    try {
      await test(
        (sessionId, scope) =>
          new EpisodicSession({ runs: opened.runs, sessionId, ...(scope ? { scope } : {}) }),
        opened.runs as never,
      );
    } finally {
      await opened.close();
    }
  }

  it('round-trips every item kind deep-equal (bytes, provider data, unknown fields), in a new session too', () =>
    withRuns(async (open) => {
      const session = open('kinds');
      await session.addItems(EVERY_KIND.slice(0, 5));
      await session.addItems(EVERY_KIND.slice(5));
      expect(await session.getItems()).toStrictEqual(EVERY_KIND);
      // Another EpisodicSession (another process) reads the run from the store.
      const resumed = await open('kinds').getItems();
      expect(resumed).toStrictEqual(EVERY_KIND);
      const bytes = (resumed[6] as unknown as { output: { image: { data: unknown } } }).output.image
        .data;
      expect(bytes).toBeInstanceOf(Uint8Array);
    }));

  it('answers as MemorySession does: limits, pops, clears, an empty session', () =>
    withRuns(async (open) => {
      const session = open('s1');
      const reference = new MemorySession({ sessionId: 's1' });
      const both = async (step: (s: EpisodicSession | MemorySession) => Promise<unknown>) => {
        const ours = await step(session);
        const theirs = await step(reference);
        expect(ours).toStrictEqual(theirs);
        for (const limit of [undefined, -1, 0, 1, 2, 100]) {
          expect(await session.getItems(limit)).toStrictEqual(await reference.getItems(limit));
        }
      };
      expect(await session.getSessionId()).toBe('s1');
      await both((s) => s.popItem());
      await both((s) => s.clearSession());
      await both((s) => s.addItems([user('a'), user('b'), call('c1', '{}')]));
      await both((s) => s.popItem());
      await both((s) => s.addItems([]));
      await both((s) => s.addItems([user('c')]));
      await both((s) => s.clearSession());
      await both((s) => s.popItem());
      await both((s) => s.addItems([user('d')]));
      expect(await open('s1').getItems()).toStrictEqual([user('d')]);
    }));

  it('hands out copies: changing what it returned or was given changes nothing stored', () =>
    withRuns(async (open) => {
      const session = open('copies');
      const given = user('original');
      await session.addItems([given]);
      (given as { content: string }).content = 'changed after addItems';
      const [read] = await session.getItems();
      (read as { content: string }).content = 'changed after getItems';
      expect(await session.getItems()).toStrictEqual([user('original')]);
    }));

  it('sees what other sessions on the store wrote: adds, pops, clears', () =>
    withRuns(async (open) => {
      const first = open('shared');
      const second = open('shared');
      await first.addItems([user('1'), user('2')]);
      expect(await second.getItems()).toStrictEqual([user('1'), user('2')]);
      expect(await second.popItem()).toStrictEqual(user('2'));
      await first.addItems([user('3')]);
      expect(await first.getItems()).toStrictEqual([user('1'), user('3')]);
      // The pop of `first` removes the item `second` added last, not the one `first` knew last.
      await second.addItems([user('4')]);
      expect(await first.popItem()).toStrictEqual(user('4'));
      await second.clearSession();
      expect(await first.getItems()).toStrictEqual([]);
      expect(await first.popItem()).toBeUndefined();
    }));

  it('applies history mutations and idempotent transactions, across sessions', () =>
    withRuns(async (open) => {
      const first = open('tx');
      const second = open('tx');
      await first.addItems([user('start'), call('c1', '{"v":1}'), call('c1', '{"dup":1}')]);
      await second.applyHistoryMutations({
        mutations: [
          {
            type: 'replace_function_call',
            callId: 'c1',
            replacement: call('c1', '{"v":2}') as never,
          },
        ],
      });
      expect(await first.getItems()).toStrictEqual([user('start'), call('c1', '{"v":2}')]);
      const append = {
        operationId: 'op-1',
        transaction: { type: 'append_items' as const, items: [user('committed')] },
      };
      await first.applyHistoryTransaction(append);
      // A retry in another process is a no-op; another transaction under the id is refused.
      await second.applyHistoryTransaction(append);
      await expect(
        second.applyHistoryTransaction({
          operationId: 'op-1',
          transaction: { type: 'append_items', items: [user('other')] },
        }),
      ).rejects.toThrow('already applied with a different transaction');
      await expect(
        second.applyHistoryTransaction({
          operationId: 'op-2',
          transaction: {
            type: 'replace_suffix',
            expectedSuffix: [user('not the end')],
            replacement: [],
          },
        }),
      ).rejects.toThrow('suffix no longer matches');
      await second.applyHistoryTransaction({
        operationId: 'op-2',
        transaction: {
          type: 'replace_suffix',
          expectedSuffix: [user('committed')],
          replacement: [user('accepted')],
        },
      });
      expect(await open('tx').getItems()).toStrictEqual([
        user('start'),
        call('c1', '{"v":2}'),
        user('accepted'),
      ]);
      // A clear forgets the operation ids, as MemorySession's does.
      await first.clearSession();
      await second.applyHistoryTransaction(append);
      expect(await first.getItems()).toStrictEqual([user('committed')]);
    }));

  it('keeps sessions and scopes apart, and stamps the scope in the run header', () =>
    withRuns(async (open, runs) => {
      await open('a').addItems([user('in a')]);
      await open('a', 'Team One').addItems([user('in team one')]);
      expect(await open('a').getItems()).toStrictEqual([user('in a')]);
      expect(await open('b').getItems()).toStrictEqual([]);
      expect(await open('a', 'team-one').getItems()).toStrictEqual([user('in team one')]);
      const scoped = open('a', 'Team One');
      expect(scoped.runId).toBe(sessionRunId('a', normalizeScope('Team One')));
      const read = await (runs as import('@episodic/core').RunStore).read(scoped.runId);
      expect((read.header as unknown as { scope?: string }).scope).toBe('team-one');
      const unscoped = await (runs as import('@episodic/core').RunStore).read(open('a').runId);
      expect((unscoped.header as unknown as { scope?: string }).scope).toBeUndefined();
    }));

  it('starts afresh after the run is deleted underneath it', () =>
    withRuns(async (open, runs) => {
      const session = open('deleted');
      await session.addItems([user('old')]);
      await (runs as import('@episodic/core').RunStore).delete(session.runId);
      expect(await session.getItems()).toStrictEqual([]);
      await session.addItems([user('new')]);
      expect(await open('deleted').getItems()).toStrictEqual([user('new')]);
    }));

  it('rejects bad input naming the field and the value, and stores nothing', () =>
    withRuns(async (open, runs) => {
      const session = open('bad');
      await expect(session.getItems(1.5)).rejects.toThrow(
        /getItems: limit must be an integer \(got 1\.5\)/,
      );
      await expect(session.addItems('hi' as never)).rejects.toThrow(
        /addItems: items must be an array/,
      );
      await expect(session.addItems([user('ok'), 3 as never])).rejects.toThrow(
        /items\.1 must be an object/,
      );
      await expect(
        session.addItems([{ ...user('x'), providerData: { when: new Date(0) } } as AgentInputItem]),
      ).rejects.toThrow(/items\.0\.providerData\.when is a Date .*ISO string/);
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(
        session.addItems([{ ...user('x'), providerData: cyclic } as AgentInputItem]),
      ).rejects.toThrow(/items\.0\.providerData\.self is a cycle/);
      await expect(
        session.applyHistoryMutations({ mutations: [{ type: 'drop' }] } as never),
      ).rejects.toThrow(/args\.mutations\.0\.type must be "replace_function_call"/);
      await expect(
        session.applyHistoryTransaction({ operationId: ' ', transaction: null } as never),
      ).rejects.toThrow('operationId must be a non-empty string');
      expect(await session.getItems()).toStrictEqual([]);
      await expect((runs as import('@episodic/core').RunStore).read(session.runId)).rejects.toThrow(
        /not found|NOT_FOUND|does not exist/i,
      );
      expect(() => new EpisodicSession({ runs: {} as never })).toThrow(
        /options\.runs must be an Episodic RunStore/,
      );
      expect(() => new EpisodicSession({ runs, sessionId: '' })).toThrow(
        /options\.sessionId must be a non-empty string \(got ""\)/,
      );
    }));
});
