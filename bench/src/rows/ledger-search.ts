import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createSqliteStore } from '@episodic/store-sqlite';
import type { Statement } from 'better-sqlite3';
import { ensureLedger } from '../data/datasets.js';
import { DAY, LEDGER_T0, MAIN_SCOPE, mainScopeSessions } from '../data/ledger-events.js';
import { alternate, check, compareRow, type Round, singleRow } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, nowMicros, quantile } from '../lib/stats.js';

/** One search of a row: the product's input and the probe's FTS5 MATCH and filter values. */
export interface SearchCase {
  text: string;
  sessionId?: string;
  types?: string[];
  fromTsMs?: number;
  toTsMs?: number;
}

/**
 * The raw FTS5 queries the product's search runs, written by hand: BM25 over the newest 10,000
 * matches in the scope and filters (FTS5 driving the join), the best 21 (a page of 20 + 1), then
 * `snippet()` of each of them.
 */
function probeSql(search: SearchCase): string {
  const where = ['e.scope = @scope'];
  if (search.sessionId !== undefined) where.push('e.session_id = @session');
  if (search.fromTsMs !== undefined) where.push('e.ts_ms >= @from');
  if (search.toTsMs !== undefined) where.push('e.ts_ms <= @to');
  if (search.types !== undefined)
    where.push(`e.type IN (${search.types.map((_, index) => `@t${index}`).join(', ')})`);
  // A session or a time range: the ids of its events bound the rowids FTS5 reads.
  const inRange = where.map((condition) => condition.replaceAll('e.', 'b.')).join(' AND ');
  const bounds =
    search.sessionId !== undefined || search.fromTsMs !== undefined || search.toTsMs !== undefined
      ? ` AND episodic_search.rowid BETWEEN (SELECT min(b.id) FROM episodic_events AS b WHERE ${inRange}) AND (SELECT max(b.id) FROM episodic_events AS b WHERE ${inRange})`
      : '';
  return `SELECT * FROM (
  SELECT e.id, e.event_id, e.session_id, e.agent_id, e.type, e.ts_ms, e.metadata_json,
    bm25(episodic_search) AS rank
  FROM episodic_search CROSS JOIN episodic_events AS e ON e.id = episodic_search.rowid
  WHERE episodic_search MATCH @match AND ${where.join(' AND ')}${bounds}
  ORDER BY episodic_search.rowid DESC LIMIT 10000
) ORDER BY rank, id LIMIT 21`;
}

const PROBE_SNIPPET_SQL = `SELECT snippet(episodic_search, 0, '«', '»', '…', 16) FROM episodic_search
WHERE episodic_search MATCH ? AND rowid = ?`;

/** The probe's named parameters for `search`. */
function probeValues(search: SearchCase): Record<string, unknown> {
  const values: Record<string, unknown> = { match: fts5Match(search.text), scope: MAIN_SCOPE };
  if (search.sessionId !== undefined) values.session = search.sessionId;
  if (search.fromTsMs !== undefined) values.from = search.fromTsMs;
  if (search.toTsMs !== undefined) values.to = search.toTsMs;
  search.types?.forEach((type, index) => {
    values[`t${index}`] = type;
  });
  return values;
}

/** `plan result` → `"plan" "result"`; a quoted phrase stays as it is. */
function fts5Match(text: string): string {
  return text.startsWith('"')
    ? text
    : text
        .split(' ')
        .map((word) => `"${word}"`)
        .join(' ');
}

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

/**
 * The searches of the rows, the same at every size (the data set's words keep their share of the
 * events whatever its size): a rare word (a run number of the refs, ~100 events), a common word
 * (~45 % of the events), a two-word phrase (~0.6 %), and a common word under a session or a
 * type + one-day filter.
 */
export function searchCases(
  rows: number,
): Record<'rare' | 'common' | 'phrase' | 'filtered', SearchCase[]> {
  const sessions = mainScopeSessions(rows, 8);
  const day = (index: number) => LEDGER_T0 + ((index * 11) % 90) * DAY;
  return {
    rare: ['17', '42', '63', '88'].map((text) => ({ text })),
    common: ['checkpoint', 'careful', 'budget', 'window'].map((text) => ({ text })),
    phrase: ['"agent read"', '"tool call"', '"next step"', '"first draft"'].map((text) => ({
      text,
    })),
    filtered: sessions.flatMap((sessionId, index) => [
      { text: 'checkpoint', sessionId },
      {
        text: 'budget',
        types: ['ops.decision'],
        fromTsMs: day(index),
        toTsMs: day(index) + DAY,
      },
    ]),
  };
}

const CASE_TITLES = {
  rare: ['ledger.search.rare', 'a rare word (~100 events), page of 20'],
  common: ['ledger.search.common', 'a common word (~45 % of events), page of 20'],
  phrase: ['ledger.search.phrase', 'a two-word phrase (~0.6 % of events), page of 20'],
  filtered: [
    'ledger.search.filtered',
    'a common word + session, or + type and one day, page of 20',
  ],
} as const;

/** Ledger search (issue #32): catch-up throughput, and queries against the raw FTS5 SQL. */
export const ledgerSearchModule: RowModule = {
  id: 'ledger-search',
  rows: ['ledger.search.catchup', ...Object.values(CASE_TITLES).map(([id]) => id)],
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

      const queries = context.quick ? 12 : 40;
      const cases = searchCases(dataset.rows);
      for (const [name, [id, title]] of Object.entries(CASE_TITLES)) {
        const searches = cases[name as keyof typeof cases];
        const statements = searches.map((search) => store.database.prepare(probeSql(search)));
        const snippet = store.database.prepare(PROBE_SNIPPET_SQL).pluck();
        const searchOf = (index: number) => searches[index % searches.length] as SearchCase;
        const measured = await alternate({
          rounds,
          warmup,
          product: () =>
            latencyRound(queries, (index) =>
              store.ledger.search({
                scope: MAIN_SCOPE,
                ...searchOf(index),
                limit: 20,
              } as Parameters<typeof store.ledger.search>[0]),
            ),
          probe: () =>
            latencyRound(queries, (index) => {
              const search = searchOf(index);
              const statement = statements[index % statements.length] as Statement;
              const page = statement.all(probeValues(search)) as Array<{ id: number }>;
              const match = fts5Match(search.text);
              return page.map((row) => snippet.get(match, BigInt(row.id)));
            }),
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
              product: `ledger.search({ scope, text, …filters, limit: 20 }) for ${[...new Set(searches.map((search) => search.text))].join(', ')}`,
              probe:
                'the same SQL by hand: bm25() over the newest 10,000 FTS5 matches in scope and filters, best 21, then snippet() of each',
              metric: { name: 'p50 per query', unit: 'µs', better: 'lower' },
              latencyUnit: 'µs',
              target: 'p50 and p99 ≤ 1.3× probe',
            },
            measured,
            (row) => [
              check('p50 ratio ≤ 1.3', row.ratio?.median ?? Number.NaN, '<=', 1.3),
              check(
                'p99 ratio ≤ 1.3',
                (row.productResult?.latency?.p99 ?? Number.NaN) /
                  (row.probeResult?.latency?.p99 ?? Number.NaN),
                '<=',
                1.3,
              ),
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
