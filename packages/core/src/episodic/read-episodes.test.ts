import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Episode, EpisodeType } from '../schema/index.js';
import { newEpisodeArbitrary } from './__fixtures__/arbitraries.js';
import { createEpisodic, type Episodic } from './create-episodic.js';

// Model-based: the indexed, fork-sharing read must agree with a naive filter over a plain array
// for every query, after any interleaving of appends and forks.

type Command =
  | { kind: 'append'; episode: Parameters<Episodic['append']>[0]; target: number }
  | { kind: 'fork'; target: number };

const query = fc.record(
  {
    fromId: fc.nat({ max: 60 }),
    limit: fc.oneof(fc.integer({ min: -2, max: 70 }), fc.constant(Number.NaN)),
    type: fc.oneof(
      fc.constantFrom<EpisodeType>('item', 'boundary', 'meta'),
      fc.uniqueArray(fc.constantFrom<EpisodeType>('item', 'boundary', 'meta'), {
        minLength: 1,
        maxLength: 3,
      }),
    ),
    turnId: fc.constantFrom('turn-a', 'turn-b', 'turn-c', 'turn-z'),
  },
  { requiredKeys: [] },
);

function naive(
  all: readonly Episode[],
  q: (typeof query extends fc.Arbitrary<infer Q> ? Q : never) | undefined,
): Episode[] {
  if (q === undefined || Object.keys(q).length === 0) return all.slice(-100);
  if (q.limit !== undefined && (!Number.isFinite(q.limit) || q.limit < 1)) return [];
  const types = q.type === undefined ? null : new Set(Array.isArray(q.type) ? q.type : [q.type]);
  const matching = all.filter(
    (episode) =>
      episode.id > (q.fromId ?? 0) &&
      (types === null || types.has(episode.type)) &&
      (q.turnId === undefined || episode.meta.turnId === q.turnId),
  );
  return q.limit === undefined ? matching : matching.slice(-Math.floor(q.limit));
}

describe('read() agrees with a naive filter', () => {
  it('for any appends, forks and queries', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            {
              weight: 8,
              arbitrary: fc.record({
                kind: fc.constant('append' as const),
                episode: newEpisodeArbitrary,
                target: fc.nat(),
              }),
            },
            {
              weight: 1,
              arbitrary: fc.record({ kind: fc.constant('fork' as const), target: fc.nat() }),
            },
          ),
          { maxLength: 60 },
        ),
        fc.array(fc.option(query, { nil: undefined }), { minLength: 1, maxLength: 6 }),
        (commands: Command[], queries) => {
          // Appends go to any log ever forked, so sources keep growing after their forks: a fork
          // must never see its source's later appends, nor a source its fork's.
          const logs: Array<{ log: Episodic; model: Episode[] }> = [
            { log: createEpisodic(), model: [] },
          ];
          for (const command of commands) {
            const target = logs[command.target % logs.length] as {
              log: Episodic;
              model: Episode[];
            };
            if (command.kind === 'fork')
              logs.push({ log: target.log.fork(), model: [...target.model] });
            else target.model.push(target.log.append(command.episode));
          }
          for (const { log, model } of logs) {
            for (const q of queries) expect(log.read(q)).toEqual(naive(model, q));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('uses the indexes at scale: a rare type among 200k episodes', () => {
    const log = createEpisodic();
    for (let index = 0; index < 200_000; index++) {
      if (index === 1234)
        log.append({
          type: 'boundary',
          payload: { reason: 'checkpoint', title: 'only one', content: 'c' },
        });
      else
        log.appendItems([{ type: 'message', role: 'user', content: `m${index}` }], {
          turnId: `t${index >> 8}`,
        });
    }
    expect(log.read({ type: 'boundary' }).map((episode) => episode.id)).toEqual([1235]);
    expect(log.read({ turnId: 't3' })).toHaveLength(256);
    expect(log.read({ fromId: 199_990 })).toHaveLength(10);
    expect(log.fork().read({ type: 'meta' })).toEqual([]);
  });
});
