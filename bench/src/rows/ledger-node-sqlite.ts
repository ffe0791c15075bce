import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { NewLedgerEvent } from '@episodic/core';
import { openSqliteDatabase } from '@episodic/store-sqlite';
import Database from 'better-sqlite3';
import { ensureLedger } from '../data/datasets.js';
import { MAIN_SCOPE, mainScopeSessions } from '../data/ledger-events.js';
import { alternate, compareRow, type Round, type RowSpec, unavailableRow } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { coldStartEnvironment, timeNode } from '../lib/spawn.js';
import { LatencyRecorder, median, nowMicros } from '../lib/stats.js';
import { eventsFor, INSERT_SQL, insertParameters, RawLedgerProbe } from './ledger-insert.js';
import { COLUMNS, p50Round } from './ledger-query.js';

// Should the stores use node:sqlite (built into Node from 22.13, no native build, no install
// script to approve) instead of better-sqlite3? The same raw ledger work through both drivers,
// side by side: the node:sqlite side is the "product", better-sqlite3 the probe, so a ratio below
// 1 means node:sqlite is slower. No targets: these rows inform a decision (bench/README.md).
// They need a Node with node:sqlite; under Node 20 they report "not available".

/** The part of node:sqlite these rows use (its types are not in @types/node 20). */
interface NodeSqliteStatement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}
interface NodeSqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeSqliteStatement;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: new (path: string, options?: { timeout?: number }) => NodeSqliteDatabase;
}

function loadNodeSqlite(): NodeSqlite | null {
  try {
    // A builtin: required, so the row module also loads (and reports) on a Node without it.
    return createRequire(import.meta.url)('node:sqlite') as NodeSqlite;
  } catch {
    return null;
  }
}

/** A node:sqlite connection with the product's pragmas (busy timeout first, as openSqliteDatabase does). */
function openNodeSqlite(driver: NodeSqlite, path: string): NodeSqliteDatabase {
  const database = new driver.DatabaseSync(path, { timeout: 5000 });
  database.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; PRAGMA mmap_size = 0; PRAGMA foreign_keys = ON',
  );
  return database;
}

/** The raw ledger insert on node:sqlite: the same SQL and parameters as `RawLedgerProbe`. */
class NodeSqliteLedger {
  private readonly insert: NodeSqliteStatement;
  private readonly begin: NodeSqliteStatement;
  private readonly commit: NodeSqliteStatement;
  private readonly positions = new Map<string, number>();
  private counter = 0;

  constructor(readonly database: NodeSqliteDatabase) {
    this.insert = database.prepare(INSERT_SQL);
    this.begin = database.prepare('BEGIN IMMEDIATE');
    this.commit = database.prepare('COMMIT');
  }

  insertOne(event: NewLedgerEvent): void {
    const key = `${event.scope}\u0000${event.session_id}`;
    const position = (this.positions.get(key) ?? 0) + 1;
    this.positions.set(key, position);
    this.insert.run(...insertParameters(event, ++this.counter, position));
  }

  insertBatch(events: readonly NewLedgerEvent[]): void {
    this.begin.run();
    try {
      for (const event of events) this.insertOne(event);
      this.commit.run();
    } catch (error) {
      this.database.exec('ROLLBACK');
      throw error;
    }
  }
}

/** A script that loads a driver, opens the ledger, runs one query and prints the row count. */
function loadScript(driver: 'node:sqlite' | 'better-sqlite3', betterSqlite3: string): string {
  const open =
    driver === 'node:sqlite'
      ? `const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(path, { timeout: 5000 });`
      : `const Database = require(${JSON.stringify(betterSqlite3)}); const db = new Database(path, { timeout: 5000 });`;
  return `const path = process.argv[2];
${open}
const rows = db.prepare('SELECT ${COLUMNS} FROM episodic_events WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id LIMIT 50').all(process.argv[3], process.argv[4]);
process.stdout.write(String(rows.length));
db.close();
`;
}

