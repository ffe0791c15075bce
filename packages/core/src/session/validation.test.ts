/**
 * Bad input to every public session function: a VALIDATION_ERROR that names the field, and
 * nothing changed (log, revision, context and store all as before).
 */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../store/index.js';
import { echoModel, fixedClock, newSession, rejection } from './__fixtures__/harness.js';
import { commitEpisodes } from './commit-episodes.js';
import { compact } from './compact.js';
import { createSession } from './create-session.js';

function thrown(action: () => unknown) {
  try {
    action();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a throw');
}

describe('createSession: bad options', () => {
  const store = createMemorySessionStore();
  const cases: Array<[string, unknown, string]> = [
    ['no options', undefined, 'createSession options'],
    ['no store', {}, 'store'],
    ['a store without methods', { store: {} }, 'store'],
    ['a non-UUID id', { store, id: 'session-1' }, 'id must be a UUID'],
    ['a non-object context', { store, context: 'ctx' }, 'context'],
    ['a context that is not JSON', { store, context: { when: new Date() } }, 'when is a Date'],
    ['duplicate plugins', { store, plugins: [{ name: 'p' }, { name: 'p' }] }, 'plugins[1].name'],
    ['an unknown assembly option', { store, assembly: { plugins: [] } }, 'assembly.plugins'],
    [
      'an assembly reserve without maxTokens',
      { store, assembly: { reserveOutputTokens: 10 } },
      'assembly.reserveOutputTokens',
    ],
    ['maxModelCalls 0', { store, maxModelCalls: 0 }, 'maxModelCalls'],
    ['a recorder without agentEvent', { store, recorder: {} }, 'recorder'],
    ['a non-function executeTool', { store, executeTool: 'run' }, 'executeTool'],
    ['an unknown option', { store, onTurn: () => {} }, 'onTurn'],
    ['a generateId that is not a UUID', { store, generateId: () => 'nope' }, 'generateId'],
  ];
  it.each(cases)('rejects %s', (_, options, field) => {
    const error = thrown(() => createSession(options as never));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(field);
  });
});

describe('session methods: bad input changes nothing', () => {
  async function committedSession() {
    const { session, store } = newSession({ context: { a: 1 } });
    await session.runTurn('x', echoModel);
    const before = {
      jsonl: session.log.toJSONL(),
      revision: session.revision,
      saved: await store.load(session.id),
    };
    const unchanged = async () => {
      expect(session.log.toJSONL()).toBe(before.jsonl);
      expect(session.revision).toBe(before.revision);
      expect(session.context).toEqual({ a: 1 });
      expect(await store.load(session.id)).toEqual(before.saved);
    };
    return { session, unchanged };
  }

  it('runTurn', async () => {
    const { session, unchanged } = await committedSession();
    const cases: Array<[unknown, unknown, unknown, string]> = [
      ['', echoModel, undefined, 'runTurn input'],
      [42, echoModel, undefined, 'runTurn input'],
      [[{ type: 'message', role: 'robot', content: 'x' }], echoModel, undefined, 'role'],
      ['x', 'model', undefined, 'modelCall'],
      ['x', echoModel, { turnId: '' }, 'turnId'],
      ['x', echoModel, { signal: true }, 'signal'],
      ['x', echoModel, { maxModelCalls: 0 }, 'maxModelCalls'],
      ['x', echoModel, { runid: 'r' }, 'runid'],
    ];
    for (const [input, model, options, field] of cases) {
      const error = await rejection(
        session.runTurn(input as never, model as never, options as never),
      );
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    }
    await unchanged();
  });

  it('interrupt, fork and updateContext', async () => {
    const { session, unchanged } = await committedSession();
    for (const [reason, field] of [
      ['', 'interrupt reason'],
      [7, 'interrupt reason'],
    ] as const) {
      const error = await rejection(session.interrupt(reason as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    }
    for (const [options, field] of [
      [{ id: 'x' }, 'id'],
      [{ context: [] }, 'context'],
      [{ parent: 1 }, 'parent'],
    ] as const) {
      const error = thrown(() => session.fork(options as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    }
    for (const [update, field] of [
      ['mood', 'updateContext update'],
      [{ callback: () => 1 }, 'callback'],
      [() => 'not an object', 'updateContext function'],
      [() => ({ bad: Number.NaN }), 'bad'],
    ] as const) {
      const error = await rejection(session.updateContext(update as never));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(field);
    }
    await unchanged();
  });

  it('rejects a clock that returns something other than a Date, saving nothing', async () => {
    const { session, store } = newSession({ now: (() => 'noon') as never });
    const error = await rejection(session.runTurn('x', echoModel));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('now');
    expect(session.log.size).toBe(0);
    expect(await store.list()).toEqual([]);
  });

  it('accepts the documented defaults', async () => {
    const store = createMemorySessionStore();
    const session = createSession({ store, now: fixedClock });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    await session.runTurn('x', echoModel);
    expect((await store.list())[0]?.sessionId).toBe(session.id);
  });
});

describe('compact and commitEpisodes: only a real session', () => {
  it('reject an object that only looks like a session (a copy, a proxy), storing nothing', async () => {
    const { session, store } = newSession();
    const lookalikes: unknown[] = [
      undefined,
      {},
      { ...session },
      Object.create(session),
      new Proxy(session, {}),
    ];
    const episode = {
      type: 'item',
      payload: { item: { type: 'message', role: 'user', content: 'x' } },
    };
    for (const value of lookalikes) {
      for (const [call, subject] of [
        [() => commitEpisodes(value as never, [episode as never]), 'commitEpisodes'],
        [() => compact(value as never, { summarize: () => 'summary' }), 'compact'],
      ] as const) {
        const error = await rejection(call());
        expect(error.code).toBe('VALIDATION_ERROR');
        expect(error.message).toContain(subject);
        expect(error.message).toContain('must be a session from createSession');
      }
    }
    expect(session.revision).toBe(0);
    expect(await store.list()).toEqual([]);
    // The real session itself is accepted.
    await commitEpisodes(session, [episode as never]);
    expect(session.revision).toBe(1);
  });
});
