import { createHash, hash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { NewLedgerEvent, RunRecord } from '@episodic/core';
import { createFsStore, type FsStore } from '@episodic/store-fs';
import { createSqliteStore, openSqliteDatabase } from '@episodic/store-sqlite';
import { ledgerEventAt } from '../data/ledger-events.js';
import { benchRunId, runHeader, runRecords } from '../data/run-records.js';
import { createRandom, prose } from '../data/text.js';
import { alternate, check, compareRow, type Measure, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatBytes, formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, median, nowMicros } from '../lib/stats.js';

/** What `verifyChain` is given: Node's one-call SHA-256, as `@episodic/home` injects it. */
const sha256 = (bytes: Uint8Array): Uint8Array => hash('sha256', bytes, 'buffer');

/** "overhead ≤ 10 %": the chained side keeps at least 1 / 1.1 of the unchained throughput. */
const OVERHEAD_RATIO = 1 / 1.1;

const CALLERS = 64;
const LEDGER_SCOPE = 'bench-verify';

/** A record of about `bytes` bytes as a stored line (before its ~90-byte chain member). */
function sizedRecord(runId: string, seq: number, bytes: number, random: () => number): RunRecord {
  return {
    type: 'agent.event',
    run_id: runId,
    ts: '2026-02-03T12:00:00.000Z',
    seq,
    event: { type: 'text', content: prose(random, Math.max(8, bytes - 190)) },
  };
}

/** Appends `records` to a new run, `batch` records per `append` call. */
async function writeRun(
  store: FsStore,
  runId: string,
  records: readonly RunRecord[],
  batch = 500,
): Promise<void> {
  await store.runs.append(runId, [runHeader(runId)]);
  for (let index = 0; index < records.length; index += batch)
    await store.runs.append(runId, records.slice(index, index + batch));
}

/** Every `.jsonl` run file under `root/sessions` (the erasure log and locks excepted). */
function runFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'locks') walk(path);
      } else if (entry.name.endsWith('.jsonl') && entry.name !== 'erasures.jsonl') files.push(path);
    }
  };
  walk(join(root, 'sessions'));
  return files.sort();
}

/** A side of an append pair: `count` appends (after a header) to a new run of `store`. */
function appendSide(
  store: FsStore,
  nextRun: () => string,
  count: number,
  callers: number,
  timed: boolean,
): Measure {
  return async (): Promise<Round> => {
    const runId = nextRun();
    const records = runRecords(runId, 0, count, 7);
    await store.runs.append(runId, [runHeader(runId)]);
    const latencies = timed ? new LatencyRecorder(count) : undefined;
    const start = nowMicros();
    await Promise.all(
      Array.from({ length: callers }, async (_, caller) => {
        for (let index = caller; index < count; index += callers) {
          const before = latencies === undefined ? 0 : nowMicros();
          await store.runs.append(runId, [records[index] as RunRecord]);
          latencies?.add(nowMicros() - before);
        }
      }),
    );
    const elapsed = nowMicros() - start;
    await store.runs.delete(runId);
    return {
      value: count / (elapsed / 1e6),
      ...(latencies === undefined ? {} : { latencies: latencies.toArray() }),
    };
  };
}

/** The canonical-bytes probe of one ledger row: the columns read, the canonical JSON built by hand, one hash. */
const LEDGER_PROBE_SQL = `SELECT event_id, ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, metadata_json, schema_version, created_at, position, chain_salt
FROM episodic_events WHERE scope = ? ORDER BY session_id, position`;

interface LedgerProbeRow {
  event_id: string;
  ts_ms: number;
  scope: string;
  session_id: string;
  agent_id: string;
  type: string;
  summary: string;
  payload_json: string | null;
  refs_json: string | null;
  metadata_json: string | null;
  schema_version: string;
  created_at: string;
  position: number;
  chain_salt: Buffer | null;
}

