import { describe, expect, it } from 'vitest';
import { thrownError } from '../__fixtures__/episodic-errors.js';
import type { Episode, NewEpisode } from '../schema/index.js';
import { createEpisodic } from './create-episodic.js';

const fixedClock = () => new Date('2026-02-03T12:00:00.000Z');
const user = (content: string, turnId?: string): NewEpisode => ({
  type: 'item',
  meta: { source: 'user', ...(turnId ? { turnId } : {}) },
  payload: { item: { type: 'message', role: 'user', content } },
});

describe('createEpisodic: append', () => {
  it('assigns integer ids from 1, defaults source to runtime and stamps ts with the injected clock', () => {
    const log = createEpisodic(undefined, { now: fixedClock });
    const first = log.append({ type: 'boundary', payload: { reason: 'segment', title: 'start' } });
    const second = log.append(user('hi'));
    expect(first).toEqual({
      id: 1,
      type: 'boundary',
      meta: { source: 'runtime', ts: '2026-02-03T12:00:00.000Z' },
      payload: { reason: 'segment', title: 'start' },
    });
    expect(second.id).toBe(2);
    expect(second.meta.source).toBe('user');
    expect(log.size).toBe(2);
    expect(log.lastId).toBe(2);
  });

  it('stamps ts from the system clock when no clock is injected', () => {
    const log = createEpisodic();
    const before = Date.now();
    const episode = log.append(user('x'));
    const stamped = Date.parse(episode.meta.ts as string);
    expect(episode.meta.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });

  it('stores a deep, frozen copy: meta keeps its key order and extra keys, metadata is copied', () => {
    const log = createEpisodic(undefined, { now: fixedClock });
    const input = {
      type: 'meta' as const,
      meta: { turnId: 't1', trace: { span: 's1', tags: ['a'] }, source: undefined },
      payload: { event: 'x', data: { nested: [{ deep: 1 }] } },
      metadata: { project: 'p', tags: ['one'] },
    };
    const stored = log.append(input as unknown as NewEpisode);
    expect(Object.keys(stored.meta)).toEqual(['turnId', 'trace', 'source', 'ts']);
    expect(stored.meta).toEqual({
      turnId: 't1',
      trace: { span: 's1', tags: ['a'] },
      source: 'runtime',
      ts: '2026-02-03T12:00:00.000Z',
    });
    input.meta.trace.tags.push('b');
    input.payload.data.nested[0] = { deep: 2 };
    input.metadata.tags.push('two');
    expect(stored.meta).toMatchObject({ trace: { tags: ['a'] } });
    expect(stored.payload).toEqual({ event: 'x', data: { nested: [{ deep: 1 }] } });
    expect(stored.metadata).toEqual({ project: 'p', tags: ['one'] });
    for (const part of [
      stored,
      stored.meta,
      (stored.meta as unknown as { trace: object }).trace,
      stored.payload,
      (stored.payload as unknown as { data: object }).data,
      stored.metadata,
      stored.metadata?.tags,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(log.toJSONL()).toBe(`${JSON.stringify(stored)}\n`);
  });

  it('keeps a ts the caller gives', () => {
    const log = createEpisodic(undefined, { now: fixedClock });
    const episode = log.append({
      ...user('x'),
      meta: { source: 'user', ts: '2025-01-01T00:00:00.000Z' },
    });
    expect(episode.meta.ts).toBe('2025-01-01T00:00:00.000Z');
  });

  it('accepts unknown item types and keeps unknown fields of known ones', () => {
    const log = createEpisodic();
    const custom = log.append({
      type: 'item',
      payload: { item: { type: 'web_search_call', query: 'x', status: 'completed' } },
    });
    const message = log.append({
      type: 'item',
      payload: { item: { type: 'message', role: 'assistant', content: 'ok', status: 'completed' } },
    });
    expect(custom.payload).toEqual({
      item: { type: 'web_search_call', query: 'x', status: 'completed' },
    });
    expect(message.type === 'item' && message.payload.item).toMatchObject({ status: 'completed' });
  });

  it('records metadata on episodes and rejects more than 10 keys', () => {
    const log = createEpisodic();
    const episode = log.append({
      ...user('x'),
      metadata: { project: 'apollo', priority: 5, tags: ['a', 'b'] },
    });
    expect(episode.metadata).toEqual({ project: 'apollo', priority: 5, tags: ['a', 'b'] });
    const tooMany = Object.fromEntries(
      Array.from({ length: 11 }, (_, index) => [`k${index}`, index]),
    );
    const error = thrownError(() => log.append({ ...user('y'), metadata: tooMany }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('at most 10 keys');
    expect(log.size).toBe(1);
  });

  it.each([
    ['an unknown type', { type: 'note', payload: {} }, 'type'],
    [
      'an unknown boundary reason',
      { type: 'boundary', payload: { reason: 'pause', title: 't' } },
      'payload.reason',
    ],
    [
      'a checkpoint without content',
      { type: 'boundary', payload: { reason: 'checkpoint', title: 't' } },
      'payload.content',
    ],
    [
      'an intent confidence above 1',
      { type: 'boundary', payload: { reason: 'intent', title: 't', confidence: 2 } },
      'payload.confidence',
    ],
    [
      'an item without a type',
      { type: 'item', payload: { item: { role: 'user', content: 'x' } } },
      'payload.item.type',
    ],
    [
      'a function call without a call_id',
      { type: 'item', payload: { item: { type: 'function_call', name: 'x', arguments: '{}' } } },
      'payload.item.call_id',
    ],
    [
      'a message with an unknown role',
      { type: 'item', payload: { item: { type: 'message', role: 'robot', content: 'x' } } },
      'payload.item.role',
    ],
    [
      'an unknown source',
      { type: 'meta', meta: { source: 'cron' }, payload: { event: 'x' } },
      'meta.source',
    ],
    ['a caller-chosen id', { id: 7, type: 'meta', payload: { event: 'x' } }, 'id'],
    [
      'a ts that is not ISO-8601 UTC',
      { type: 'meta', meta: { ts: 'yesterday' }, payload: { event: 'x' } },
      'meta.ts',
    ],
    [
      'a value JSON cannot hold',
      { type: 'meta', payload: { event: 'x', data: { at: new Date(0) } } },
      'payload.data.at',
    ],
    [
      'a non-finite number',
      { type: 'meta', payload: { event: 'x', data: [1, Number.NaN] } },
      'payload.data[1]',
    ],
  ])('rejects %s with a VALIDATION_ERROR naming %s, and changes nothing', (_name, input, field) => {
    const log = createEpisodic(undefined, { now: fixedClock });
    log.append(user('before'));
    const before = log.toJSONL();
    const error = thrownError(() => log.append(input as NewEpisode));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(field);
    expect(error.message).toMatch(/nothing was changed/);
    expect((error.details.issues as Array<{ field: string }>)[0]?.field).toBe(field);
    expect(log.toJSONL()).toBe(before);
    expect(log.append(user('after')).id).toBe(2);
  });

  it('appendItems appends every item with the shared meta, or none of them', () => {
    const log = createEpisodic();
    const appended = log.appendItems(
      [
        { type: 'function_call', call_id: 'c1', name: 'calc', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: '2' },
      ],
      { source: 'tool', turnId: 't1' },
    );
    expect(
      appended.map((episode) => [episode.id, episode.meta.source, episode.meta.turnId]),
    ).toEqual([
      [1, 'tool', 't1'],
      [2, 'tool', 't1'],
    ]);
    const error = thrownError(() =>
      log.appendItems([
        { type: 'message', role: 'user', content: 'ok' },
        { type: 'function_call' } as never,
      ]),
    );
    expect(error.message).toContain('item 1');
    expect(log.size).toBe(2);
  });

  it('never lets a caller change the log: not through a read, not through the object it appended', () => {
    const log = createEpisodic();
    const input = {
      type: 'item' as const,
      payload: { item: { type: 'message', role: 'user', content: 'original' } },
    };
    const stored = log.append(input as NewEpisode);
    input.payload.item.content = 'changed';
    const [read] = log.read();
    expect(read?.type === 'item' && read.payload.item).toMatchObject({ content: 'original' });
    expect(Object.isFrozen(read)).toBe(true);
    expect(() => {
      (read as { payload: { item: { content: string } } }).payload.item.content = 'hacked';
    }).toThrow(TypeError);
    expect(() => {
      (stored as { id: number }).id = 99;
    }).toThrow(TypeError);
    expect(log.read()[0]).toEqual(stored);
  });

  it('rejects a clock that does not return a Date', () => {
    const log = createEpisodic(undefined, { now: () => 'noon' as unknown as Date });
    expect(thrownError(() => log.append(user('x'))).code).toBe('VALIDATION_ERROR');
    expect(log.size).toBe(0);
  });
});

describe('createEpisodic: read', () => {
  function sampleLog(count: number) {
    const log = createEpisodic(undefined, { now: fixedClock });
    for (let index = 1; index <= count; index++) {
      if (index % 10 === 0)
        log.append({
          type: 'boundary',
          meta: { turnId: `t${index % 3}` },
          payload: { reason: 'checkpoint', title: `c${index}`, content: 'summary' },
        });
      else if (index % 7 === 0)
        log.append({
          type: 'meta',
          meta: { turnId: `t${index % 3}` },
          payload: { event: 'turn.usage', data: { inputTokens: index } },
        });
      else log.append(user(`m${index}`, `t${index % 3}`));
    }
    return log;
  }
  const ids = (episodes: readonly Episode[]) => episodes.map((episode) => episode.id);

  it('returns the latest 100 in ascending order when called without a query (or with {})', () => {
    const log = sampleLog(150);
    expect(ids(log.read())).toEqual(Array.from({ length: 100 }, (_, index) => index + 51));
    expect(ids(log.read({}))).toEqual(ids(log.read()));
  });

  it('treats fromId as exclusive and fromId 0 as the whole log', () => {
    const log = sampleLog(150);
    expect(log.read({ fromId: 0 })).toHaveLength(150);
    expect(ids(log.read({ fromId: 145 }))).toEqual([146, 147, 148, 149, 150]);
    expect(log.read({ fromId: 150 })).toEqual([]);
  });

  it('filters by one type or several, and by turn', () => {
    const log = sampleLog(150);
    expect(ids(log.read({ type: 'boundary', fromId: 0 }))).toEqual([
      10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150,
    ]);
    expect(ids(log.read({ type: ['meta', 'boundary'], limit: 4 }))).toEqual([133, 140, 147, 150]);
    const turn = log.read({ turnId: 't1' });
    expect(turn.every((episode) => episode.meta.turnId === 't1')).toBe(true);
    expect(turn).toHaveLength(50);
  });

  it('applies limit after the filters and keeps the newest', () => {
    const log = sampleLog(150);
    expect(ids(log.read({ type: 'boundary', limit: 3 }))).toEqual([130, 140, 150]);
    expect(ids(log.read({ turnId: 't0', type: 'item', limit: 2 }))).toEqual([141, 144]);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5])(
    'returns [] for limit %s',
    (limit) => {
      expect(sampleLog(20).read({ limit })).toEqual([]);
    },
  );

  it('rejects unknown query keys and bad values with a VALIDATION_ERROR', () => {
    const log = sampleLog(5);
    expect(thrownError(() => log.read({ types: 'item' } as never)).message).toContain('types');
    expect(thrownError(() => log.read({ type: 'event' } as never)).message).toContain('type');
    expect(thrownError(() => log.read({ fromId: -1 })).message).toContain('fromId');
  });
});

describe('createEpisodic: fork', () => {
  it('shares committed history and appends independently on both sides', () => {
    const log = createEpisodic();
    log.append(user('one'));
    const fork = log.fork();
    log.append(user('two (source)'));
    fork.append(user('two (fork)'));
    fork.append(user('three (fork)'));
    const contents = (episodes: readonly Episode[]) =>
      episodes.map((episode) =>
        episode.type === 'item' ? (episode.payload.item as { content: string }).content : '',
      );
    expect(contents(log.read({ fromId: 0 }))).toEqual(['one', 'two (source)']);
    expect(contents(fork.read({ fromId: 0 }))).toEqual(['one', 'two (fork)', 'three (fork)']);
    expect(fork.lastId).toBe(3);
    expect(log.lastId).toBe(2);
  });

  it('stays correct through long chains of forks (which flatten past 16 levels)', () => {
    let log = createEpisodic();
    for (let generation = 0; generation < 40; generation++) {
      log.append(user(`g${generation}`, `t${generation % 4}`));
      log = log.fork();
    }
    expect(log.size).toBe(40);
    expect(log.read({ fromId: 0 }).map((episode) => episode.id)).toEqual(
      Array.from({ length: 40 }, (_, index) => index + 1),
    );
    expect(log.read({ turnId: 't2' })).toHaveLength(10);
  });
});

describe('createEpisodic: initial values', () => {
  it('restores from an array keeping ids and continues from the max', () => {
    const source = createEpisodic(undefined, { now: fixedClock });
    source.append(user('a'));
    source.append(user('b'));
    const episodes = source
      .read({ fromId: 0 })
      .map((episode, index) => ({ ...episode, id: (index + 1) * 10 }));
    const restored = createEpisodic(episodes);
    expect(restored.read({ fromId: 0 }).map((episode) => episode.id)).toEqual([10, 20]);
    expect(restored.append(user('c')).id).toBe(21);
  });

  it('restoring from an array renumbers an id that is not above the previous one, as the README says', () => {
    const source = createEpisodic(undefined, { now: fixedClock });
    for (const text of ['a', 'b', 'c', 'd']) source.append(user(text));
    const episodes = source
      .read({ fromId: 0 })
      .map((episode, index) => ({ ...episode, id: [5, 3, 5, 9][index] }));
    const restored = createEpisodic(episodes);
    // 3 and the second 5 are not above their predecessor: they become previous + 1, exactly as a
    // JSONL restore does; every other id is kept, and the log continues after the last one.
    expect(restored.read({ fromId: 0 }).map((episode) => episode.id)).toEqual([5, 6, 7, 9]);
    const jsonl = episodes.map((episode) => JSON.stringify(episode)).join('\n');
    expect(
      createEpisodic(jsonl)
        .read({ fromId: 0 })
        .map((episode) => episode.id),
    ).toEqual([5, 6, 7, 9]);
    expect(restored.append(user('e')).id).toBe(10);
  });

  it('rejects an initial value that is neither JSONL nor an array', () => {
    expect(thrownError(() => createEpisodic(42 as never)).code).toBe('VALIDATION_ERROR');
    expect(
      thrownError(() => createEpisodic(undefined, { clock: fixedClock } as never)).message,
    ).toContain('clock');
  });
});
