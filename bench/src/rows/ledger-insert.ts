import { join } from 'node:path';
import type { NewLedgerEvent } from '@episodic/core';
import {
  createSqliteStore,
  openSqliteDatabase,
  type SqliteSynchronous,
} from '@episodic/store-sqlite';
import type Database from 'better-sqlite3';
import { ledgerEventAt } from '../data/ledger-events.js';
import { alternate, check, compareRow } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, nowMicros } from '../lib/stats.js';

/** The raw INSERT of one ledger row; the node:sqlite row runs it too. */
export const INSERT_SQL = `INSERT INTO episodic_events (event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, redacted, schema_version, created_at, metadata_json, position)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`;

/** The parameters of `INSERT_SQL` for `event`, the `counter`-th row, at session `position`. */
export function insertParameters(
  event: NewLedgerEvent,
  counter: number,
  position: number,
): unknown[] {
  return [
    `probe-${counter.toString(36).padStart(20, '0')}`,
    event.ts_ms ?? null,
    event.scope,
    event.session_id,
    event.agent_id,
    event.type,
    event.summary,
    event.payload === undefined ? null : JSON.stringify(event.payload),
    event.refs == null ? null : JSON.stringify(event.refs),
    'episodic.ledger.v0',
    new Date().toISOString(),
    event.metadata === undefined ? null : JSON.stringify(event.metadata),
    position,
  ];
}

/**
 * The raw probe: the same table (opened by `openSqliteDatabase`, so schema and pragmas are the
 * product's), one prepared INSERT per event with JSON.stringify of payload, refs and metadata, a
 * counter id, and session positions kept in a Map. No validation, guards or head table.
 */
export class RawLedgerProbe {
  private readonly insert: Database.Statement;
  private readonly positions = new Map<string, number>();
  private counter = 0;
  readonly insertBatch: (events: readonly NewLedgerEvent[]) => void;

  constructor(readonly database: Database.Database) {
    this.insert = database.prepare(INSERT_SQL);
    this.insertBatch = database.transaction((events: readonly NewLedgerEvent[]) => {
      for (const event of events) this.insertOne(event);
    });
  }

  insertOne(event: NewLedgerEvent): void {
    const key = `${event.scope}\u0000${event.session_id}`;
    const position = (this.positions.get(key) ?? 0) + 1;
    this.positions.set(key, position);
    this.insert.run(...insertParameters(event, ++this.counter, position));
  }
}

/** `count` events of a ledger shaped like one of `rows` rows, from the `first`-th. */
export function eventsFor(first: number, count: number, rows: number): NewLedgerEvent[] {
  return Array.from({ length: count }, (_, offset) => ledgerEventAt(first + offset, rows));
}

