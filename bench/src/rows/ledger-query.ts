import { statSync } from 'node:fs';
import type { LedgerQueryInput } from '@episodic/core';
import { LEDGER_SCHEMA_VERSION } from '@episodic/core/schemas';
import { createSqliteStore } from '@episodic/store-sqlite';
import Database from 'better-sqlite3';
import { ensureLedger } from '../data/datasets.js';
import {
  intervalMs,
  LEDGER_T0,
  MAIN_SCOPE,
  mainScopeSessions,
  REPLAY_SESSION,
} from '../data/ledger-events.js';
import { createRandom } from '../data/text.js';
import { alternate, check, compareRow, type Round, singleRow } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { LatencyRecorder, median, nowMicros, quantile } from '../lib/stats.js';

/** The columns a summary-only product query reads. */
export const COLUMNS =
  'id, event_id, ts_ms, scope, session_id, agent_id, type, summary, refs_json, redacted, schema_version, created_at, metadata_json, position';

/** One round of `count` timed operations: the p50 as the round's value, every latency kept. */
export function p50Round(count: number, operation: (index: number) => unknown): Round {
  const latencies = new LatencyRecorder(count);
  for (let index = 0; index < count; index++) {
    const before = nowMicros();
    operation(index);
    latencies.add(nowMicros() - before);
  }
  const values = latencies.toArray();
  return { value: quantile(Float64Array.from(values).sort(), 0.5), latencies: values };
}

