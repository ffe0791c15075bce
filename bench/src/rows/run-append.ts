import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { benchRunId, runHeader, runRecords } from '../data/run-records.js';
import { alternate, check, compareRow, type Round } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { scratchDirectory } from '../lib/scratch.js';
import { LatencyRecorder, nowMicros } from '../lib/stats.js';

const CALLERS = 64;

/**
 * The raw group-commit probe (research A3): callers queue lines; one writer writes everything
 * queued with one `write` and one `datasync`, then resolves that batch. No timer: a batch is
 * whatever queued while the previous sync ran.
 */
class GroupCommitProbe {
  private queue: Array<{ line: string; resolve: () => void }> = [];
  private flushing = false;

  constructor(private readonly handle: FileHandle) {}

  append(line: string): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ line, resolve });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      let text = '';
      for (const entry of batch) text += entry.line;
      await this.handle.write(text);
      await this.handle.datasync();
      for (const entry of batch) entry.resolve();
    }
    this.flushing = false;
  }
}

export const runAppendModule: RowModule = {
  id: 'run-append',
  rows: ['run.append.durable', 'run.append.group-commit', 'run.append.buffered'],
  needs: [],
  async run(context: BenchContext): Promise<RowResult[]> {
    const scratch = scratchDirectory(context, 'run-append');
    const { rounds, warmup } = context.sizes;
    let runIndex = 0;
    const nextRun = (count: number): { runId: string; records: RunRecord[] } => {
      const runId = benchRunId(2, runIndex++);
      return { runId, records: runRecords(runId, 0, count, runIndex) };
    };
    const probePath = (label: string) => join(scratch.path, `probe-${label}-${runIndex}.jsonl`);
    const rows: RowResult[] = [];
    try {
      // --- durable, one record per append, fdatasync each -----------------------------------
      {
        const count = context.quick ? 200 : 1000;
        const store = createFsStore({ root: join(scratch.path, 'durable'), durability: 'always' });
        const product = async (): Promise<Round> => {
          const { runId, records } = nextRun(count);
          await store.runs.append(runId, [runHeader(runId)]);
          const latencies = new LatencyRecorder(count);
          const start = nowMicros();
          for (const record of records) {
            const before = nowMicros();
            await store.runs.append(runId, [record]);
            latencies.add(nowMicros() - before);
          }
          const elapsed = nowMicros() - start;
          await store.runs.delete(runId);
          return { value: count / (elapsed / 1e6), latencies: latencies.toArray() };
        };
        const probe = (): Round => {
          const { runId, records } = nextRun(count);
          const path = probePath('durable');
          const fd = openSync(path, 'a');
          writeSync(fd, `${JSON.stringify(runHeader(runId))}\n`);
          fdatasyncSync(fd);
          const latencies = new LatencyRecorder(count);
          const start = nowMicros();
          for (const record of records) {
            const before = nowMicros();
            writeSync(fd, `${JSON.stringify(record)}\n`);
            fdatasyncSync(fd);
            latencies.add(nowMicros() - before);
          }
          const elapsed = nowMicros() - start;
          closeSync(fd);
          rmSync(path);
          return { value: count / (elapsed / 1e6), latencies: latencies.toArray() };
        };
        const measured = await alternate({ rounds, warmup, product, probe });
        await store.close();
        rows.push(
          compareRow(
            {
              id: 'run.append.durable',
              mode: 'fdatasync/record',
              area: 'run file append, durable per record',
              title: 'append 1 KB records, each acknowledged after fdatasync',
              durability: "fdatasync per record (fs store durability 'always')",
              dataset: `${formatCount(count)} records of ~1 KB per round, one writer`,
              product: 'await runs.append(runId, [record]) in a loop (fs store)',
              probe: 'kept fd + writeSync(JSON.stringify(r) + "\\n") + fdatasyncSync',
              metric: { name: 'throughput', unit: 'rec/s', better: 'higher' },
              latencyUnit: 'µs',
              target: '≥ 0.8× probe throughput',
            },
            measured,
            (row) => [check('throughput ratio ≥ 0.8', row.ratio?.median ?? Number.NaN, '>=', 0.8)],
          ),
        );
      }

      // --- group commit: 64 concurrent callers, each awaiting durability -------------------
      {
        const perCaller = context.quick ? 32 : 128;
        const count = perCaller * CALLERS;
        const store = createFsStore({ root: join(scratch.path, 'group'), durability: 'always' });
        const product = async (): Promise<Round> => {
          const { runId, records } = nextRun(count);
          await store.runs.append(runId, [runHeader(runId)]);
          const latencies = new LatencyRecorder(count);
          const start = nowMicros();
          await Promise.all(
            Array.from({ length: CALLERS }, async (_, caller) => {
              for (let index = caller; index < count; index += CALLERS) {
                const before = nowMicros();
                await store.runs.append(runId, [records[index] as RunRecord]);
                latencies.add(nowMicros() - before);
              }
            }),
          );
          const elapsed = nowMicros() - start;
          await store.runs.delete(runId);
          return { value: count / (elapsed / 1e6), latencies: latencies.toArray() };
        };
        const probe = async (): Promise<Round> => {
          const { runId, records } = nextRun(count);
          const path = probePath('group');
          const handle = await open(path, 'a');
          await handle.write(`${JSON.stringify(runHeader(runId))}\n`);
          await handle.datasync();
          const writer = new GroupCommitProbe(handle);
          const latencies = new LatencyRecorder(count);
          const start = nowMicros();
          await Promise.all(
            Array.from({ length: CALLERS }, async (_, caller) => {
              for (let index = caller; index < count; index += CALLERS) {
                const before = nowMicros();
                await writer.append(`${JSON.stringify(records[index])}\n`);
                latencies.add(nowMicros() - before);
              }
            }),
          );
          const elapsed = nowMicros() - start;
          await handle.close();
          rmSync(path);
          return { value: count / (elapsed / 1e6), latencies: latencies.toArray() };
        };
        const measured = await alternate({ rounds, warmup, product, probe });
        await store.close();
        rows.push(
          compareRow(
            {
              id: 'run.append.group-commit',
              mode: 'fdatasync/batch',
              area: 'run file append, group commit',
              title: `${CALLERS} concurrent callers, each append awaiting durability`,
              durability:
                "fdatasync per batch (fs store durability 'always'; appends queued together share one sync)",
              dataset: `${formatCount(count)} records of ~1 KB per round, ${CALLERS} callers`,
              product: `${CALLERS} async callers each awaiting runs.append(runId, [record])`,
              probe:
                'same callers on a queue: one FileHandle.write of the queued lines + datasync per batch',
              metric: { name: 'throughput', unit: 'rec/s', better: 'higher' },
              latencyUnit: 'µs (ack)',
              target: '≥ 0.75× probe throughput; p99 ack ≤ 2× probe p99',
            },
            measured,
            (row) => [
              check('throughput ratio ≥ 0.75', row.ratio?.median ?? Number.NaN, '>=', 0.75),
              check(
                'p99 ack ratio ≤ 2',
                (row.productResult?.latency?.p99 ?? Number.NaN) /
                  (row.probeResult?.latency?.p99 ?? Number.NaN),
                '<=',
                2,
              ),
            ],
          ),
        );
      }

      // --- buffered: no fsync -----------------------------------------------------------------
      {
        const count = context.quick ? 10_000 : 50_000;
        const store = createFsStore({ root: join(scratch.path, 'buffered'), durability: 'none' });
        const product = async (): Promise<Round> => {
          const { runId, records } = nextRun(count);
          await store.runs.append(runId, [runHeader(runId)]);
          const start = nowMicros();
          for (const record of records) await store.runs.append(runId, [record]);
          const elapsed = nowMicros() - start;
          await store.runs.delete(runId);
          return { value: count / (elapsed / 1e6) };
        };
        const probe = (): Round => {
          const { runId, records } = nextRun(count);
          const path = probePath('buffered');
          const fd = openSync(path, 'a');
          writeSync(fd, `${JSON.stringify(runHeader(runId))}\n`);
          const start = nowMicros();
          for (const record of records) writeSync(fd, `${JSON.stringify(record)}\n`);
          const elapsed = nowMicros() - start;
          closeSync(fd);
          rmSync(path);
          return { value: count / (elapsed / 1e6) };
        };
        const measured = await alternate({ rounds, warmup, product, probe });
        await store.close();
        rows.push(
          compareRow(
            {
              id: 'run.append.buffered',
              mode: 'no fsync',
              area: 'run file append, not durable',
              title: 'append 1 KB records without fsync',
              durability:
                "none: page cache only (fs store durability 'none'; 'run' is the same until run.end)",
              dataset: `${formatCount(count)} records of ~1 KB per round, one writer`,
              product: 'await runs.append(runId, [record]) in a loop (fs store)',
              probe: 'kept fd + writeSync(JSON.stringify(r) + "\\n")',
              metric: { name: 'throughput', unit: 'rec/s', better: 'higher' },
              target: '≥ 0.75× probe throughput',
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