export const ledgerInsertModule: RowModule = {
  id: 'ledger-insert',
  rows: ['ledger.insert.row', 'ledger.insert.row.full', 'ledger.insert.batch'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'ledger-insert');
    const { rounds, warmup } = context.sizes;
    const rows: RowResult[] = [];
    // Events of a 1M-row ledger shape; each side appends fresh ones into its own growing file.
    const shape = 1_000_000;
    let next = 0;
    const take = (count: number) => {
      const events = eventsFor(next, count, shape);
      next += count;
      return events;
    };
    try {
      const perRow = async (synchronous: SqliteSynchronous, count: number) => {
        const store = createSqliteStore({
          filename: join(scratch.path, `product-${synchronous}.db`),
          synchronous,
        });
        const probeDatabase = openSqliteDatabase(join(scratch.path, `probe-${synchronous}.db`), {
          synchronous,
        });
        const probe = new RawLedgerProbe(probeDatabase);
        const measured = await alternate({
          rounds,
          warmup,
          product: async () => {
            const events = take(count);
            const latencies = new LatencyRecorder(count);
            const start = nowMicros();
            for (const event of events) {
              const before = nowMicros();
              await store.ledger.append(event);
              latencies.add(nowMicros() - before);
            }
            const elapsed = nowMicros() - start;
            return { value: count / (elapsed / 1e6), latencies: latencies.toArray() };
          },
          probe: () => {
            const events = take(count);
            const latencies = new LatencyRecorder(count);
            const start = nowMicros();
            for (const event of events) {
              const before = nowMicros();
              probe.insertOne(event);
              latencies.add(nowMicros() - before);
            }
            const elapsed = nowMicros() - start;
            return { value: count / (elapsed / 1e6), latencies: latencies.toArray() };
          },
        });
        await store.close();
        probeDatabase.close();
        return measured;
      };

      {
        const count = context.quick ? 1000 : 5000;
        rows.push(
          compareRow(
            {
              id: 'ledger.insert.row',
              mode: 'WAL NORMAL',
              area: 'ledger insert',
              title: 'append one event per transaction',
              durability: 'WAL, synchronous=NORMAL (the default): survives a process crash',
              dataset: `${formatCount(count)} events (~470 B) per round into a growing file`,
              product:
                'await ledger.append(event): validate, scope, canonical JSON, caps, guards, ULID, IMMEDIATE txn with session head',
              probe:
                'raw prepared INSERT (autocommit), same table and pragmas, JSON.stringify payload',
              metric: { name: 'throughput', unit: 'rows/s', better: 'higher' },
              latencyUnit: 'µs',
              target: '≥ 0.8× probe per row',
            },
            await perRow('NORMAL', count),
            (row) => [check('throughput ratio ≥ 0.8', row.ratio?.median ?? Number.NaN, '>=', 0.8)],
          ),
        );
      }
      {
        const count = context.quick ? 200 : 1000;
        rows.push(
          compareRow(
            {
              id: 'ledger.insert.row.full',
              mode: 'WAL FULL',
              area: 'ledger insert',
              title: 'append one event per transaction, synced',
              durability: 'WAL, synchronous=FULL: every commit fsynced',
              dataset: `${formatCount(count)} events (~470 B) per round into a growing file`,
              product: 'await ledger.append(event) (store opened with synchronous: FULL)',
              probe: 'raw prepared INSERT (autocommit), same table and pragmas',
              metric: { name: 'throughput', unit: 'rows/s', better: 'higher' },
              latencyUnit: 'µs',
              target: '≥ 0.8× probe per row (per mode)',
            },
            await perRow('FULL', count),
            (row) => [check('throughput ratio ≥ 0.8', row.ratio?.median ?? Number.NaN, '>=', 0.8)],
          ),
        );
      }
      {
        const batch = 100;
        const batches = context.quick ? 50 : 300;
        const store = createSqliteStore({ filename: join(scratch.path, 'product-batch.db') });
        const probeDatabase = openSqliteDatabase(join(scratch.path, 'probe-batch.db'));
        const probe = new RawLedgerProbe(probeDatabase);
        const measured = await alternate({
          rounds,
          warmup,
          product: async () => {
            const groups = Array.from({ length: batches }, () => take(batch));
            const start = nowMicros();
            for (const group of groups) await store.ledger.appendBatch(group);
            return { value: (batch * batches) / ((nowMicros() - start) / 1e6) };
          },
          probe: () => {
            const groups = Array.from({ length: batches }, () => take(batch));
            const start = nowMicros();
            for (const group of groups) probe.insertBatch(group);
            return { value: (batch * batches) / ((nowMicros() - start) / 1e6) };
          },
        });
        await store.close();
        probeDatabase.close();
        rows.push(
          compareRow(
            {
              id: 'ledger.insert.batch',
              mode: 'WAL NORMAL',
              area: 'ledger insert',
              title: 'append 100 events per transaction',
              durability: 'WAL, synchronous=NORMAL',
              dataset: `${formatCount(batches)} batches of ${batch} events per round into a growing file`,
              product: 'await ledger.appendBatch(events) (100 events, one IMMEDIATE transaction)',
              probe: 'raw prepared INSERT × 100 in one db.transaction',
              metric: { name: 'throughput', unit: 'rows/s', better: 'higher' },
              target: '≥ 0.75× probe batched',
            },
            measured,
            (row) => [
              check('throughput ratio ≥ 0.75', row.ratio?.median ?? Number.NaN, '>=', 0.75),
            ],
          ),
        );
      }
    } finally {
      scratch.dispose();
    }
    return rows;
  },
};
