import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  alternate,
  check,
  compareRow,
  type Round,
  type RowSpec,
  unavailableRow,
} from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { coldStartEnvironment } from '../lib/spawn.js';
import { LatencyRecorder, median, nowMicros, quantile } from '../lib/stats.js';

const COLD = 'spawned processes over stdio, NODE_EXTRA_CA_CERTS unset';

/** The read-only product tool a steady-state call uses, with its arguments. */
const PRODUCT_CALL = { name: 'memory_episodes_query', arguments: { limit: 1 } } as const;
const PROBE_CALL = { name: 'echo', arguments: { text: 'ping' } } as const;

interface Connection {
  client: Client;
  /** Spawn → initialize result, in ms. */
  initializeMs: number;
  close(): Promise<void>;
}

async function connect(
  script: string,
  environment: Record<string, string>,
  extraArgs: readonly string[] = [],
): Promise<Connection> {
  const client = new Client({ name: 'episodic-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...extraArgs],
    env: environment,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const before = nowMicros();
  try {
    await Promise.race([
      client.connect(transport),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('no initialize result within 15 s')), 15_000),
      ),
    ]);
  } catch (error) {
    await client.close().catch(() => undefined);
    const detail = stderr.trim().split('\n')[0] ?? '';
    throw new Error(`${(error as Error).message}${detail === '' ? '' : ` (stderr: ${detail})`}`);
  }
  const initializeMs = (nowMicros() - before) / 1000;
  return { client, initializeMs, close: () => client.close() };
}

function callFailure(result: unknown): string | null {
  const value = result as { isError?: boolean; content?: Array<{ text?: string }> };
  return value.isError === true ? (value.content?.[0]?.text ?? 'isError') : null;
}

export const mcpModule: RowModule = {
  id: 'mcp',
  rows: ['mcp.initialize', 'mcp.call'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const binary = join(context.paths.repo, 'packages', 'mcp', 'dist', 'bin', 'episodic-mcp.js');
    const probe = join(context.paths.dist, 'probes', 'mcp-echo-server.js');
    const { rounds, warmup } = context.sizes;
    const spawns = context.quick ? 3 : 8;
    const calls = context.quick ? 500 : 2000;
    const initializeSpec: RowSpec = {
      id: 'mcp.initialize',
      mode: 'cold, no CA env',
      area: 'MCP',
      title: 'spawn the stdio server → initialize result',
      durability: COLD,
      dataset: `${spawns} spawns per round per side, official client`,
      product:
        'node packages/mcp/dist/bin/episodic-mcp.js --home <fresh dir> --scope bench (SQLite store)',
      probe: 'node bench/dist/probes/mcp-echo-server.js: official SDK, 10 zod tools, bundled',
      metric: { name: 'median spawn → initialize', unit: 'ms', better: 'lower' },
      latencyUnit: 'ms',
      target: 'initialize ≤ 1.1× probe',
    };
    const callSpec: RowSpec = {
      id: 'mcp.call',
      mode: 'stdio, read-only',
      area: 'MCP',
      title: 'steady-state tools/call round trip',
      durability: 'stdio; read-only tool (no fsync)',
      dataset: `${calls} calls per round per side after 200 warm-up calls`,
      product: `tools/call ${PRODUCT_CALL.name} ${JSON.stringify(PRODUCT_CALL.arguments)} on an empty store`,
      probe: `tools/call ${PROBE_CALL.name} ${JSON.stringify(PROBE_CALL.arguments)} on the SDK echo server`,
      metric: { name: 'p50 round trip', unit: 'µs', better: 'lower' },
      latencyUnit: 'µs',
      target: 'call p50 ≤ 1.3× probe',
    };
    if (!existsSync(binary)) {
      const reason =
        'not available yet: packages/mcp/dist/bin/episodic-mcp.js is missing (run pnpm build once @episodic/mcp has landed)';
      return [unavailableRow(initializeSpec, reason), unavailableRow(callSpec, reason)];
    }
    const scratch = scratchDirectory(context, 'mcp');
    const home = join(scratch.path, 'home');
    mkdirSync(home, { recursive: true });
    const productEnvironment = coldStartEnvironment();
    const productArgs = ['--home', home, '--scope', 'bench'];
    const probeEnvironment = coldStartEnvironment();
    const rows: RowResult[] = [];
    try {
      let trial: Connection;
      try {
        trial = await connect(binary, productEnvironment, productArgs);
      } catch (error) {
        const reason = `not available: the built server did not initialize: ${(error as Error).message}`;
        return [unavailableRow(initializeSpec, reason), unavailableRow(callSpec, reason)];
      }
      const tools = await trial.client.listTools();
      await trial.close();

      const initializeRound =
        (script: string, environment: Record<string, string>, args: readonly string[] = []) =>
        async (): Promise<Round> => {
          const times: number[] = [];
          for (let index = 0; index < spawns; index++) {
            const connection = await connect(script, environment, args);
            times.push(connection.initializeMs);
            await connection.close();
          }
          return { value: median(times), latencies: times };
        };
      rows.push(
        compareRow(
          initializeSpec,
          await alternate({
            rounds,
            warmup,
            product: initializeRound(binary, productEnvironment, productArgs),
            probe: initializeRound(probe, probeEnvironment),
          }),
          (row) => [check('time ratio ≤ 1.1', row.ratio?.median ?? Number.NaN, '<=', 1.1)],
        ),
      );

      if (!tools.tools.some((tool) => tool.name === PRODUCT_CALL.name)) {
        rows.push(
          unavailableRow(
            callSpec,
            `not available yet: the server lists no ${PRODUCT_CALL.name} tool (it lists ${tools.tools.map((tool) => tool.name).join(', ') || 'none'})`,
          ),
        );
        return rows;
      }
      const productConnection = await connect(binary, productEnvironment, productArgs);
      const probeConnection = await connect(probe, probeEnvironment);
      const first = await productConnection.client.callTool(PRODUCT_CALL);
      const failure = callFailure(first);
      if (failure !== null) {
        rows.push(
          unavailableRow(
            callSpec,
            `not available: ${PRODUCT_CALL.name} failed: ${failure.slice(0, 200)}`,
          ),
        );
      } else {
        const callRound =
          (connection: Connection, call: typeof PRODUCT_CALL | typeof PROBE_CALL) => async () => {
            const latencies = new LatencyRecorder(calls);
            for (let index = 0; index < calls; index++) {
              const before = nowMicros();
              await connection.client.callTool(call);
              latencies.add(nowMicros() - before);
            }
            const values = latencies.toArray();
            return { value: quantile(Float64Array.from(values).sort(), 0.5), latencies: values };
          };
        for (let index = 0; index < 200; index++) {
          await productConnection.client.callTool(PRODUCT_CALL);
          await probeConnection.client.callTool(PROBE_CALL);
        }
        rows.push(
          compareRow(
            callSpec,
            await alternate({
              rounds,
              warmup,
              product: callRound(productConnection, PRODUCT_CALL),
              probe: callRound(probeConnection, PROBE_CALL),
            }),
            (row) => [check('p50 ratio ≤ 1.3', row.ratio?.median ?? Number.NaN, '<=', 1.3)],
          ),
        );
      }
      await productConnection.close();
      await probeConnection.close();
    } finally {
      scratch.dispose();
    }
    return rows;
  },
};
