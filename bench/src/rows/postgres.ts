import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { LedgerQueryInput, NewLedgerEvent } from '@episodic/core';
import { createPostgresStore, type PostgresStore } from '@episodic/store-postgres';
import pg from 'pg';
import {
  intervalMs,
  LEDGER_T0,
  ledgerEventAt,
  MAIN_SCOPE,
  mainScopeSessions,
  REPLAY_SESSION,
} from '../data/ledger-events.js';
import { createRandom } from '../data/text.js';
import { benchServer, serverName } from '../lib/bench-postgres.js';
import { alternate, check, compareRow, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { LatencyRecorder, median, nowMicros, quantile } from '../lib/stats.js';
import { type SearchCase, searchCases } from './ledger-search.js';

const COLUMNS =
  'id, event_id, ts_ms, scope, session_id, agent_id, type, summary, refs_json, redacted, schema_version, created_at, metadata_json, position';
const INSERT_COLUMNS =
  'event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position';

/**
 * The raw probe: one `pg.Client` (no pool), the product's table in its own schema, one prepared
 * INSERT per event (or one `unnest` INSERT per batch) with `JSON.stringify` of payload, refs and
 * metadata, session positions kept in a Map. No validation, guards, head rows or transactions.
 */
class RawProbe {
  private readonly positions = new Map<string, number>();
  private counter = 0;

  constructor(
    readonly client: pg.Client,
    readonly schema: string,
  ) {}

  private values(event: NewLedgerEvent): unknown[] {
    const key = `${event.scope}\u0000${event.session_id}`;
    const position = (this.positions.get(key) ?? 0) + 1;
    this.positions.set(key, position);
    return [
      `probe-${(++this.counter).toString(36).padStart(20, '0')}`,
      event.ts_ms,
      event.scope,
      event.session_id,
      event.agent_id,
      event.type,
      event.summary,
      event.payload === undefined ? null : JSON.stringify(event.payload),
      event.refs == null ? null : JSON.stringify(event.refs),
      0,
      'episodic.ledger.v0',
      new Date().toISOString(),
      event.metadata === undefined ? null : JSON.stringify(event.metadata),
      position,
    ];
  }

  insertOne(event: NewLedgerEvent) {
    return this.client.query({
      name: 'probe_insert_one',
      text: `INSERT INTO "${this.schema}".episodic_events (${INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      values: this.values(event),
    });
  }

  insertBatch(events: readonly NewLedgerEvent[]) {
    const rows = events.map((event) => this.values(event));
    const columns = Array.from({ length: 14 }, (_, index) => rows.map((row) => row[index]));
    return this.client.query({
      name: 'probe_insert_batch',
      text: `INSERT INTO "${this.schema}".episodic_events (${INSERT_COLUMNS})
SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::integer[], $11::text[], $12::text[], $13::text[], $14::bigint[])`,
      values: columns,
    });
  }
}

/** The tsquery of a search text: words joined by `&`, a quoted phrase's words by `<->`. */
function tsquery(text: string): string {
  const quote = (word: string) => `'${word}'`;
  return text.startsWith('"')
    ? text.slice(1, -1).split(' ').map(quote).join(' <-> ')
    : text.split(' ').map(quote).join(' & ');
}

/** The search SQL the PostgreSQL store runs, written by hand for one search. */
function searchProbe(table: string, search: SearchCase): { text: string; values: unknown[] } {
  const values: unknown[] = [tsquery(search.text), MAIN_SCOPE];
  const where = ['e.search_vector @@ $1::tsquery', 'e.scope = $2'];
  if (search.sessionId !== undefined) {
    values.push(search.sessionId);
    where.push(`e.session_id = $${values.length}`);
  }
  if (search.fromTsMs !== undefined) {
    values.push(search.fromTsMs);
    where.push(`e.ts_ms >= $${values.length}`);
  }
  if (search.toTsMs !== undefined) {
    values.push(search.toTsMs);
    where.push(`e.ts_ms <= $${values.length}`);
  }
  if (search.types !== undefined) {
    values.push(search.types);
    where.push(`e.type = ANY($${values.length}::text[])`);
  }
  return {
    text: `WITH matches AS (
  SELECT e.id, ts_rank_cd(e.search_vector, $1::tsquery, 1)::float8 AS score FROM ${table} e
  WHERE ${where.join(' AND ')} ORDER BY e.id DESC LIMIT 10000
), page AS (SELECT id, score FROM matches ORDER BY score DESC, id LIMIT 21)
SELECT e.id AS sequence, e.event_id, e.session_id, e.agent_id, e.type, e.ts_ms, e.metadata_json,
  e.summary, e.payload_json, e.refs_json, page.score
FROM page JOIN ${table} e ON e.id = page.id ORDER BY page.score DESC, page.id`,
    values,
  };
}

async function p50Round(
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

function startWriter(
  context: BenchContext,
  url: string,
  schema: string,
  writer: number,
  count: number,
) {
  const child = spawn(
    process.execPath,
    [
      join(context.paths.dist, 'probes', 'postgres-writer.js'),
      url,
      schema,
      String(writer),
      String(count),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout?.setEncoding('utf8');
  const lines = new Promise<string[]>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
    });
    child.on('close', (code) =>
      code === 0
        ? resolve(output.trim().split('\n'))
        : reject(new Error(`postgres writer exited with ${code}`)),
    );
  });
  const ready = new Promise<void>((resolve) => {
    const onData = () => {
      if (output.includes('ready\n')) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
  });
  return { child: child as ChildProcess, ready, lines };
}

/** Appends `rows` events of the standard ledger data set through the product, 1,000 per batch. */
async function load(store: PostgresStore, rows: number, log: (message: string) => void) {
  log(`loading a ${formatCount(rows)}-event ledger into PostgreSQL through the product…`);
  for (let start = 0; start < rows; start += 1000) {
    const events: NewLedgerEvent[] = [];
    for (let index = start; index < Math.min(rows, start + 1000); index++)
      events.push(ledgerEventAt(index, rows));
    await store.ledger.appendBatch(events);
  }
  await store.pool.query(`VACUUM ANALYZE "${store.schema}".episodic_events`);
}

export const postgresModule: RowModule = {
  id: 'postgres',
  rows: [
    'postgres.insert.row',
    'postgres.insert.batch',
    'postgres.query.session',
    'postgres.query.types',
    'postgres.query.time',
    'postgres.replay',
    'postgres.search.rare',
    'postgres.search.common',
    'postgres.search.phrase',
    'postgres.search.filtered',
    'postgres.writers',
  ],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const { rounds, warmup } = context.sizes;
    const rows: RowResult[] = [];
    const { url, server } = await benchServer();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const stores: PostgresStore[] = [];
    const open = async (schema: string) => {
      const store = await createPostgresStore({ connectionString: url, schema });
      stores.push(store);
      return store;
    };
    const where = serverName(server);
    try {
      // --- inserts ------------------------------------------------------------------------------
      {
        const product = await open('bench_insert_product');
        const probeStore = await open('bench_insert_probe');
        const probe = new RawProbe(client, probeStore.schema);
        let next = 0;
        const take = (count: number) =>
          Array.from({ length: count }, () => ledgerEventAt(next++, 1_000_000));
        const count = context.quick ? 1000 : 5000;
        const perRow = await alternate({
          rounds,
          warmup,
          product: async () => {
            const events = take(count);
            const latencies = new LatencyRecorder(count);
            const start = nowMicros();
            for (const event of events) {
              const before = nowMicros();
              await product.ledger.append(event);
              latencies.add(nowMicros() - before);
            }
            return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
          },
          probe: async () => {
            const events = take(count);
            const latencies = new LatencyRecorder(count);
            const start = nowMicros();
            for (const event of events) {
              const before = nowMicros();
              await probe.insertOne(event);
              latencies.add(nowMicros() - before);
            }
            return { value: count / ((nowMicros() - start) / 1e6), latencies: latencies.toArray() };
          },
        });
        rows.push(
          compareRow(
            {
              id: 'postgres.insert.row',
              mode: 'commit per row',
              area: 'PostgreSQL store',
              title: 'append one event per transaction',
              durability: `each append committed (synchronous_commit on), ${where}`,
              dataset: `${formatCount(count)} events (~470 B) per round into a growing table`,
              product:
                'await ledger.append(event): validation, guards, ULID, one statement advancing the session head and inserting the row',
              probe:
                'raw pg.Client: prepared INSERT (autocommit), same table, JSON.stringify payload',
              metric: { name: 'throughput', unit: 'rows/s', better: 'higher' },
              latencyUnit: 'µs',
              target: '≥ 0.75× probe per row',
            },
            perRow,
            (row) => [
              check('throughput ratio ≥ 0.75', row.ratio?.median ?? Number.NaN, '>=', 0.75),
            ],
          ),
        );
        const batches = context.quick ? 10 : 40;
        const batched = await alternate({
          rounds,
          warmup,
          product: async () => {
            const start = nowMicros();
            for (let batch = 0; batch < batches; batch++)
              await product.ledger.appendBatch(take(100));
            return { value: (batches * 100) / ((nowMicros() - start) / 1e6) };
          },
          probe: async () => {
            const start = nowMicros();
            for (let batch = 0; batch < batches; batch++) await probe.insertBatch(take(100));
            return { value: (batches * 100) / ((nowMicros() - start) / 1e6) };
          },
        });
        rows.push(
          compareRow(
            {
              id: 'postgres.insert.batch',
              mode: 'commit per batch',
              area: 'PostgreSQL store',
              title: 'append 100 events per transaction',
              durability: `each batch committed, ${where}`,
              dataset: `${batches} batches of 100 events per round`,
              product:
                'await ledger.appendBatch(100 events): one statement (heads + unnest insert)',
              probe: 'raw pg.Client: one prepared INSERT … SELECT FROM unnest(…) of the 100 rows',
              metric: { name: 'throughput', unit: 'rows/s', better: 'higher' },
              target: '≥ 0.75× probe batched',
            },
            batched,
            (row) => [
              check('throughput ratio ≥ 0.75', row.ratio?.median ?? Number.NaN, '>=', 0.75),
            ],
          ),
        );
      }

      // --- queries and replay on a loaded ledger --------------------------------------------------
      {
        const total = context.sizes.ledgerRows;
        const store = await open('bench_ledger');
        await load(store, total, context.log);
        const table = `"${store.schema}".episodic_events`;
        const size = `${formatCount(total)} events, 4 scopes, ~${formatCount(total / 250)} sessions`;
        const queries = context.quick ? 300 : 1000;
        const random = createRandom(5);
        const sessions = mainScopeSessions(total, 200);
        const sessionOf = (index: number) => sessions[index % sessions.length] as string;
        const step = intervalMs(total);
        const span = total * step;
        const windows = Array.from({ length: queries }, () => {
          const from = LEDGER_T0 + Math.floor(random() * (span - 2000 * step));
          return { from, to: from + 2000 * step };
        });
        const spec = (id: string, title: string, product: string, probe: string) => ({
          id,
          mode: 'read',
          area: 'PostgreSQL store',
          title,
          durability: 'n/a (read; the table in shared buffers)',
          dataset: size,
          product,
          probe,
          metric: { name: 'p50 per query', unit: 'µs', better: 'lower' as const },
          latencyUnit: 'µs',
          target: 'p50 ≤ 1.3× probe',
        });
        const queryRow = async (
          rowSpec: ReturnType<typeof spec>,
          product: (index: number) => LedgerQueryInput,
          probeSql: string,
          probeValues: (index: number) => unknown[],
        ) => {
          const probe = (index: number) =>
            client.query({ name: rowSpec.id, text: probeSql, values: probeValues(index) });
          for (let index = 0; index < Math.min(queries, 200); index++) {
            await store.ledger.query(product(index));
            await probe(index);
          }
          const measured = await alternate({
            rounds,
            warmup,
            product: () => p50Round(queries, (index) => store.ledger.query(product(index))),
            probe: () => p50Round(queries, probe),
          });
          rows.push(
            compareRow(rowSpec, measured, (row) => [
              check('p50 ratio ≤ 1.3', row.ratio?.median ?? Number.NaN, '<=', 1.3),
            ]),
          );
        };
        await queryRow(
          spec(
            'postgres.query.session',
            'scope + session, limit 50',
            'ledger.query({ scope, sessionId, limit: 50 })',
            'the same SELECT … WHERE session_id = $1 AND scope = $2 ORDER BY ts_ms, id LIMIT 51 (raw pg.Client, prepared)',
          ),
          (index) => ({ scope: MAIN_SCOPE, sessionId: sessionOf(index), limit: 50 }),
          `SELECT ${COLUMNS} FROM ${table} WHERE session_id = $1 AND scope = $2 ORDER BY ts_ms, id LIMIT 51`,
          (index) => [sessionOf(index), MAIN_SCOPE],
        );
        await queryRow(
          spec(
            'postgres.query.types',
            'scope + two types + from time, limit 50',
            "ledger.query({ scope, types: ['ops.decision', 'tool.call'], fromTsMs, limit: 50 })",
            'the same two-arm query raw: (… type = $2 … LIMIT 51) UNION ALL (… type = $3 … LIMIT 51) ORDER BY ts_ms, id LIMIT 51',
          ),
          (index) => ({
            scope: MAIN_SCOPE,
            types: ['ops.decision', 'tool.call'],
            fromTsMs: (windows[index] as { from: number }).from,
            limit: 50,
          }),
          `(SELECT ${COLUMNS} FROM ${table} WHERE scope = $1 AND type = $2 AND ts_ms >= $4 ORDER BY ts_ms, id LIMIT 51) UNION ALL (SELECT ${COLUMNS} FROM ${table} WHERE scope = $1 AND type = $3 AND ts_ms >= $4 ORDER BY ts_ms, id LIMIT 51) ORDER BY ts_ms, id LIMIT 51`,
          (index) => [
            MAIN_SCOPE,
            'ops.decision',
            'tool.call',
            (windows[index] as { from: number }).from,
          ],
        );
        await queryRow(
          spec(
            'postgres.query.time',
            'scope + time range, limit 50',
            'ledger.query({ scope, fromTsMs, toTsMs, limit: 50 })',
            'SELECT … WHERE scope = $1 AND ts_ms >= $2 AND ts_ms <= $3 ORDER BY ts_ms, id LIMIT 51',
          ),
          (index) => ({
            scope: MAIN_SCOPE,
            fromTsMs: (windows[index] as { from: number }).from,
            toTsMs: (windows[index] as { to: number }).to,
            limit: 50,
          }),
          `SELECT ${COLUMNS} FROM ${table} WHERE scope = $1 AND ts_ms >= $2 AND ts_ms <= $3 ORDER BY ts_ms, id LIMIT 51`,
          (index) => [
            MAIN_SCOPE,
            (windows[index] as { from: number }).from,
            (windows[index] as { to: number }).to,
          ],
        );

        const expected = Math.ceil(total / 100);
        const replays = 3;
        const replayProduct = async (): Promise<Round> => {
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
            if (count !== expected)
              throw new Error(`replay returned ${count} of ${expected} events`);
          }
          return { value: median(times), latencies: times };
        };
        const replayProbe = async (): Promise<Round> => {
          const times: number[] = [];
          for (let replay = 0; replay < replays; replay++) {
            const start = nowMicros();
            const found = await client.query<{ payload_json: string | null }>({
              name: 'probe_replay',
              text: `SELECT ${COLUMNS}, payload_json FROM ${table} WHERE session_id = $1 AND scope = $2 ORDER BY ts_ms, id`,
              values: [REPLAY_SESSION, MAIN_SCOPE],
            });
            for (const row of found.rows)
              if (row.payload_json !== null) JSON.parse(row.payload_json);
            times.push((nowMicros() - start) / 1000);
            if (found.rows.length !== expected) throw new Error('probe replay count differs');
          }
          return { value: median(times), latencies: times };
        };
        rows.push(
          compareRow(
            {
              id: 'postgres.replay',
              mode: 'read',
              area: 'PostgreSQL store',
              title: `replay a ${formatCount(expected)}-event session with payloads`,
              durability: 'n/a (read)',
              dataset: `${size}; the session is every 100th event, interleaved across the table`,
              product:
                'ledger.replay(sessionId, { scope, limit: 500, includePayload: true }) paged with afterId',
              probe:
                'one raw SELECT … WHERE session_id = $1 AND scope = $2 ORDER BY ts_ms, id + JSON.parse(payload)',
              metric: { name: 'time per replay', unit: 'ms', better: 'lower' },
              latencyUnit: 'ms',
              target: '≤ 1.3× probe',
            },
            await alternate({ rounds, warmup, product: replayProduct, probe: replayProbe }),
            (row) => [check('time ratio ≤ 1.3', row.ratio?.median ?? Number.NaN, '<=', 1.3)],
          ),
        );
        // --- search (issue #32): the product against its tsquery SQL by hand ---------------------
        const searches = searchCases(total);
        const searchQueries = context.quick ? 12 : 30;
        for (const [name, title] of [
          ['rare', 'a rare word (~100 events), page of 20'],
          ['common', 'a common word (~45 % of events), page of 20'],
          ['phrase', 'a two-word phrase (~0.6 % of events), page of 20'],
          ['filtered', 'a common word + session, or + type and one day, page of 20'],
        ] as const) {
          const list = searches[name];
          const searchOf = (index: number) => list[index % list.length] as SearchCase;
          const probe = (index: number) => {
            const { text, values } = searchProbe(table, searchOf(index));
            return client.query({ text, values });
          };
          const product = (index: number) =>
            store.ledger.search({ scope: MAIN_SCOPE, ...searchOf(index), limit: 20 } as Parameters<
              typeof store.ledger.search
            >[0]);
          const measured = await alternate({
            rounds,
            warmup,
            product: () => p50Round(searchQueries, product),
            probe: () => p50Round(searchQueries, probe),
          });
          rows.push(
            compareRow(
              {
                id: `postgres.search.${name}`,
                mode: 'read',
                area: 'PostgreSQL store',
                title,
                durability: 'n/a (read; the table in shared buffers)',
                dataset: size,
                product: `ledger.search({ scope, text, …filters, limit: 20 }) for ${[...new Set(list.map((search) => search.text))].join(', ')}`,
                probe:
                  'the same SQL by hand (raw pg.Client, unnamed: planned per call, as the store runs it): ts_rank_cd over the newest 10,000 GIN matches in scope and filters, best 21, their columns',
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
              [
                "the product also makes each hit's snippet from core's tokens (the probe returns the text)",
              ],
            ),
          );
        }
      }

      // --- 8 writer processes beside 1 ------------------------------------------------------------
      {
        const schema = 'bench_writers';
        await open(schema);
        const perWriter = context.quick ? 300 : 2000;
        const throughput = async (writers: number): Promise<Round> => {
          const started = Array.from({ length: writers }, (_, index) =>
            startWriter(context, url, schema, index, perWriter),
          );
          await Promise.all(started.map((writer) => writer.ready));
          const start = nowMicros();
          for (const writer of started) writer.child.stdin?.end('go\n');
          const reports = await Promise.all(started.map((writer) => writer.lines));
          const seconds = (nowMicros() - start) / 1e6;
          const appended = reports
            .map((lines) => JSON.parse(lines.at(-1) as string) as { appended: number })
            .reduce((sum, report) => sum + report.appended, 0);
          return { value: appended / seconds };
        };
        rows.push(
          compareRow(
            {
              id: 'postgres.writers',
              mode: 'commit per row',
              area: 'PostgreSQL store',
              title: '8 writer processes beside 1 (each its own pool and session)',
              durability: `each append committed, ${where}`,
              dataset: `${formatCount(perWriter)} appends per writer per round`,
              product: '8 processes, each awaiting ledger.append in a loop on its own session',
              probe: '1 process doing the same',
              metric: { name: 'total throughput', unit: 'rows/s', better: 'higher' },
              target: 'reported (8 writers / 1 writer), no bound',
            },
            await alternate({
              rounds,
              warmup: 0,
              product: () => throughput(8),
              probe: () => throughput(1),
            }),
            () => [],
            [
              'on a 2-core machine the server and 8 writers share 2 cores: the ratio shows contention, not a limit of the store',
            ],
          ),
        );
      }
    } finally {
      for (const store of stores) await store.close();
      await client.end();
      await server?.destroy();
    }
    return rows;
  },
};
