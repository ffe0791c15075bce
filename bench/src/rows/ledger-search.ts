import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createSqliteStore } from '@episodic/store-sqlite';
import { ensureLedger } from '../data/datasets.js';
import { MAIN_SCOPE } from '../data/ledger-events.js';
import { alternate, check, compareRow, type Round, singleRow } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, nowMicros, quantile } from '../lib/stats.js';

/** The raw FTS5 query the product's search runs, written by hand (limit 21: a page of 20 + 1). */
const PROBE_SQL = `SELECT e.id, e.event_id, e.session_id, e.agent_id, e.type, e.ts_ms, e.metadata_json,
  bm25(episodic_search) AS rank, snippet(episodic_search, 0, '«', '»', '…', 16) AS snippet
FROM episodic_search JOIN episodic_events AS e ON e.id = episodic_search.rowid
WHERE episodic_search MATCH ? AND e.scope = ? ORDER BY rank, e.id LIMIT 21`;

async function latencyRound(
  count: number,
  operation: (index: number) => unknown | Promise<unknown>,
): Promise<Round> {
  const latencies = new LatencyRecorder(count);
  for (let index = 0; index < count; index++) {
    const before = nowMicros();
    await operation(index);
    latencies.add(nowMicros() - before);
  }
  const values = latencies.toArray();
  return { value: quantile(Float64Array.from(values).sort(), 0.5), latencies: values };
}

/** Ledger search (issue #32): catch-up throughput, and queries against the raw FTS5 SQL. */
export const ledgerSearchModule: RowModule = {
  id: 'ledger-search',
  rows: ['ledger.search.catchup', 'ledger.search.words', 'ledger.search.phrase'],
  needs: ['ledger'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const dataset = await ensureLedger(context);
    const { rounds, warmup } = context.sizes;
    const scratch = scratchDirectory(context, 'ledger-search');
    const rows: RowResult[] = [];
    try {
      // The search indexes the copy (a write): never the cached data set.
      const path = join(scratch.path, 'search.db');
      copyFileSync(dataset.path, path);
      const store = createSqliteStore({ filename: path });
      const before = statSync(path).size;
      const started = nowMicros();
      await store.ledger.search({ scope: MAIN_SCOPE, text: 'agent' });
      const seconds = (nowMicros() - started) / 1e6;
      store.database.pragma('wal_checkpoint(TRUNCATE)');
      const growth = statSync(path).size / before - 1;
      const size = `${formatCount(dataset.rows)} events, 4 scopes`;
      rows.push(
        singleRow(
          {
            id: 'ledger.search.catchup',
            mode: 'write, WAL',
            area: 'ledger search',
            title: 'first search indexes the whole ledger',
            durability: 'synchronous = NORMAL (WAL), IMMEDIATE transactions of 2,000 rows',
            dataset: size,
            product: 'ledger.search() on a ledger never searched: catch-up of every event',
            probe: 'none (one measurement)',
            metric: { name: 'events indexed per second', unit: 'events/s', better: 'higher' },
            target: 'information (appends pay nothing: the index is caught up at search time)',
          },
          [{ value: dataset.rows / seconds }],
          () => [],
          [`file grew by ${(growth * 100).toFixed(0)} % (FTS5 keeps its own copy of the text)`],
        ),
      );

      const raw = store.database.prepare(PROBE_SQL);
      const queries = context.quick ? 20 : 100;
      const words = ['plan result', 'session replay', 'checkpoint', 'budget window', 'careful'];
      const phrases = ['"agent read"', '"tool call"', '"next step"', '"first draft"'];
      const fts5 = (text: string) =>
        text.startsWith('"')
          ? text
          : text
              .split(' ')
              .map((word) => `"${word}"`)
              .join(' ');
      for (const [id, title, texts] of [
        ['ledger.search.words', 'one or two words, page of 20', words],
        ['ledger.search.phrase', 'a quoted phrase, page of 20', phrases],
      ] as const) {
        const textOf = (index: number) => texts[index % texts.length] as string;
        const measured = await alternate({
          rounds,
          warmup,
          product: () =>
            latencyRound(queries, (index) =>
              store.ledger.search({ scope: MAIN_SCOPE, text: textOf(index), limit: 20 }),
            ),
          probe: () => latencyRound(queries, (index) => raw.all(fts5(textOf(index)), MAIN_SCOPE)),
        });
        rows.push(
          compareRow(
            {
              id,
              mode: 'read, page cache',
              area: 'ledger search',
              title,
              durability: 'n/a (read; the index is caught up)',
              dataset: size,
              product: `ledger.search({ scope, text, limit: 20 }) for ${texts.join(', ')}`,
              probe: 'the same FTS5 MATCH + JOIN + bm25() + snippet() SQL, .all()',
              metric: { name: 'p50 per query', unit: 'µs', better: 'lower' },
              latencyUnit: 'µs',
              target: 'p50 ≤ 1.3× probe',
            },
            measured,
            (row) => [check('p50 ratio ≤ 1.3', row.ratio?.median ?? Number.NaN, '<=', 1.3)],
            [
              "the data set's prose draws from ~100 words, so each word is in a large share of the events: BM25 ranks every match (the slow case)",
            ],
          ),
        );
      }
      await store.close();
    } finally {
      scratch.dispose();
    }
    return rows;
  },
};