export const verifyModule: RowModule = {
  id: 'verify',
  rows: [
    'run.append.durable.chain',
    'run.append.group-commit.chain',
    'run.append.buffered.chain',
    'ledger.insert.row.chain',
    'ledger.insert.batch.chain',
    'verify.run',
    'verify.ledger',
    'run.append.growth.chain',
  ],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'verify');
    const { rounds, warmup } = context.sizes;
    const quick = context.quick;
    const began = nowMicros();
    const log = (message: string) =>
      context.log(`[${((nowMicros() - began) / 1e6).toFixed(1)} s] ${message}`);
    const rows: RowResult[] = [];
    let runIndex = 0;
    const nextRun = () => benchRunId(34, runIndex++);
    try {
      // --- run appends, chained against unchained, in the same process -------------------------
      const appendRows: Array<{
        id: string;
        mode: string;
        durability: 'always' | 'none';
        count: number;
        callers: number;
        title: string;
        unchainedRow: string;
        target: boolean;
      }> = [
        {
          id: 'run.append.durable.chain',
          mode: 'fdatasync/record',
          durability: 'always',
          count: quick ? 30 : 1000,
          callers: 1,
          title: 'chained append of 1 KB records, each acknowledged after fdatasync',
          unchainedRow: 'run.append.durable',
          target: true,
        },
        {
          id: 'run.append.group-commit.chain',
          mode: 'fdatasync/batch',
          durability: 'always',
          count: (quick ? 4 : 128) * CALLERS,
          callers: CALLERS,
          title: `chained group commit: ${CALLERS} concurrent callers, each awaiting durability`,
          unchainedRow: 'run.append.group-commit',
          target: true,
        },
        {
          id: 'run.append.buffered.chain',
          mode: 'no fsync',
          durability: 'none',
          count: quick ? 1000 : 50_000,
          callers: 1,
          title: 'chained append of 1 KB records without fsync',
          unchainedRow: 'run.append.buffered',
          target: false,
        },
      ];
      for (const spec of appendRows) {
        log(`${spec.id}: ${formatCount(spec.count)} appends per side and round`);
        const chained = createFsStore({
          root: join(scratch.path, `${spec.id}-chained`),
          durability: spec.durability,
          chain: true,
        });
        const plain = createFsStore({
          root: join(scratch.path, `${spec.id}-plain`),
          durability: spec.durability,
        });
        const timed = spec.durability === 'always';
        const measured = await alternate({
          rounds,
          warmup,
          product: appendSide(chained, nextRun, spec.count, spec.callers, timed),
          probe: appendSide(plain, nextRun, spec.count, spec.callers, timed),
        });
        await chained.close();
        await plain.close();
        rows.push(
          compareRow(
            {
              id: spec.id,
              mode: spec.mode,
              area: 'verify: chained run file append',
              title: spec.title,
              durability:
                spec.durability === 'always'
                  ? "fs store durability 'always' on both sides"
                  : "none: page cache only (fs store durability 'none' on both sides)",
              dataset: `${formatCount(spec.count)} records of ~1 KB per round${spec.callers > 1 ? `, ${spec.callers} callers` : ', one writer'}`,
              product: `the ${spec.unchainedRow} product with createFsStore({ chain: true })`,
              probe: `the same appends to an unchained fs store (the ${spec.unchainedRow} product), same process`,
              metric: { name: 'throughput', unit: 'rec/s', better: 'higher' },
              ...(timed ? { latencyUnit: 'µs' } : {}),
              target: spec.target
                ? 'overhead ≤ 10 % (≥ 0.91× unchained throughput)'
                : 'reported (docs/design/verify.md 8.1: one hash call is a large share of a page-cache append)',
            },
            measured,
            (row) =>
              spec.target
                ? [
                    check(
                      'throughput ratio ≥ 0.91 (overhead ≤ 10 %)',
                      row.ratio?.median ?? Number.NaN,
                      '>=',
                      OVERHEAD_RATIO,
                    ),
                  ]
                : [],
            spec.target
              ? []
              : [
                  'no target: `chain: false` (store option, `"chain": false` in episodic-home.json) keeps the unchained speed',
                ],
          ),
        );
      }

      // --- ledger inserts, chained against unchained ------------------------------------------
      {
        let next = 0;
        const take = (count: number): NewLedgerEvent[] =>
          Array.from({ length: count }, () => ledgerEventAt(next++, 1_000_000));
        const chained = createSqliteStore({
          filename: join(scratch.path, 'ledger-chained.db'),
          chain: true,
        });
        const plain = createSqliteStore({ filename: join(scratch.path, 'ledger-plain.db') });
        const perRow = (store: typeof plain, count: number): Measure => {
          return async () => {
            const events = take(count);
            const latencies = new LatencyRecorder(count);
            const start = nowMicros();
            for (const event of events) {
              const before = nowMicros();
              await store.ledger.append(event);
              latencies.add(nowMicros() - before);
            }
            return {
              value: count / ((nowMicros() - start) / 1e6),
              latencies: latencies.toArray(),
            };
          };
        };
        const batched = (store: typeof plain, batches: number): Measure => {
          return async () => {
            const groups = Array.from({ length: batches }, () => take(100));
            const start = nowMicros();
            for (const group of groups) await store.ledger.appendBatch(group);
            return { value: (batches * 100) / ((nowMicros() - start) / 1e6) };
          };
        };
        const rowCount = quick ? 200 : 5000;
        log(`ledger.insert.row.chain: ${formatCount(rowCount)} appends per side and round`);
        const rowMeasured = await alternate({
          rounds,
          warmup,
          product: perRow(chained, rowCount),
          probe: perRow(plain, rowCount),
        });
        const batches = quick ? 5 : 300;
        log(`ledger.insert.batch.chain: ${formatCount(batches)} batches of 100 per side`);
        const batchMeasured = await alternate({
          rounds,
          warmup,
          product: batched(chained, batches),
          probe: batched(plain, batches),
        });
        await chained.close();
        await plain.close();
        const common = {
          mode: 'WAL NORMAL',
          area: 'verify: chained ledger insert',
          durability: 'WAL, synchronous=NORMAL (the default) on both sides',
          metric: { name: 'throughput', unit: 'rows/s', better: 'higher' as const },
          target: 'overhead ≤ 10 % (≥ 0.91× unchained throughput)',
        };
        const overhead = (row: RowResult) => [
          check(
            'throughput ratio ≥ 0.91 (overhead ≤ 10 %)',
            row.ratio?.median ?? Number.NaN,
            '>=',
            OVERHEAD_RATIO,
          ),
        ];
        rows.push(
          compareRow(
            {
              ...common,
              id: 'ledger.insert.row.chain',
              title: 'chained append of one event per transaction',
              dataset: `${formatCount(rowCount)} events (~470 B) per round into a growing file`,
              product: 'await ledger.append(event), createSqliteStore({ chain: true })',
              probe:
                'the same appends to an unchained SQLite store (the ledger.insert.row product)',
              latencyUnit: 'µs',
            },
            rowMeasured,
            overhead,
          ),
          compareRow(
            {
              ...common,
              id: 'ledger.insert.batch.chain',
              title: 'chained append of 100 events per transaction',
              dataset: `${formatCount(batches)} batches of 100 events per round into a growing file`,
              product: 'await ledger.appendBatch(100 events), createSqliteStore({ chain: true })',
              probe:
                'the same batches to an unchained SQLite store (the ledger.insert.batch product)',
            },
            batchMeasured,
            overhead,
          ),
        );
      }

      // --- verify.run: verify run files against one hash call per line ------------------------
      {
        const perSize = quick ? 512 * 1024 : 34 * 1024 * 1024;
        const lineSizes = [200, 1024, 4096];
        const runsPerSize = quick ? 2 : 20;
        const stores: Array<{ size: number; root: string; store: FsStore; files: string[] }> = [];
        for (const size of lineSizes) {
          const root = join(scratch.path, `verify-run-${size}`);
          const store = createFsStore({ root, durability: 'none', chain: true });
          const linesPerRun = Math.ceil(perSize / (size + 90) / runsPerSize);
          for (let run = 0; run < runsPerSize; run++) {
            const runId = nextRun();
            const random = createRandom(size * 1000 + run);
            const records = Array.from({ length: linesPerRun }, (_, seq) =>
              sizedRecord(runId, seq + 1, size, random),
            );
            await writeRun(store, runId, records);
          }
          stores.push({ size, root, store, files: runFiles(root) });
        }
        const totalBytes = stores
          .flatMap((entry) => entry.files)
          .reduce((sum, file) => sum + statSync(file).size, 0);
        const totalLines = { value: 0 };
        const bySize: Record<number, { product: number[]; probe: number[]; stream: number[] }> = {};
        for (const size of lineSizes) bySize[size] = { product: [], probe: [], stream: [] };
        log(`verify.run: ${formatBytes(totalBytes)} of chained run files written`);
        const product = async (): Promise<Round> => {
          let elapsed = 0;
          let lines = 0;
          for (const entry of stores) {
            const start = nowMicros();
            const report = await entry.store.runs.verifyChain({ sha256 });
            const took = nowMicros() - start;
            if (!report.ok) throw new Error(`verify.run: the bench's own files do not verify`);
            elapsed += took;
            lines += report.verified.entries;
            bySize[entry.size]?.product.push(took);
          }
          totalLines.value = lines;
          return { value: totalBytes / 1e6 / (elapsed / 1e6) };
        };
        const probe = (): Round => {
          let elapsed = 0;
          for (const entry of stores) {
            const start = nowMicros();
            for (const file of entry.files) {
              const bytes = readFileSync(file);
              let from = 0;
              for (let end = bytes.indexOf(10, from); end >= 0; end = bytes.indexOf(10, from)) {
                hash('sha256', bytes.subarray(from, end), 'buffer');
                from = end + 1;
              }
            }
            const took = nowMicros() - start;
            elapsed += took;
            bySize[entry.size]?.probe.push(took);
            // The streaming hash beside it: one update per file, the same read.
            const streamStart = nowMicros();
            for (const file of entry.files)
              createHash('sha256').update(readFileSync(file)).digest();
            bySize[entry.size]?.stream.push(nowMicros() - streamStart);
          }
          return { value: totalBytes / 1e6 / (elapsed / 1e6) };
        };
        const measured = await alternate({ rounds, warmup: 1, product, probe });
        for (const entry of stores) await entry.store.close();
        const notes = lineSizes.map((size) => {
          const times = bySize[size] as { product: number[]; probe: number[]; stream: number[] };
          // The warm-up's runs are the first of each list; the medians are over every run.
          const productMs = median(times.product) / 1000;
          const probeMs = median(times.probe) / 1000;
          const streamMs = median(times.stream) / 1000;
          return `${size} B lines (${formatBytes(perSize)}): verify ${productMs.toFixed(1)} ms, per-line probe ${probeMs.toFixed(1)} ms (${(probeMs / productMs).toFixed(2)}×), one streaming hash per file ${streamMs.toFixed(1)} ms (${(streamMs / productMs).toFixed(2)}×, information)`;
        });
        rows.push(
          compareRow(
            {
              id: 'verify.run',
              mode: 'read',
              area: 'verify: run files',
              title: 'verify chained run files (200 B, 1 KB and 4 KB lines)',
              durability: 'read, page cache',
              dataset: `${formatBytes(totalBytes)} in ${stores.length * runsPerSize} run files, ${formatCount(totalLines.value)} lines`,
              product: 'runs.verifyChain({ sha256: crypto.hash }) (fs store), per line size',
              probe:
                'readFileSync of each run file + indexOf("\\n") + one crypto.hash per line over the same bytes',
              metric: { name: 'throughput', unit: 'MB/s', better: 'higher' },
              target: '≥ 0.8× the per-line probe (a streaming hash reported beside)',
            },
            measured,
            (row) => [check('throughput ratio ≥ 0.8', row.ratio?.median ?? Number.NaN, '>=', 0.8)],
            notes,
          ),
        );
      }

      // --- verify.ledger: verify chained ledger rows against one hash per row -----------------
      {
        const count = quick ? 2000 : 200_000;
        const filename = join(scratch.path, 'verify-ledger.db');
        const store = createSqliteStore({ filename, chain: true });
        log(`verify.ledger: appending ${formatCount(count)} chained events`);
        for (let first = 0; first < count; first += 500) {
          const events = Array.from({ length: Math.min(500, count - first) }, (_, offset) => ({
            ...ledgerEventAt(first + offset, count),
            scope: LEDGER_SCOPE,
          }));
          await store.ledger.appendBatch(events);
        }
        const database = openSqliteDatabase(filename);
        const select = database.prepare(LEDGER_PROBE_SQL);
        const prefix = Buffer.from('episodic.chain.v1 entry\n');
        const json = JSON.stringify;
        const measured = await alternate({
          rounds,
          warmup,
          product: async () => {
            const start = nowMicros();
            const report = await store.ledger.verifyChain({ sha256, scope: LEDGER_SCOPE });
            const elapsed = nowMicros() - start;
            if (!report.ok || report.verified.entries !== count)
              throw new Error('verify.ledger: the bench ledger does not verify whole');
            return { value: count / (elapsed / 1e6) };
          },
          probe: () => {
            const start = nowMicros();
            let rowsRead = 0;
            for (const row of select.iterate(LEDGER_SCOPE) as Iterable<LedgerProbeRow>) {
              const canonical = `{"agent_id":${json(row.agent_id)},"created_at":${json(row.created_at)},"event_id":${json(row.event_id)},"metadata":${json(row.metadata_json)},"payload":${json(row.payload_json)},"refs":${json(row.refs_json)},"schema_version":${json(row.schema_version)},"scope":${json(row.scope)},"session_id":${json(row.session_id)},"summary":${json(row.summary)},"ts_ms":${json(row.ts_ms)},"type":${json(row.type)}}`;
              const salt = row.chain_salt?.toString('base64url') ?? '';
              hash(
                'sha256',
                Buffer.concat([prefix, Buffer.from(`${salt}\n${row.position}\n${canonical}`)]),
                'buffer',
              );
              rowsRead++;
            }
            if (rowsRead !== count) throw new Error('verify.ledger: the probe missed rows');
            return { value: count / ((nowMicros() - start) / 1e6) };
          },
        });
        database.close();
        await store.close();
        rows.push(
          compareRow(
            {
              id: 'verify.ledger',
              mode: 'read',
              area: 'verify: ledger',
              title: 'verify the chained events of one scope',
              durability: 'read, WAL',
              dataset: `${formatCount(count)} chained events (~470 B) in one scope, its sessions interleaved`,
              product: `ledger.verifyChain({ sha256: crypto.hash, scope }) (SQLite store, chain: true)`,
              probe:
                'raw SELECT of the canonical columns in stream order + the canonical JSON built by hand + one crypto.hash per row (salt, n, canonical bytes)',
              metric: { name: 'throughput', unit: 'rows/s', better: 'higher' },
              target: '≥ 0.8× the per-row probe',
            },
            measured,
            (row) => [check('throughput ratio ≥ 0.8', row.ratio?.median ?? Number.NaN, '>=', 0.8)],
            quick
              ? ['quick: 2,000 events (the full bench verifies 200,000)']
              : [
                  'full: 200,000 events, not the 1M of the design: building 1M chained events and verifying them in 12 runs would take minutes of this bench alone; the figure is per row',
                ],
          ),
        );
      }

      // --- run.append.growth.chain: an append at line N_large vs line 1,000 ---------------
      {
        const large = quick ? 5000 : 1_000_000;
        const small = 1000;
        const appends = quick ? 30 : 300;
        const root = join(scratch.path, 'growth');
        const builder = createFsStore({ root, durability: 'none', chain: true });
        const random = createRandom(34);
        const shortRecord = (runId: string, seq: number) => sizedRecord(runId, seq, 200, random);
        const build = async (lines: number) => {
          const runId = nextRun();
          await builder.runs.append(runId, [runHeader(runId)]);
          for (let first = 1; first < lines; first += 2000) {
            const records: RunRecord[] = [];
            for (let seq = first; seq < Math.min(lines, first + 2000); seq++)
              records.push(shortRecord(runId, seq));
            await builder.runs.append(runId, records);
          }
          return runId;
        };
        log(
          `run.append.growth.chain: building runs of ${formatCount(large)} and ${formatCount(small)} lines`,
        );
        const largeRun = await build(large);
        const smallRun = await build(small);
        await builder.close();
        const firstAppend: Record<string, number[]> = { large: [], small: [] };
        const side = (runId: string, label: 'large' | 'small'): Measure => {
          let seq = label === 'large' ? large : small;
          return async () => {
            // A new store each round: its first append resumes the chain from the file's tail.
            const store = createFsStore({ root, durability: 'none', chain: true });
            const latencies = new LatencyRecorder(appends);
            for (let index = 0; index < appends; index++) {
              const record = shortRecord(runId, seq++);
              const before = nowMicros();
              await store.runs.append(runId, [record]);
              latencies.add(nowMicros() - before);
            }
            await store.close();
            const all = latencies.toArray();
            firstAppend[label]?.push(all[0] as number);
            return { value: median(all), latencies: all };
          };
        };
        const measured = await alternate({
          rounds,
          warmup,
          product: side(largeRun, 'large'),
          probe: side(smallRun, 'small'),
        });
        rows.push(
          compareRow(
            {
              id: 'run.append.growth.chain',
              mode: 'no fsync',
              area: 'verify: chained append, size independence',
              title: `a chained append at line ${formatCount(large)} vs line ${formatCount(small)}`,
              durability: "none (fs store durability 'none')",
              dataset: `${appends} appends of ~200 B records per round, each round from a new store (its first append resumes the chain from the tail)`,
              product: `runs.append(runId, [record]) to a chained run of ${formatCount(large)} lines`,
              probe: `the same to a chained run of ${formatCount(small)} lines (the product against itself)`,
              metric: { name: 'median append', unit: 'µs', better: 'lower' },
              latencyUnit: 'µs',
              target: '≤ 1.5× (the cost of the new work only)',
            },
            measured,
            (row) => [check('time ratio ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
            [
              `first append of a round (the resume from the tail): ${median(firstAppend.large ?? []).toFixed(0)} µs at line ${formatCount(large)}, ${median(firstAppend.small ?? []).toFixed(0)} µs at line ${formatCount(small)} (medians)`,
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