async function p50RoundAsync(
  count: number,
  operation: (index: number) => Promise<unknown>,
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

/** Opens a raw connection with the product's read-relevant pragmas. */
function openRawConnection(path: string): Database.Database {
  const database = new Database(path, { timeout: 5000 });
  database.pragma('journal_mode = WAL');
  database.pragma('mmap_size = 0');
  return database;
}

export const ledgerQueryModule: RowModule = {
  id: 'ledger-query',
  rows: [
    'ledger.query.session',
    'ledger.query.types',
    'ledger.query.time',
    'ledger.replay',
    'ledger.storage',
  ],
  needs: ['ledger'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const dataset = await ensureLedger(context);
    const { rounds, warmup } = context.sizes;
    const store = createSqliteStore({ filename: dataset.path });
    const raw = openRawConnection(dataset.path);
    const rows: RowResult[] = [];
    const size = `${formatCount(dataset.rows)} events, 4 scopes, ~${formatCount(dataset.rows / 250)} sessions`;
    const queries = context.quick ? 500 : 1000;
    const random = createRandom(5);
    const sessions = mainScopeSessions(dataset.rows, 200);
    const sessionOf = (index: number) => sessions[index % sessions.length] as string;
    const step = intervalMs(dataset.rows);
    const span = dataset.rows * step;
    // Time windows of ~2,000 events, anywhere in the 100 days.
    const windows = Array.from({ length: queries }, () => {
      const from = LEDGER_T0 + Math.floor(random() * (span - 2000 * step));
      return { from, to: from + 2000 * step };
    });
    const starts = windows.map((window) => window.from);

    const rowSpec = (id: string, title: string, product: string, probe: string) => ({
      id,
      mode: 'read, page cache',
      area: 'ledger query',
      title,
      durability: 'n/a (read; WAL database in the page cache)',
      dataset: size,
      product,
      probe,
      metric: { name: 'p50 per query', unit: 'µs', better: 'lower' as const },
      latencyUnit: 'µs',
      target: 'p50 ≤ 1.5× probe; p99 ≤ 1 ms',
    });
    const queryChecks = (row: RowResult) => [
      check('p50 ratio ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5),
      check(
        'p99 ≤ 1 ms',
        (row.productResult?.latency?.p99 ?? Number.NaN) / 1000,
        '<=',
        1,
        'absolute',
      ),
    ];
    const runQueryRow = async (
      spec: ReturnType<typeof rowSpec>,
      product: (index: number) => LedgerQueryInput,
      probe: (index: number) => unknown,
      notes: string[] = [],
    ) => {
      for (let index = 0; index < Math.min(queries, 200); index++) {
        await store.ledger.query(product(index));
        probe(index);
      }
      const measured = await alternate({
        rounds,
        warmup,
        product: () => p50RoundAsync(queries, (index) => store.ledger.query(product(index))),
        probe: () => p50Round(queries, probe),
      });
      rows.push(compareRow(spec, measured, queryChecks, notes));
    };

    // --- scope + session --------------------------------------------------------------------------
    {
      const statement = raw.prepare(
        `SELECT ${COLUMNS} FROM episodic_events WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id LIMIT 50`,
      );
      await runQueryRow(
        rowSpec(
          'ledger.query.session',
          'scope + session, limit 50',
          'ledger.query({ scope, sessionId, limit: 50 }) → events (summary only)',
          'the same SELECT … WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id LIMIT 50, .all()',
        ),
        (index) => ({ scope: MAIN_SCOPE, sessionId: sessionOf(index), limit: 50 }),
        (index) => statement.all(MAIN_SCOPE, sessionOf(index)),
      );
    }

    // --- scope + types: two types against the single-type probe ------------------------------------
    {
      const single = raw.prepare(
        `SELECT ${COLUMNS} FROM episodic_events WHERE scope = ? AND type = ? AND ts_ms >= ? ORDER BY ts_ms, id LIMIT 50`,
      );
      const naive = raw.prepare(
        `SELECT ${COLUMNS} FROM episodic_events WHERE scope = ? AND type IN (?, ?) AND ts_ms >= ? ORDER BY ts_ms, id LIMIT 50`,
      );
      const naiveRound = p50Round(queries, (index) =>
        naive.all(MAIN_SCOPE, 'ops.decision', 'tool.call', starts[index]),
      );
      await runQueryRow(
        rowSpec(
          'ledger.query.types',
          'scope + two types + from time, limit 50',
          "ledger.query({ scope, types: ['ops.decision', 'tool.call'], fromTsMs, limit: 50 })",
          'single-type probe: SELECT … WHERE scope = ? AND type = ? AND ts_ms >= ? ORDER BY ts_ms, id LIMIT 50',
        ),
        (index) => ({
          scope: MAIN_SCOPE,
          types: ['ops.decision', 'tool.call'],
          fromTsMs: starts[index] as number,
          limit: 50,
        }),
        (index) => single.all(MAIN_SCOPE, 'tool.call', starts[index]),
        [
          `target: multi-type ≤ 1.5× the single-type probe. For reference, the naive raw "type IN (?, ?)" query has p50 ${naiveRound.value.toFixed(0)} µs here`,
        ],
      );
    }

    // --- scope + time range ----------------------------------------------------------------------------
    {
      const statement = raw.prepare(
        `SELECT ${COLUMNS} FROM episodic_events WHERE scope = ? AND ts_ms >= ? AND ts_ms <= ? ORDER BY ts_ms, id LIMIT 50`,
      );
      await runQueryRow(
        rowSpec(
          'ledger.query.time',
          'scope + time range, limit 50',
          'ledger.query({ scope, fromTsMs, toTsMs, limit: 50 })',
          'SELECT … WHERE scope = ? AND ts_ms >= ? AND ts_ms <= ? ORDER BY ts_ms, id LIMIT 50',
        ),
        (index) => ({
          scope: MAIN_SCOPE,
          fromTsMs: (windows[index] as { from: number }).from,
          toTsMs: (windows[index] as { to: number }).to,
          limit: 50,
        }),
        (index) =>
          statement.all(
            MAIN_SCOPE,
            (windows[index] as { from: number }).from,
            (windows[index] as { to: number }).to,
          ),
      );
    }

    // --- replay of the interleaved session --------------------------------------------------------
    {
      const expected = Math.ceil(dataset.rows / 100);
      const replays = 3;
      const statement = raw.prepare(
        `SELECT ${COLUMNS}, payload_json FROM episodic_events WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id`,
      );
      const product = async (): Promise<Round> => {
        const times: number[] = [];
        for (let replay = 0; replay < replays; replay++) {
          const start = nowMicros();
          let count = 0;
          let afterId: string | undefined;
          for (;;) {
            const page = await store.ledger.replay(REPLAY_SESSION, {
              scope: MAIN_SCOPE,
              limit: 500,
              includePayload: true,
              ...(afterId === undefined ? {} : { afterId }),
            });
            count += page.events.length;
            if (page.next_after_id === null) break;
            afterId = page.next_after_id;
          }
          times.push((nowMicros() - start) / 1000);
          if (count !== expected) throw new Error(`replay returned ${count} of ${expected} events`);
        }
        return { value: median(times), latencies: times };
      };
      const probe = (): Round => {
        const times: number[] = [];
        for (let replay = 0; replay < replays; replay++) {
          const start = nowMicros();
          const found = statement.all(MAIN_SCOPE, REPLAY_SESSION) as Array<{
            payload_json: string | null;
          }>;
          for (const row of found) if (row.payload_json !== null) JSON.parse(row.payload_json);
          times.push((nowMicros() - start) / 1000);
          if (found.length !== expected) throw new Error('probe replay count differs');
        }
        return { value: median(times), latencies: times };
      };
      const measured = await alternate({ rounds, warmup, product, probe });
      rows.push(
        compareRow(
          {
            id: 'ledger.replay',
            mode: 'read, page cache',
            area: 'replay',
            title: `replay a ${formatCount(expected)}-event session with payloads`,
            durability: 'n/a (read)',
            dataset: `${size}; the session is every 100th event, interleaved across the file`,
            product:
              'ledger.replay(sessionId, { scope, limit: 500, includePayload: true }) paged with afterId',
            probe:
              'one SELECT … WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id + JSON.parse(payload)',
            metric: { name: 'time per replay', unit: 'ms', better: 'lower' },
            latencyUnit: 'ms',
            target: '≤ 1.3× probe',
          },
          measured,
          (row) => [check('time ratio ≤ 1.3', row.ratio?.median ?? Number.NaN, '<=', 1.3)],
        ),
      );
    }

    // --- storage size -------------------------------------------------------------------------------------
    {
      const logical = raw
        .prepare(
          `SELECT count(*) AS rows, sum(
             length(CAST(event_id AS BLOB)) + length(CAST(scope AS BLOB)) + length(CAST(session_id AS BLOB)) +
             length(CAST(agent_id AS BLOB)) + length(CAST(type AS BLOB)) + length(CAST(summary AS BLOB)) +
             coalesce(length(CAST(payload_json AS BLOB)), 0) + coalesce(length(CAST(refs_json AS BLOB)), 0) +
             coalesce(length(CAST(metadata_json AS BLOB)), 0) + length(CAST(schema_version AS BLOB)) +
             length(CAST(created_at AS BLOB)) + 8 + 8
           ) AS bytes FROM episodic_events`,
        )
        .get() as { rows: number; bytes: number };
      raw.pragma('wal_checkpoint(TRUNCATE)');
      const fileBytes = statSync(dataset.path).size;
      const perEvent = fileBytes / logical.rows;
      const logicalPerEvent = logical.bytes / logical.rows;
      rows.push(
        singleRow(
          {
            id: 'ledger.storage',
            mode: 'WAL checkpointed',
            area: 'storage size',
            title: `database bytes per event at ${formatCount(logical.rows)} events`,
            durability: 'WAL checkpointed (no -wal left)',
            dataset: size,
            product: 'the .db file the product wrote (table, 4 seed indexes, session heads)',
            probe:
              'logical bytes: UTF-8 bytes of every text column + 8 per integer (ts_ms, position)',
            metric: { name: 'file bytes / logical bytes', unit: '×', better: 'lower' },
            target: '≤ 1.4× logical bytes',
          },
          [{ value: perEvent / logicalPerEvent }],
          (row) => [
            check('bytes ratio ≤ 1.4', row.productResult?.metric.median ?? Number.NaN, '<=', 1.4),
          ],
          [
            `${perEvent.toFixed(0)} B/event on disk vs ${logicalPerEvent.toFixed(0)} B/event logical (${LEDGER_SCHEMA_VERSION} rows)`,
          ],
        ),
      );
    }
    raw.close();
    await store.close();
    return rows;
  },
};