export const ledgerNodeSqliteModule: RowModule = {
  id: 'ledger-node-sqlite',
  rows: [
    'ledger.node-sqlite.insert.row',
    'ledger.node-sqlite.insert.batch',
    'ledger.node-sqlite.query.session',
    'ledger.node-sqlite.start',
  ],
  needs: ['ledger'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const spec = (
      id: string,
      title: string,
      metric: RowSpec['metric'],
      fields: Partial<RowSpec> = {},
    ): RowSpec => ({
      id,
      mode: 'WAL NORMAL',
      area: 'ledger driver',
      title,
      durability: 'WAL, synchronous=NORMAL on both drivers',
      dataset: '',
      product: 'node:sqlite (DatabaseSync), raw SQL',
      probe: 'better-sqlite3, the same raw SQL',
      metric,
      latencyUnit: 'µs',
      target: 'none: informs the driver decision (node:sqlite / better-sqlite3)',
      ...fields,
    });
    const throughput = { name: 'throughput', unit: 'rows/s', better: 'higher' as const };
    const perQuery = { name: 'p50 per query', unit: 'µs', better: 'lower' as const };
    const startMetric = { name: 'median wall time', unit: 'ms', better: 'lower' as const };
    const specs = [
      spec('ledger.node-sqlite.insert.row', 'raw INSERT, one event per transaction', throughput),
      spec('ledger.node-sqlite.insert.batch', 'raw INSERT, 100 events per transaction', throughput),
      spec(
        'ledger.node-sqlite.query.session',
        'scope + session, limit 50, at the ledger size',
        perQuery,
        {
          mode: 'read, page cache',
        },
      ),
      spec(
        'ledger.node-sqlite.start',
        'spawn, load the driver, open, one query, exit',
        startMetric,
        {
          mode: 'cold, no CA env',
          latencyUnit: 'ms',
        },
      ),
    ];
    const driver = loadNodeSqlite();
    if (driver === null) {
      const reason = `not available: node:sqlite needs Node >= 22.13 (this is Node ${process.versions.node}); run the bench with a Node 22 or 24 binary first on PATH (better-sqlite3 rebuilt for it)`;
      return specs.map((row) => unavailableRow(row, reason));
    }
    const [insertRow, insertBatch, querySession, start] = specs as [
      RowSpec,
      RowSpec,
      RowSpec,
      RowSpec,
    ];
    const { rounds, warmup } = context.sizes;
    const scratch = scratchDirectory(context, 'ledger-node-sqlite');
    const rows: RowResult[] = [];
    const versionOf = (all: () => unknown[]) => (all()[0] as { v: string } | undefined)?.v ?? '?';
    const probeMemory = new driver.DatabaseSync(':memory:');
    const betterMemory = new Database(':memory:');
    const note = `Node ${process.versions.node}: node:sqlite links SQLite ${versionOf(() => probeMemory.prepare('select sqlite_version() as v').all())}, better-sqlite3 ${versionOf(() => betterMemory.prepare('select sqlite_version() as v').all())}`;
    probeMemory.close();
    betterMemory.close();
    try {
      const shape = 1_000_000;
      let next = 0;
      const take = (count: number) => {
        const events = eventsFor(next, count, shape);
        next += count;
        return events;
      };
      // Both files get the product's schema and pragmas from openSqliteDatabase.
      const prepared = (name: string) => {
        const path = join(scratch.path, name);
        openSqliteDatabase(path).close();
        return path;
      };
      const nodeLedger = new NodeSqliteLedger(openNodeSqlite(driver, prepared('node-sqlite.db')));
      const betterDatabase = openSqliteDatabase(prepared('better-sqlite3.db'));
      const betterLedger = new RawLedgerProbe(betterDatabase);
      try {
        const count = context.quick ? 1000 : 5000;
        const timed = (insert: (event: NewLedgerEvent) => void) => () => {
          const events = take(count);
          const latencies = new LatencyRecorder(count);
          const begin = nowMicros();
          for (const event of events) {
            const before = nowMicros();
            insert(event);
            latencies.add(nowMicros() - before);
          }
          return { value: count / ((nowMicros() - begin) / 1e6), latencies: latencies.toArray() };
        };
        rows.push(
          compareRow(
            {
              ...insertRow,
              dataset: `${formatCount(count)} events (~470 B) per round into a growing file`,
            },
            await alternate({
              rounds,
              warmup,
              product: timed((event) => nodeLedger.insertOne(event)),
              probe: timed((event) => betterLedger.insertOne(event)),
            }),
            () => [],
            [note],
          ),
        );
        const batch = 100;
        const batches = context.quick ? 50 : 300;
        const batched = (insert: (events: NewLedgerEvent[]) => void) => () => {
          const groups = Array.from({ length: batches }, () => take(batch));
          const begin = nowMicros();
          for (const group of groups) insert(group);
          return { value: (batch * batches) / ((nowMicros() - begin) / 1e6) };
        };
        rows.push(
          compareRow(
            { ...insertBatch, dataset: `${batches} × ${batch} events per round` },
            await alternate({
              rounds,
              warmup,
              product: batched((events) => nodeLedger.insertBatch(events)),
              probe: batched((events) => betterLedger.insertBatch(events)),
            }),
            () => [],
          ),
        );
      } finally {
        nodeLedger.database.close();
        betterDatabase.close();
      }

      const dataset = await ensureLedger(context);
      const sessions = mainScopeSessions(dataset.rows, 200);
      const sessionOf = (index: number) => sessions[index % sessions.length] as string;
      const queries = context.quick ? 500 : 1000;
      const sql = `SELECT ${COLUMNS} FROM episodic_events WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id LIMIT 50`;
      const nodeRead = openNodeSqlite(driver, dataset.path);
      const betterRead = new Database(dataset.path, { timeout: 5000 });
      try {
        const nodeQuery = nodeRead.prepare(sql);
        const betterQuery = betterRead.prepare(sql);
        rows.push(
          compareRow(
            { ...querySession, dataset: `${formatCount(dataset.rows)}-event ledger` },
            await alternate({
              rounds,
              warmup,
              product: () =>
                p50Round(queries, (index) => nodeQuery.all(MAIN_SCOPE, sessionOf(index))),
              probe: () =>
                p50Round(queries, (index) => betterQuery.all(MAIN_SCOPE, sessionOf(index))),
            }),
            () => [],
          ),
        );
      } finally {
        nodeRead.close();
        betterRead.close();
      }

      // Start-up: what a CLI command pays to load each driver (dlopen of the addon vs a builtin).
      const betterPath = createRequire(import.meta.url).resolve('better-sqlite3');
      const scripts = {
        node: join(scratch.path, 'load-node-sqlite.cjs'),
        better: join(scratch.path, 'load-better-sqlite3.cjs'),
      };
      writeFileSync(scripts.node, loadScript('node:sqlite', betterPath));
      writeFileSync(scripts.better, loadScript('better-sqlite3', betterPath));
      const environment = coldStartEnvironment();
      const spawns = context.quick ? 5 : 10;
      const session = sessionOf(0);
      const spawnRound = (script: string) => (): Round => {
        const times: number[] = [];
        for (let index = 0; index < spawns; index++) {
          const timing = timeNode(
            ['--no-warnings', script, dataset.path, MAIN_SCOPE, session],
            environment,
          );
          if (timing.status !== 0) throw new Error(`${script} failed: ${timing.stderr}`);
          times.push(timing.ms);
        }
        return { value: median(times), latencies: times };
      };
      rows.push(
        compareRow(
          {
            ...start,
            dataset: `${spawns} spawns per round per side, ${formatCount(dataset.rows)}-event ledger`,
          },
          await alternate({
            rounds,
            warmup,
            product: spawnRound(scripts.node),
            probe: spawnRound(scripts.better),
          }),
          () => [],
        ),
      );
    } finally {
      scratch.dispose();
    }
    return rows;
  },
};
