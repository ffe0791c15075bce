import { readFileSync } from 'node:fs';
import { createEpisodic, type Episode, type Episodic, type EpisodicQuery } from '@episodic/core';
import { ensureEpisodes } from '../data/datasets.js';
import { EPISODES_PER_TURN, episodesFrom } from '../data/episodes.js';
import { createRandom } from '../data/text.js';
import { alternate, check, compareRow, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { LatencyRecorder, nowMicros, quantile } from '../lib/stats.js';

type EpisodeType = Episode['type'];

/** The research M1–M4 probe: a plain array with a per-type position index and per-turn positions. */
class ArrayLogProbe {
  readonly episodes: Array<Record<string, unknown>> = [];
  readonly byType: Record<EpisodeType, number[]> = { boundary: [], item: [], meta: [] };
  readonly byTurn = new Map<string, number[]>();

  push(episode: Record<string, unknown>): void {
    const position = this.episodes.length;
    this.episodes.push(episode);
    this.byType[episode.type as EpisodeType].push(position);
    const turnId = (episode.meta as { turnId?: string }).turnId;
    if (turnId !== undefined) {
      const positions = this.byTurn.get(turnId);
      if (positions === undefined) this.byTurn.set(turnId, [position]);
      else positions.push(position);
    }
  }

  latestOfTypes(types: readonly EpisodeType[], limit: number): unknown[] {
    if (types.length === 1) {
      const positions = this.byType[types[0] as EpisodeType];
      return positions.slice(-limit).map((position) => this.episodes[position]);
    }
    const merged: number[] = [];
    for (const type of types) merged.push(...this.byType[type].slice(-limit));
    merged.sort((left, right) => left - right);
    return merged.slice(-limit).map((position) => this.episodes[position]);
  }

  turn(turnId: string): unknown[] {
    return (this.byTurn.get(turnId) ?? []).map((position) => this.episodes[position]);
  }

  after(fromId: number, limit: number): unknown[] {
    // Ids are positions + 1 here; newest `limit` above fromId.
    const start = Math.max(fromId, this.episodes.length - limit);
    return this.episodes.slice(start);
  }

  fork(): { base: ArrayLogProbe; baseLength: number; own: unknown[] } {
    return { base: this, baseLength: this.episodes.length, own: [] };
  }
}

function perOp(count: number, run: () => void): Round {
  const start = nowMicros();
  run();
  return { value: (nowMicros() - start) / count };
}

function latencyRound(count: number, operation: (index: number) => unknown): Round {
  const latencies = new LatencyRecorder(count);
  for (let index = 0; index < count; index++) {
    const before = nowMicros();
    operation(index);
    latencies.add(nowMicros() - before);
  }
  const values = latencies.toArray();
  return { value: quantile(Float64Array.from(values).sort(), 0.99), latencies: values };
}

export const episodicLogModule: RowModule = {
  id: 'episodic-log',
  rows: [
    'episodic.append',
    'episodic.read.type-common',
    'episodic.read.type-rare',
    'episodic.read.two-types',
    'episodic.read.turn',
    'episodic.read.from-id',
    'episodic.fork',
    'episodic.restore',
  ],
  needs: ['episodes'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const dataset = await ensureEpisodes(context);
    const { rounds, warmup } = context.sizes;
    const rows: RowResult[] = [];
    const size = `${formatCount(dataset.episodes)} episodes (~150 B each as JSON)`;

    // --- append, validated ------------------------------------------------------------------------
    {
      const count = context.quick ? 100_000 : 500_000;
      const inputs = episodesFrom(0, count);
      const product = (): Round => {
        const log = createEpisodic();
        return perOp(count, () => {
          for (const input of inputs) log.append(input);
        });
      };
      const probe = (): Round => {
        const log = new ArrayLogProbe();
        return perOp(count, () => {
          let id = 0;
          for (const input of inputs) {
            const meta = input.meta ?? {};
            log.push({
              id: ++id,
              type: input.type,
              meta: { source: meta.source ?? 'runtime', turnId: meta.turnId, ts: Date.now() },
              payload: input.payload,
            });
          }
        });
      };
      const measured = await alternate({ rounds, warmup, product, probe });
      rows.push(
        compareRow(
          {
            id: 'episodic.append',
            area: 'episodic log',
            title: 'append one episode, validated',
            durability: 'in memory',
            mode: 'in memory',
            dataset: `${formatCount(count)} appends per round into a new log`,
            product: 'log.append(episode): compiled zod check, frozen JSON copy, ts stamp, indexes',
            probe: 'push a plain object onto an array + per-type and per-turn position index',
            metric: { name: 'time per append', unit: 'µs', better: 'lower' },
            target: 'append ≤ 1 µs validated (absolute bound in QUALITY.md)',
          },
          measured,
          (row) => [
            check(
              'µs per append ≤ 1',
              row.productResult?.metric.median ?? Number.NaN,
              '<=',
              1,
              'absolute',
            ),
          ],
        ),
      );
    }

    // --- restore from JSONL -------------------------------------------------------------------------
    const jsonl = readFileSync(dataset.path, 'utf8');
    {
      const product = (): Round => {
        const start = nowMicros();
        const log = createEpisodic(jsonl);
        const elapsed = nowMicros() - start;
        if (log.size !== dataset.episodes) throw new Error(`restored ${log.size} episodes`);
        return { value: dataset.episodes / (elapsed / 1e6) };
      };
      const probe = (): Round => {
        const start = nowMicros();
        const log = new ArrayLogProbe();
        let position = 0;
        while (position < jsonl.length) {
          let end = jsonl.indexOf('\n', position);
          if (end === -1) end = jsonl.length;
          if (end > position) log.push(JSON.parse(jsonl.slice(position, end)));
          position = end + 1;
        }
        const elapsed = nowMicros() - start;
        if (log.episodes.length !== dataset.episodes) throw new Error('probe restored too few');
        return { value: dataset.episodes / (elapsed / 1e6) };
      };
      const measured = await alternate({ rounds, warmup, product, probe });
      rows.push(
        compareRow(
          {
            id: 'episodic.restore',
            area: 'episodic log',
            title: 'restore a log from JSONL',
            durability: 'in memory',
            mode: 'in memory',
            dataset: size,
            product:
              'createEpisodic(jsonl): tolerant line split, JSON.parse, compiled check, id repair, indexes',
            probe: 'indexOf("\\n") split + JSON.parse + push + per-type and per-turn index',
            metric: { name: 'throughput', unit: 'episodes/s', better: 'higher' },
            target: '≥ 0.75× probe',
          },
          measured,
          (row) => [check('throughput ratio ≥ 0.75', row.ratio?.median ?? Number.NaN, '>=', 0.75)],
        ),
      );
    }

    // --- filtered reads and fork on the full log ------------------------------------------------------
    const log: Episodic = createEpisodic(jsonl);
    const probeLog = new ArrayLogProbe();
    for (const line of jsonl.split('\n')) if (line !== '') probeLog.push(JSON.parse(line));
    const turns = Math.ceil(dataset.episodes / EPISODES_PER_TURN);
    const queries = context.quick ? 2000 : 5000;
    const random = createRandom(11);
    const turnIds = Array.from({ length: queries }, () => `t-${Math.floor(random() * turns)}`);
    const fromIds = Array.from({ length: queries }, () =>
      Math.floor(random() * (dataset.episodes - 200)),
    );
    const readRows: Array<{
      id: string;
      title: string;
      product: (index: number) => unknown;
      probe: (index: number) => unknown;
      query: string;
    }> = [
      {
        id: 'episodic.read.type-common',
        title: 'latest 100 of a common type (item, 9 in 10)',
        query: "read({ type: 'item', limit: 100 })",
        product: () => log.read({ type: 'item', limit: 100 }),
        probe: () => probeLog.latestOfTypes(['item'], 100),
      },
      {
        id: 'episodic.read.type-rare',
        title: 'latest 100 of a rare type (boundary, 1 in 100)',
        query: "read({ type: 'boundary', limit: 100 })",
        product: () => log.read({ type: 'boundary', limit: 100 }),
        probe: () => probeLog.latestOfTypes(['boundary'], 100),
      },
      {
        id: 'episodic.read.two-types',
        title: 'latest 100 of two types (boundary + meta)',
        query: "read({ type: ['boundary', 'meta'], limit: 100 })",
        product: () => log.read({ type: ['boundary', 'meta'], limit: 100 } as EpisodicQuery),
        probe: () => probeLog.latestOfTypes(['boundary', 'meta'], 100),
      },
      {
        id: 'episodic.read.turn',
        title: 'every episode of a random turn',
        query: 'read({ turnId })',
        product: (index) => log.read({ turnId: turnIds[index] as string }),
        probe: (index) => probeLog.turn(turnIds[index] as string),
      },
      {
        id: 'episodic.read.from-id',
        title: 'newest 100 after a random id',
        query: 'read({ fromId, limit: 100 })',
        product: (index) => log.read({ fromId: fromIds[index] as number, limit: 100 }),
        probe: (index) => probeLog.after(fromIds[index] as number, 100),
      },
    ];
    for (const spec of readRows) {
      // Restored episodes are frozen on their first read: one pass over every query first, so
      // the rounds measure steady-state reads.
      for (let index = 0; index < queries; index++) spec.product(index);
      const measured = await alternate({
        rounds,
        warmup,
        product: () => latencyRound(queries, spec.product),
        probe: () => latencyRound(queries, spec.probe),
      });
      rows.push(
        compareRow(
          {
            id: spec.id,
            area: 'episodic log',
            title: spec.title,
            durability: 'in memory',
            mode: 'in memory',
            dataset: size,
            product: `log.${spec.query} (validated query, frozen results)`,
            probe: 'per-type / per-turn position arrays sliced directly',
            metric: { name: 'p99 per read', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target: 'filtered read p99 ≤ 5 µs (absolute bound in QUALITY.md)',
          },
          measured,
          (row) => [
            check(
              'p99 ≤ 5 µs',
              row.productResult?.metric.median ?? Number.NaN,
              '<=',
              5,
              'absolute',
            ),
          ],
          [
            `${formatCount(queries)} reads per round; timer overhead (~0.1 µs) included on both sides`,
          ],
        ),
      );
    }

    {
      const forks = context.quick ? 2000 : 10_000;
      const measured = await alternate({
        rounds,
        warmup,
        product: () => latencyRound(forks, () => log.fork()),
        probe: () => latencyRound(forks, () => probeLog.fork()),
      });
      rows.push(
        compareRow(
          {
            id: 'episodic.fork',
            area: 'episodic log',
            title: `fork a log of ${formatCount(dataset.episodes)} episodes`,
            durability: 'in memory',
            mode: 'in memory',
            dataset: size,
            product: 'log.fork(): a new log sharing the history (structural sharing)',
            probe: 'an overlay object { base, baseLength, own: [] }',
            metric: { name: 'p99 per fork', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target: 'fork ≤ 10 µs at any size (absolute bound in QUALITY.md)',
          },
          measured,
          (row) => [
            check(
              'p99 ≤ 10 µs',
              row.productResult?.metric.median ?? Number.NaN,
              '<=',
              10,
              'absolute',
            ),
          ],
        ),
      );
    }
    return rows;
  },
};
