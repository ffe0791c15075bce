import { createPostgresStore, type PostgresStore } from '@episodic/store-postgres';
import pg from 'pg';
import { createRandom, prose } from '../data/text.js';
import { benchServer, serverName } from '../lib/bench-postgres.js';
import { type BenchEpisode, BenchSession, messageEpisode } from '../lib/bench-session.js';
import { alternate, check, compareRow, type Round } from '../lib/compare.js';
import { type BenchContext, formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { LatencyRecorder, nowMicros, quantile } from '../lib/stats.js';

// Above the size up to which the default fold policy folds every commit (1 MiB): the commit
// rows measure the amortized regime.
const SMALL_EPISODES = 10_000;
const SMALL_ID = '0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f';
const LARGE_ID = '1c2d3e4f-5061-4728-9930-4b5c6d7e8f90';

/** A session whose log holds `count` episodes (alternating user and assistant messages). */
function sessionOf(id: string, count: number, seed: number): BenchSession {
  const random = createRandom(seed);
  const episodes: BenchEpisode[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const role = index % 2 === 0 ? 'user' : 'assistant';
    episodes[index] = messageEpisode(index + 1, role, prose(random, role === 'user' ? 60 : 120));
  }
  return new BenchSession(id, episodes, seed + 1);
}

/** Commits `count` turns through the product; per-commit latencies and commits per second. */
async function commitRound(
  store: PostgresStore,
  session: BenchSession,
  count: number,
  metric: 'throughput' | 'p50',
): Promise<Round> {
  const latencies = new LatencyRecorder(count);
  const start = nowMicros();
  for (let index = 0; index < count; index++) {
    const delta = session.nextTurn();
    const before = nowMicros();
    await store.sessions.commit({
      sessionId: session.id,
      expectedRevision: delta.revision - 1,
      delta,
    });
    latencies.add(nowMicros() - before);
  }
  const values = latencies.toArray();
  return {
    value:
      metric === 'throughput'
        ? count / ((nowMicros() - start) / 1e6)
        : quantile(Float64Array.from(values).sort(), 0.5),
    latencies: values,
  };
}

export const postgresSessionsModule: RowModule = {
  id: 'postgres-sessions',
  rows: ['postgres.session.commit', 'postgres.session.commit.size-independence'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const { rounds, warmup } = context.sizes;
    const largeEpisodes = context.sizes.episodes;
    const commits = context.quick ? 300 : 2000;
    const rows: RowResult[] = [];
    const { url, server } = await benchServer();
    const where = serverName(server);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const store = await createPostgresStore({ connectionString: url, schema: 'bench_sessions' });
    try {
      const small = sessionOf(SMALL_ID, SMALL_EPISODES, 11);
      const large = sessionOf(LARGE_ID, largeEpisodes, 23);
      context.log(
        `saving a ${formatCount(SMALL_EPISODES)}- and a ${formatCount(largeEpisodes)}-episode session into PostgreSQL…`,
      );
      for (const session of [small, large]) {
        await store.sessions.delete(session.id);
        await store.sessions.save(session.state(), { expectedRevision: null });
      }
      const stored = await client.query<{ session_id: string; bytes: string }>(
        'SELECT session_id, octet_length(state_json)::bigint AS bytes FROM bench_sessions.episodic_sessions',
      );
      const bytesOf = (id: string) =>
        Number(stored.rows.find((row) => row.session_id === id)?.bytes ?? Number.NaN);
      const baseSizes = `bases of ${(bytesOf(SMALL_ID) / 1e6).toFixed(1)} MB and ${(bytesOf(LARGE_ID) / 1e6).toFixed(0)} MB (episodes and seed 001 messages)`;

      // The probe: one prepared INSERT of the same JSON line into a table keyed like the deltas.
      await client.query(`DROP TABLE IF EXISTS bench_sessions.probe_rows;
CREATE TABLE bench_sessions.probe_rows (session_id TEXT COLLATE "C" NOT NULL, revision BIGINT NOT NULL, line TEXT NOT NULL, PRIMARY KEY (session_id, revision))`);
      const probeSession = sessionOf(SMALL_ID, 0, 11);
      const probeRound = async (): Promise<Round> => {
        const latencies = new LatencyRecorder(commits);
        const start = nowMicros();
        for (let index = 0; index < commits; index++) {
          const delta = probeSession.nextTurn();
          const before = nowMicros();
          await client.query({
            name: 'probe_session_line',
            text: 'INSERT INTO bench_sessions.probe_rows (session_id, revision, line) VALUES ($1, $2, $3)',
            values: [probeSession.id, delta.revision, JSON.stringify(delta)],
          });
          latencies.add(nowMicros() - before);
        }
        return { value: commits / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
      };
      rows.push(
        compareRow(
          {
            id: 'postgres.session.commit',
            mode: 'commit per turn',
            area: 'PostgreSQL store',
            title: `commit a turn (2 episodes) to a ${formatCount(SMALL_EPISODES)}-episode session`,
            durability: `each commit committed (synchronous_commit on), ${where}`,
            dataset: `${formatCount(commits)} turns per round; ${baseSizes}`,
            product:
              'await sessions.commit({ expectedRevision, delta }): validation, encoding, one statement (compare-and-set of the sizes row + the delta row), folds by the default policy',
            probe:
              'raw pg.Client: one prepared INSERT of the same JSON line (autocommit) into a table keyed like the delta rows',
            metric: { name: 'throughput', unit: 'commits/s', better: 'higher' },
            latencyUnit: 'µs',
            target: '≥ 0.5× probe',
          },
          await alternate({
            rounds,
            warmup,
            product: () => commitRound(store, small, commits, 'throughput'),
            probe: probeRound,
          }),
          (row) => [check('throughput ratio ≥ 0.5', row.ratio?.median ?? Number.NaN, '>=', 0.5)],
        ),
      );

      rows.push(
        compareRow(
          {
            id: 'postgres.session.commit.size-independence',
            mode: 'commit per turn',
            area: 'PostgreSQL store',
            title: `a turn's commit on a ${formatCount(largeEpisodes)}-episode session vs a ${formatCount(SMALL_EPISODES)}-episode one`,
            durability: `each commit committed, ${where}`,
            dataset: `${formatCount(commits)} turns per round on each; ${baseSizes}`,
            product: `sessions.commit on the ${formatCount(largeEpisodes)}-episode session`,
            probe: `sessions.commit on the ${formatCount(SMALL_EPISODES)}-episode session (the product against itself)`,
            metric: { name: 'p50 time per commit', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target: `independent of session size (${formatCount(largeEpisodes)} / ${formatCount(SMALL_EPISODES)} ≤ 1.5)`,
          },
          await alternate({
            rounds,
            warmup,
            product: () => commitRound(store, large, commits, 'p50'),
            probe: () => commitRound(store, small, commits, 'p50'),
          }),
          (row) => [check('large / small ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
          [
            'the small session folds by the default policy (deltas as large as its base) every few hundred commits; p50 leaves those folds out, the p99 shows them',
          ],
        ),
      );
    } finally {
      await store.close();
      await client.end();
      await server?.destroy();
    }
    return rows;
  },
};
