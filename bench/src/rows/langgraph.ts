import { join } from 'node:path';
import { EpisodicSaver } from '@episodic/langgraph';
import { createSqliteStore } from '@episodic/store-sqlite';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  type BaseCheckpointSaver,
  type Checkpoint,
  emptyCheckpoint,
  uuid6,
} from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { alternate, check, compareRow, type Round, singleRow } from '../lib/compare.js';
import { type BenchContext, formatBytes, formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { median, nowMicros } from '../lib/stats.js';

/** A chat message as LangGraph serializes one (LangChain's constructor form), ~350 bytes. */
function message(step: number): Record<string, unknown> {
  return {
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', step % 2 === 0 ? 'HumanMessage' : 'AIMessage'],
    kwargs: {
      id: `message-${step}`,
      content: `Step ${step}: the agent read the next file and noted what it found there, with the line numbers and a short summary of the change it suggests.`,
      additional_kwargs: {},
      response_metadata: {},
    },
  };
}

interface Thread {
  /** Microseconds of each step's `put` + `putWrites`, in step order. */
  readonly stepMicros: number[];
  /** Bytes each step added to the store (Episodic: run records; SqliteSaver: rows' blobs). */
  readonly stepBytes: number[];
}

/**
 * Runs a LangGraph-shaped thread of `steps` steps through a saver, as the Pregel loop calls it: per
 * step the node's write (`putWrites`) and then a checkpoint (`put`) whose `messages` channel holds
 * every message so far (one more each step) and whose `step` channel changes. Times each step.
 */
async function runThread(
  saver: BaseCheckpointSaver,
  threadId: string,
  steps: number,
  bytesWritten: () => number,
): Promise<Thread> {
  const messages: Record<string, unknown>[] = [];
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
  const stepMicros: number[] = [];
  const stepBytes: number[] = [];
  for (let step = 0; step < steps; step++) {
    const added = message(step);
    const bytesBefore = bytesWritten();
    const start = nowMicros();
    if (step > 0) await saver.putWrites(config, [['messages', [added]]], `task-${step}`);
    messages.push(added);
    const checkpoint: Checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(-1),
      channel_values: { messages: [...messages], step },
      channel_versions: { messages: step + 1, step: step + 1 },
      versions_seen: { agent: { messages: step, step } },
    };
    config = await saver.put(
      config,
      checkpoint,
      { source: step === 0 ? 'input' : 'loop', step, parents: {} },
      { messages: step + 1, step: step + 1 },
    );
    stepMicros.push(nowMicros() - start);
    stepBytes.push(bytesWritten() - bytesBefore);
  }
  return { stepMicros, stepBytes };
}

/** Sums `expression` over `table` for each pair: the bytes a side has stored so far. */
function sqliteBytes(
  database: Database.Database,
  sums: ReadonlyArray<readonly [expression: string, table: string]>,
): () => number {
  const statements = sums.map(([expression, table]) =>
    database.prepare(`SELECT coalesce(sum(${expression}), 0) AS n FROM ${table}`),
  );
  return () => statements.reduce((sum, statement) => sum + (statement.get() as { n: number }).n, 0);
}

