import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureLedger } from '../data/datasets.js';
import { MAIN_SCOPE, mainScopeSessions } from '../data/ledger-events.js';
import {
  alternate,
  check,
  compareRow,
  type Round,
  type RowSpec,
  unavailableRow,
} from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { coldStartEnvironment, firstLineOf, timeNode } from '../lib/spawn.js';
import { median } from '../lib/stats.js';

const COLD = 'spawned processes, NODE_EXTRA_CA_CERTS unset';

export const cliStartModule: RowModule = {
  id: 'cli-start',
  rows: ['cli.start.version', 'cli.start.query'],
  needs: ['ledger'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const binary = join(context.paths.repo, 'packages', 'cli', 'dist', 'bin', 'episodic.js');
    const probe = join(context.paths.dist, 'probes', 'cli-probe.js');
    const environment = coldStartEnvironment();
    const spawns = context.quick ? 5 : 10;
    const { rounds, warmup } = context.sizes;
    const versionSpec: RowSpec = {
      id: 'cli.start.version',
      mode: 'cold, no CA env',
      area: 'CLI start',
      title: 'episodic --version, spawn to exit',
      durability: COLD,
      dataset: `${spawns} spawns per round per side`,
      product: 'node packages/cli/dist/bin/episodic.js --version',
      probe:
        'node bench/dist/probes/cli-probe.js --version (bundled: zod inlined, better-sqlite3 external)',
      metric: { name: 'median wall time', unit: 'ms', better: 'lower' },
      latencyUnit: 'ms',
      target: '≤ 1.1× probe; stretch ≤ 2× node -e 0',
    };
    const dataset = await ensureLedger(context);
    const session = mainScopeSessions(dataset.rows, 1)[0] as string;
    const querySpec: RowSpec = {
      ...versionSpec,
      id: 'cli.start.query',
      title: 'episodes query (scope + session, limit 50), spawn to exit',
      dataset: `${formatCount(dataset.rows)}-event ledger; ${spawns} spawns per round per side`,
      product: `episodic --db <ledger> episodes query --scope ${MAIN_SCOPE} --session-id <id> --limit 50 --json`,
      probe:
        'cli-probe.js query <ledger> <scope> <session>: open the database, one SELECT, print JSON',
      target: '≤ 1.1× probe',
    };
    if (!existsSync(binary)) {
      const reason =
        'not available yet: packages/cli/dist/bin/episodic.js is missing (run pnpm build once @episodic/cli has landed)';
      return [unavailableRow(versionSpec, reason), unavailableRow(querySpec, reason)];
    }
    const spawnRound =
      (args: readonly string[]): (() => Round) =>
      () => {
        const times: number[] = [];
        for (let index = 0; index < spawns; index++) {
          const timing = timeNode(args, environment);
          if (timing.status !== 0)
            throw new Error(
              `node ${args.join(' ')} exited with ${timing.status}: ${firstLineOf(timing.stderr)}`,
            );
          times.push(timing.ms);
        }
        return { value: median(times), latencies: times };
      };
    const rows: RowResult[] = [];

    const version = timeNode([binary, '--version'], environment);
    if (version.status !== 0) {
      rows.push(
        unavailableRow(
          versionSpec,
          `not available: the built CLI exited with ${version.status} on --version: ${firstLineOf(version.stderr)}`,
        ),
      );
    } else {
      const floor = spawnRound(['-e', '0']);
      const floorTimes: number[] = [];
      const measured = await alternate({
        rounds,
        warmup,
        product: spawnRound([binary, '--version']),
        probe: () => {
          floorTimes.push(floor().value);
          return spawnRound([probe, '--version'])();
        },
      });
      const nodeFloor = median(floorTimes);
      const productMedian = median(measured.product.map((round) => round.value));
      rows.push(
        compareRow(
          versionSpec,
          measured,
          (row) => [check('time ratio ≤ 1.1', row.ratio?.median ?? Number.NaN, '<=', 1.1)],
          [
            `node -e 0 takes ${nodeFloor.toFixed(1)} ms here; product / node -e 0 = ${(productMedian / nodeFloor).toFixed(2)}× (stretch goal ≤ 2×, not checked)`,
          ],
        ),
      );
    }

    const queryArgs = [
      binary,
      '--db',
      dataset.path,
      'episodes',
      'query',
      '--scope',
      MAIN_SCOPE,
      '--session-id',
      session,
      '--limit',
      '50',
      '--json',
    ];
    const trial = timeNode(queryArgs, environment);
    if (trial.status !== 0) {
      rows.push(
        unavailableRow(
          querySpec,
          `not available yet: the built CLI has no working "episodes query" (exit ${trial.status}: ${firstLineOf(trial.stderr)})`,
        ),
      );
    } else {
      const measured = await alternate({
        rounds,
        warmup,
        product: spawnRound(queryArgs),
        probe: spawnRound([probe, 'query', dataset.path, MAIN_SCOPE, session]),
      });
      rows.push(
        compareRow(querySpec, measured, (row) => [
          check('time ratio ≤ 1.1', row.ratio?.median ?? Number.NaN, '<=', 1.1),
        ]),
      );
    }
    return rows;
  },
};
