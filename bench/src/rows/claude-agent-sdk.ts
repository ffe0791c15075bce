import { join } from 'node:path';
import {
  InMemorySessionStore,
  type SessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { EpisodicSessionStore } from '@episodic/claude-agent-sdk';
import { createSqliteStore } from '@episodic/store-sqlite';
import { alternate, compareRow, type Round } from '../lib/compare.js';
import { type BenchContext, formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { median, nowMicros } from '../lib/stats.js';

/** A transcript line as Claude Code writes one (a user or assistant message), ~300 bytes. */
function entry(index: number): SessionStoreEntry {
  const role = index % 2 === 0 ? 'user' : 'assistant';
  return {
    type: role,
    uuid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    timestamp: '2026-11-28T00:00:00.000Z',
    message: {
      role,
      content: `Step ${index}: the agent read the next file and noted what it found there, with the line numbers.`,
    },
  };
}

/** Appends `count` entries one call each (the SDK's eager flush), then loads them. */
async function session(
  store: SessionStore,
  sessionId: string,
  count: number,
): Promise<{ appendMicros: number[]; loadMicros: number }> {
  const key = { projectKey: 'bench', sessionId };
  const appendMicros: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = nowMicros();
    await store.append(key, [entry(index)]);
    appendMicros.push(nowMicros() - start);
  }
  const start = nowMicros();
  const loaded = await store.load(key);
  const loadMicros = nowMicros() - start;
  if (loaded?.length !== count) throw new Error(`loaded ${loaded?.length} of ${count} entries`);
  return { appendMicros, loadMicros };
}

export const claudeAgentSdkModule: RowModule = {
  id: 'claude-agent-sdk',
  rows: ['claude-agent-sdk.append', 'claude-agent-sdk.load'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'claude-agent-sdk');
    const count = context.quick ? 200 : 1000;
    const { rounds, warmup } = context.sizes;
    let sessions = 0;
    const loads: { product: Round[]; probe: Round[] } = { product: [], probe: [] };
    try {
      const home = createSqliteStore({ filename: join(scratch.path, 'episodic.db') });
      const product = new EpisodicSessionStore({ runs: home.runs });
      const probe = new InMemorySessionStore();
      const measure = async (store: SessionStore, side: 'product' | 'probe'): Promise<Round> => {
        const result = await session(store, `bench-${sessions++}`, count);
        loads[side].push({ value: result.loadMicros / 1000 });
        return { value: median(result.appendMicros), latencies: result.appendMicros };
      };
      const measured = await alternate({
        rounds,
        warmup,
        product: () => measure(product, 'product'),
        probe: () => measure(probe, 'probe'),
      });
      await home.close();
      const spec = {
        area: 'peers, same workload',
        durability: 'Episodic: SQLite WAL, synchronous=NORMAL; the SDK store: memory only',
        mode: 'WAL/NORMAL vs memory',
        dataset: `a session of ${formatCount(count)} transcript entries (~300 bytes each, each with a uuid), appended one per call`,
        product:
          'EpisodicSessionStore on @episodic/store-sqlite (compare-and-append, uuid dedup, folded summary per append)',
        probe: "the SDK's InMemorySessionStore (a Map; no persistence, no dedup)",
      };
      const rows: RowResult[] = [
        compareRow(
          {
            ...spec,
            id: 'claude-agent-sdk.append',
            title: `append of one entry, sessions of ${formatCount(count)} entries`,
            metric: { name: 'append time', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target:
              'none: the cost of a durable, multi-process store beside the in-memory reference',
          },
          measured,
          () => [],
        ),
        compareRow(
          {
            ...spec,
            id: 'claude-agent-sdk.load',
            title: `load of a session of ${formatCount(count)} entries`,
            metric: { name: 'load time', unit: 'ms', better: 'lower' },
            target: 'none: shown beside the in-memory reference',
          },
          {
            ...measured,
            product: loads.product.slice(-measured.product.length),
            probe: loads.probe.slice(-measured.probe.length),
          },
          () => [],
        ),
      ];
      return rows;
    } finally {
      scratch.dispose();
    }
  },
};