export const langgraphModule: RowModule = {
  id: 'langgraph',
  rows: ['langgraph.put.growth', 'langgraph.put.bytes'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'langgraph');
    const steps = context.quick ? 200 : 1000;
    const window = Math.max(10, Math.floor(steps / 20));
    const { rounds, warmup } = context.sizes;
    let threads = 0;
    const early: { product: number[]; probe: number[] } = { product: [], probe: [] };
    const bytes: { product: Thread['stepBytes'][]; probe: Thread['stepBytes'][] } = {
      product: [],
      probe: [],
    };
    try {
      const store = createSqliteStore({ filename: join(scratch.path, 'episodic.db') });
      const product = new EpisodicSaver({ runs: store.runs });
      const productBytes = sqliteBytes(store.database, [['length(json)', 'episodic_run_records']]);
      const probeDatabase = new Database(join(scratch.path, 'langgraph.db'));
      const probe = new SqliteSaver(probeDatabase);
      (probe as unknown as { setup(): void }).setup();
      // The same durability on both sides: WAL, synchronous=NORMAL (Episodic's default).
      probeDatabase.pragma('synchronous = NORMAL');
      const probeBytes = sqliteBytes(probeDatabase, [
        ['length(checkpoint) + length(metadata)', 'checkpoints'],
        ['length(value)', 'writes'],
      ]);
      const late = (thread: Thread) => median(thread.stepMicros.slice(-window));
      const first = (thread: Thread) => median(thread.stepMicros.slice(1, window + 1));
      const measured = await alternate({
        rounds,
        warmup,
        product: async (): Promise<Round> => {
          const thread = await runThread(product, `bench-${threads++}`, steps, productBytes);
          early.product.push(first(thread));
          bytes.product.push(thread.stepBytes);
          return { value: late(thread), latencies: thread.stepMicros.slice(-window) };
        },
        probe: async (): Promise<Round> => {
          const thread = await runThread(probe, `bench-${threads++}`, steps, probeBytes);
          early.probe.push(first(thread));
          bytes.probe.push(thread.stepBytes);
          return { value: late(thread), latencies: thread.stepMicros.slice(-window) };
        },
      });
      await store.close();
      probeDatabase.close();

      const growth = (side: 'product' | 'probe') =>
        median(measured[side].map((round) => round.value)) / median(early[side]);
      const bytesAt = (side: 'product' | 'probe', at: 'first' | 'last') =>
        median(
          bytes[side].map((perStep) =>
            median(at === 'first' ? perStep.slice(1, window + 1) : perStep.slice(-window)),
          ),
        );
      const dataset = `a thread of ${formatCount(steps)} steps: one ~350-byte message more per step (${formatBytes(350 * steps)} of messages at the last step), a counter channel`;
      const spec = {
        area: 'peers, same workload',
        durability: 'SQLite WAL, synchronous=NORMAL on both sides',
        mode: 'WAL/NORMAL',
        dataset,
        product:
          'EpisodicSaver on @episodic/store-sqlite: putWrites(node output) + put(checkpoint) per step',
        probe: "@langchain/langgraph-checkpoint-sqlite's SqliteSaver: the same calls, same thread",
      };
      const rows: RowResult[] = [
        compareRow(
          {
            ...spec,
            id: 'langgraph.put.growth',
            title: `put + putWrites at step ${formatCount(steps)} (last ${window} steps)`,
            metric: { name: 'step time', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target:
              'grows slower with the thread than SqliteSaver (step N / step 1); the time at step N beside it',
          },
          measured,
          () => [
            check(
              'growth step N / step 1 ≤ SqliteSaver growth',
              growth('product') / growth('probe'),
              '<=',
              1,
            ),
          ],
          [
            `growth step N / step 1: EpisodicSaver ${growth('product').toFixed(2)}×, SqliteSaver ${growth('probe').toFixed(2)}× (both serialize the whole channel value each step with LangGraph's serializer, which dominates at step N; SqliteSaver also writes it whole)`,
            `time at step N: EpisodicSaver / SqliteSaver = the ratio column (not a target: both sides pay the same serialization)`,
            `step 1–${window} median: EpisodicSaver ${median(early.product).toFixed(0)} µs, SqliteSaver ${median(early.probe).toFixed(0)} µs`,
          ],
        ),
        singleRow(
          {
            ...spec,
            id: 'langgraph.put.bytes',
            title: `bytes stored per step at step ${formatCount(steps)} vs steps 1–${window}`,
            metric: { name: 'bytes per step', unit: 'B', better: 'lower' },
            target: 'flat: bytes per step at step N ≤ 1.5× steps 1–k (per-step deltas)',
          },
          bytes.product.map((perStep) => ({ value: median(perStep.slice(-window)) })),
          () => [
            check(
              'bytes per step at step N / steps 1–k ≤ 1.5',
              bytesAt('product', 'last') / bytesAt('product', 'first'),
              '<=',
              1.5,
            ),
          ],
          [
            `EpisodicSaver: ${formatBytes(bytesAt('product', 'first'))} per step at steps 1–${window}, ${formatBytes(bytesAt('product', 'last'))} at step ${formatCount(steps)}`,
            `SqliteSaver (whole checkpoint each step): ${formatBytes(bytesAt('probe', 'first'))} per step at steps 1–${window}, ${formatBytes(bytesAt('probe', 'last'))} at step ${formatCount(steps)}`,
          ],
        ),
      ];
      return rows;
    } finally {
      scratch.dispose();
    }
  },
};
