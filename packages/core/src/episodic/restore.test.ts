import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Episode, MetaEpisode } from '../schema/index.js';
import { newEpisodeArbitrary } from './__fixtures__/arbitraries.js';
import { createEpisodic, createEpisodicFromParsed } from './create-episodic.js';

const clock = () => new Date('2026-02-03T12:00:00.000Z');
const line = (id: number, content = `m${id}`) =>
  JSON.stringify({
    id,
    type: 'item',
    meta: { source: 'user', ts: '2026-02-03T12:00:00.000Z' },
    payload: { item: { type: 'message', role: 'user', content } },
  });

function parseErrors(episodes: readonly Episode[]): MetaEpisode[] {
  return episodes.filter(
    (episode): episode is MetaEpisode =>
      episode.type === 'meta' && episode.payload.event === 'error.parse',
  );
}

describe('restore from JSONL', () => {
  it('round-trips a log exactly', () => {
    const log = createEpisodic(undefined, { now: clock });
    log.appendItems([{ type: 'message', role: 'user', content: 'hi' }], {
      source: 'user',
      turnId: 't',
    });
    log.append({ type: 'boundary', payload: { reason: 'interrupt', title: 'stopped' } });
    log.append({ type: 'meta', payload: { event: 'turn.usage', data: { inputTokens: 3 } } });
    const restored = createEpisodic(log.toJSONL(), { now: clock });
    expect(restored.toJSONL()).toBe(log.toJSONL());
    expect(restored.lastId).toBe(3);
  });

  it('re-numbers an id that is not above the previous one to previous + 1', () => {
    const restored = createEpisodic([line(5), line(3), line(3), line(9), line(9)].join('\n'));
    expect(restored.read({ fromId: 0 }).map((episode) => episode.id)).toEqual([5, 6, 7, 9, 10]);
  });

  it('survives a BOM, CRLF, blank lines and NUL padding without reporting them as errors', () => {
    const text = `\uFEFF${line(1)}\r\n\r\n   \n\0\0${line(2)}\0\n${line(3)}\r\n`;
    const restored = createEpisodic(text, { now: clock });
    expect(restored.read({ fromId: 0 }).map((episode) => episode.id)).toEqual([1, 2, 3]);
    expect(parseErrors(restored.read({ fromId: 0 }))).toEqual([]);
  });

  it('skips each damaged line and reports all of them in ONE error.parse episode naming line numbers', () => {
    const lines = [
      line(1),
      '{"id":2,"type":"item","payload":{"item":{"type":"mess', // cut mid-string
      '\0\0\0\0', // a NUL run
      '{"id":3,"type":"boundary","payload":{"reason":"nope","title":"x"}}', // valid JSON, not an episode
      '[1,2,3]', // valid JSON, not an object
      '{"id":4} {"id":5}', // two objects on one line
      line(6, 'lone \ud800 surrogate'), // still valid JSON
      '{"id":7,"type":"meta","payload":{"event":"x"}', // torn last line
    ];
    const restored = createEpisodic(lines.join('\n'), { now: clock });
    const episodes = restored.read({ fromId: 0 });
    expect(
      episodes.filter((episode) => episode.type !== 'meta').map((episode) => episode.id),
    ).toEqual([1, 6]);
    const errors = parseErrors(episodes);
    expect(errors).toHaveLength(1);
    const data = errors[0]?.payload.data as { count: number; errors: string[] };
    expect(data.count).toBe(6);
    expect(data.errors).toHaveLength(5);
    expect(data.errors.map((message) => message.match(/^line (\d+):/)?.[1])).toEqual([
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(data.errors[1]).toContain('NUL');
    expect(errors[0]?.id).toBe(7);
    expect(errors[0]?.meta.ts).toBe('2026-02-03T12:00:00.000Z');
  });

  it('reports bad array entries the same way and never throws', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const restored = createEpisodic([JSON.parse(line(1)), { type: 'oops' }, cyclic, null, 'x']);
    const errors = parseErrors(restored.read({ fromId: 0 }));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.payload.data).toMatchObject({ count: 4 });
    expect(restored.size).toBe(2);
  });

  it('property: createEpisodic(log.toJSONL()) round-trips any valid log', () => {
    fc.assert(
      fc.property(fc.array(newEpisodeArbitrary, { maxLength: 30 }), (episodes) => {
        const log = createEpisodic(undefined, { now: clock });
        for (const episode of episodes) log.append(episode);
        const restored = createEpisodic(log.toJSONL(), { now: clock });
        expect(restored.read({ fromId: 0 })).toEqual(log.read({ fromId: 0 }));
        expect(restored.toJSONL()).toBe(log.toJSONL());
      }),
      { numRuns: 200 },
    );
  });

  it('property: restoring arbitrarily damaged JSONL never throws and keeps every undamaged line', () => {
    const damage = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constant('\0'.repeat(16)),
      fc.constant('{"id":'),
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(
        fc.array(newEpisodeArbitrary, { minLength: 1, maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(), damage), { maxLength: 8 }),
        (episodes, insertions) => {
          const log = createEpisodic(undefined, { now: clock });
          for (const episode of episodes) log.append(episode);
          const good = log.toJSONL().trimEnd().split('\n');
          const lines = [...good];
          for (const [position, text] of insertions)
            lines.splice(position % (lines.length + 1), 0, text.replaceAll('\n', ' '));
          let restored: ReturnType<typeof createEpisodic> | undefined;
          expect(() => {
            restored = createEpisodic(lines.join('\n'), { now: clock });
          }).not.toThrow();
          const kept = (restored ? restored.read({ fromId: 0 }) : []).map((episode) =>
            JSON.stringify({ ...episode, id: 0 }),
          );
          // Every undamaged line is still there, in order (ids may be renumbered around inserted lines).
          let cursor = 0;
          for (const original of good) {
            const wanted = JSON.stringify({ ...JSON.parse(original), id: 0 });
            cursor = kept.indexOf(wanted, cursor);
            expect(cursor).toBeGreaterThanOrEqual(0);
            cursor++;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('restore from parsed values (a stored session, handed over by its store)', () => {
  it('property: restores exactly what createEpisodic restores from the same array, bad entries and all', () => {
    const entry = fc.oneof(
      newEpisodeArbitrary.map((episode) => ({
        ...episode,
        meta: { source: 'user', ...episode.meta },
      })),
      fc.jsonValue({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 25 }), (values) => {
        const parsed = () => JSON.parse(JSON.stringify(values)) as unknown[];
        const handed = createEpisodicFromParsed(parsed(), { now: clock });
        const copied = createEpisodic(parsed(), { now: clock });
        expect(handed.toJSONL()).toBe(copied.toJSONL());
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the values it was handed (no copy) and freezes them when read', () => {
    const value = JSON.parse(line(1)) as Record<string, unknown>;
    const log = createEpisodicFromParsed([value], { now: clock });
    const [episode] = log.read({ fromId: 0 });
    expect(episode).toBe(value);
    expect(Object.isFrozen(episode)).toBe(true);
  });
});

describe('restored episodes are immutable', () => {
  function isDeeplyFrozen(value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return true;
    return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
  }

  it('freezes every episode any read returns, whichever index serves it, in forks too', () => {
    const lines = Array.from({ length: 300 }, (_, index) =>
      JSON.stringify({
        id: index + 1,
        type: index % 10 === 9 ? 'meta' : index % 50 === 49 ? 'boundary' : 'item',
        meta: { source: 'user', turnId: `t-${Math.floor(index / 10)}`, extra: { nested: [index] } },
        payload:
          index % 10 === 9
            ? { event: 'turn.usage', data: { inputTokens: index } }
            : index % 50 === 49
              ? { reason: 'checkpoint', title: 't', content: 'c' }
              : { item: { type: 'message', role: 'user', content: `m${index}` } },
      }),
    );
    const queries = [
      undefined,
      { type: 'item' as const, limit: 40 },
      { type: ['boundary', 'meta'] as ('boundary' | 'meta')[], limit: 40 },
      { turnId: 't-3' },
      { turnId: 't-4', type: 'meta' as const },
      { fromId: 250 },
      { fromId: 0, limit: 1000 },
    ];
    for (const query of queries) {
      const log = createEpisodic(`${lines.join('\n')}\n`);
      const read = log.read(query);
      expect(read.length).toBeGreaterThan(0);
      expect(read.every(isDeeplyFrozen)).toBe(true);
      // A fork, and the flattening of a deep chain of forks, read before the log ever was.
      const fresh = createEpisodic(`${lines.join('\n')}\n`);
      let fork = fresh.fork();
      for (let depth = 0; depth < 20; depth++) {
        fork = fork.fork();
        fork.append({ type: 'meta', payload: { event: 'fork' } });
      }
      expect(fork.read({ ...query, fromId: 0, limit: 1000 }).every(isDeeplyFrozen)).toBe(true);
      expect(fresh.read(query).every(isDeeplyFrozen)).toBe(true);
    }
  });
});

describe('values JSON cannot distinguish', () => {
  it('stores -0 as 0, exactly as a restore reads it back', () => {
    const log = createEpisodic();
    const episode = log.append({
      type: 'meta',
      payload: { event: 'x', data: { zero: -0, list: [-0] } },
    });
    const data = (episode.payload as { data?: unknown }).data as { zero: number };
    expect(Object.is(data.zero, 0)).toBe(true);
    expect(createEpisodic(log.toJSONL()).read()).toEqual(log.read());
  });
});
