import { join } from 'node:path';
import type { RunStore } from '@episodic/core';
import { EpisodicSession } from '@episodic/openai-agents';
import { createSqliteStore } from '@episodic/store-sqlite';
import { type AgentInputItem, MemorySession, type Session } from '@openai/agents-core';
import { alternate, compareRow, type Round } from '../lib/compare.js';
import { type BenchContext, formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { median, nowMicros } from '../lib/stats.js';

/** A history item as the runner stores one (a user or assistant message), ~300 bytes. */
function item(index: number): AgentInputItem {
  const text = `Step ${index}: the agent read the next file and noted what it found there, with the line numbers.`;
  return index % 2 === 0
    ? { type: 'message', role: 'user', content: text }
    : {
        type: 'message',
        role: 'assistant',
        id: `msg_${String(index).padStart(12, '0')}`,
        status: 'completed',
        content: [{ type: 'output_text', text }],
      };
}

/**
 * Adds `count` items one call each, then loads them in a fresh session (a resume: for Episodic a
 * new EpisodicSession that reads the run; for the SDK the same MemorySession, which has nothing
 * to read).
 */
async function session(
  open: () => Session,
  count: number,
): Promise<{ appendMicros: number[]; loadMicros: number }> {
  const writer = open();
  const appendMicros: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = nowMicros();
    await writer.addItems([item(index)]);
    appendMicros.push(nowMicros() - start);
  }
  const reader = writer instanceof MemorySession ? writer : open();
  const start = nowMicros();
  const loaded = await reader.getItems();
  const loadMicros = nowMicros() - start;
  if (loaded.length !== count) throw new Error(`loaded ${loaded.length} of ${count} items`);
  return { appendMicros, loadMicros };
}

export const openaiAgentsModule: RowModule = {
  id: 'openai-agents',
  rows: ['openai-agents.append', 'openai-agents.load'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'openai-agents');
    const count = context.quick ? 200 : 1000;
    const { rounds, warmup } = context.sizes;
    let sessions = 0;
    const loads: { product: Round[]; probe: Round[] } = { product: [], probe: [] };
    try {
      const home = createSqliteStore({ filename: join(scratch.path, 'episodic.db') });
      const runs: RunStore = home.runs;
      const measure = async (open: () => Session, side: 'product' | 'probe'): Promise<Round> => {
        const result = await session(open, count);
        loads[side].push({ value: result.loadMicros / 1000 });
        return { value: median(result.appendMicros), latencies: result.appendMicros };
      };
      const measured = await alternate({
        rounds,
        warmup,
        product: () => {
          const sessionId = `bench-${sessions++}`;
          return measure(() => new EpisodicSession({ runs, sessionId }), 'product');
        },
        probe: () => {
          const sessionId = `bench-${sessions++}`;
          return measure(() => new MemorySession({ sessionId }), 'probe');
        },
      });
      await home.close();
      const spec = {
        area: 'peers, same workload',
        durability:
          "Episodic: SQLite WAL, synchronous=NORMAL; the SDK's MemorySession: memory only",
        mode: 'WAL/NORMAL vs memory',
        dataset: `a session of ${formatCount(count)} items (~300 bytes each), added one per call`,
        product:
          'EpisodicSession on @episodic/store-sqlite (one compare-and-append per call, history folded in the process)',
        probe: "the SDK's MemorySession (an array; no persistence, one process)",
      };
      const rows: RowResult[] = [
        compareRow(
          {
            ...spec,
            id: 'openai-agents.append',
            title: `addItems of one item, sessions of ${formatCount(count)} items`,
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
            id: 'openai-agents.load',
            title: `getItems of a session of ${formatCount(count)} items, resumed (a new EpisodicSession reads the run)`,
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
