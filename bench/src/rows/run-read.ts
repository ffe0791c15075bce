import { checkRunRecord } from '@episodic/core/schemas';
import { createFsStore } from '@episodic/store-fs';
import { ensureRunFiles } from '../data/datasets.js';
import { alternate, check, compareRow, type Round, singleRow } from '../lib/compare.js';
import type { BenchContext } from '../lib/context.js';
import { formatBytes, formatCount } from '../lib/context.js';
import { probeReadAll, probeTail } from '../lib/jsonl-probe.js';
import type { RowResult } from '../lib/result.js';
import type { RowModule } from '../lib/row-module.js';
import { LatencyRecorder, median, nowMicros } from '../lib/stats.js';

export const runReadModule: RowModule = {
  id: 'run-read',
  rows: ['run.read', 'run.read.validation-share', 'run.tail', 'run.tail.size-independence'],
  needs: ['run-files'],
  async run(context: BenchContext): Promise<RowResult[]> {
    const files = await ensureRunFiles(context);
    const { rounds, warmup } = context.sizes;
    const store = createFsStore({ root: files.root, durability: 'none' });
    const { large, small } = files;
    const megabytes = large.bytes / 1e6;
    const rows: RowResult[] = [];
    let parsedForValidation: unknown[] = [];

    // --- read / resume --------------------------------------------------------------------------
    {
      const product = async (): Promise<Round> => {
        const start = nowMicros();
        const result = await store.runs.read(large.runId);
        const elapsed = nowMicros() - start;
        if (result.records.length !== large.records || result.errors.length > 0) {
          throw new Error(
            `read returned ${result.records.length} records and ${result.errors.length} errors; expected ${large.records} and 0`,
          );
        }
        return { value: megabytes / (elapsed / 1e6) };
      };
      const probe = (): Round => {
        const start = nowMicros();
        const records = probeReadAll(large.path);
        const elapsed = nowMicros() - start;
        if (records.length !== large.records) throw new Error('probe read a different count');
        parsedForValidation = records;
        return { value: megabytes / (elapsed / 1e6) };
      };
      const measured = await alternate({ rounds, warmup, product, probe });
      // Validation share: the product's per-record check over the probe's parsed records, timed
      // right after a probe parse of the same file.
      const validationRounds: Round[] = [];
      for (let round = 0; round < rounds; round++) {
        const parseStart = nowMicros();
        parsedForValidation = probeReadAll(large.path);
        const parse = nowMicros() - parseStart;
        const start = nowMicros();
        let valid = 0;
        for (const value of parsedForValidation) if (checkRunRecord(value).success) valid++;
        const validate = nowMicros() - start;
        if (valid !== large.records) throw new Error('validation rejected generated records');
        validationRounds.push({ value: (validate / parse) * 100 });
      }
      parsedForValidation = [];
      const dataset = `${formatBytes(large.bytes)} run file, ${formatCount(large.records)} records of ~1 KB (some non-ASCII), page cache`;
      rows.push(
        compareRow(
          {
            id: 'run.read',
            mode: 'read, page cache',
            area: 'run file read / resume',
            title: 'read a whole run file, every record validated',
            durability: 'n/a (read; file in the page cache)',
            dataset,
            product: 'runs.read(runId): tolerant chunked reader + compiled schema check per record',
            probe: '1 MB readSync chunks + Buffer.indexOf("\\n") + per-line decode + JSON.parse',
            metric: { name: 'throughput', unit: 'MB/s', better: 'higher' },
            target: '≥ 0.8× probe MB/s',
          },
          measured,
          (row) => [check('MB/s ratio ≥ 0.8', row.ratio?.median ?? Number.NaN, '>=', 0.8)],
        ),
      );
      rows.push(
        singleRow(
          {
            id: 'run.read.validation-share',
            mode: 'read, page cache',
            area: 'run file read / resume',
            title: 'validation time as a share of parse time',
            durability: 'n/a (read)',
            dataset,
            product: 'checkRunRecord(value) over every parsed record (the reader’s validation)',
            probe: 'the chunked parse of the same file (the denominator)',
            metric: { name: 'validation / parse', unit: '%', better: 'lower' },
            target: 'validation ≤ 20 % of parse',
          },
          validationRounds,
          (row) => [
            check(
              'validation share ≤ 20 %',
              row.productResult?.metric.median ?? Number.NaN,
              '<=',
              20,
              'ratio',
            ),
          ],
        ),
      );
    }

    // --- tail -----------------------------------------------------------------------------------
    {
      const tails = context.quick ? 100 : 300;
      const productTail = (runId: string, expected: number) => async (): Promise<Round> => {
        const latencies = new LatencyRecorder(tails);
        for (let index = 0; index < tails; index++) {
          const before = nowMicros();
          const result = await store.runs.tail(runId, { count: 100 });
          latencies.add(nowMicros() - before);
          if (result.records.length !== expected) throw new Error('tail returned too few records');
        }
        const values = latencies.toArray();
        return { value: median(values), latencies: values };
      };
      const probe = (): Round => {
        const latencies = new LatencyRecorder(tails);
        for (let index = 0; index < tails; index++) {
          const before = nowMicros();
          const records = probeTail(large.path, 100);
          latencies.add(nowMicros() - before);
          if (records.length !== 100) throw new Error('probe tail returned too few records');
        }
        const values = latencies.toArray();
        return { value: median(values), latencies: values };
      };
      const measured = await alternate({
        rounds,
        warmup,
        product: productTail(large.runId, 100),
        probe,
      });
      rows.push(
        compareRow(
          {
            id: 'run.tail',
            mode: 'read, page cache',
            area: 'tail',
            title: 'the last 100 records of a large run file',
            durability: 'n/a (read; file in the page cache)',
            dataset: `${formatBytes(large.bytes)} run file, 1 KB records`,
            product: 'runs.tail(runId, { count: 100 }): backwards 64 KB blocks, validated',
            probe:
              'backwards 64 KB block reads + lastIndexOf("\\n") + decode + JSON.parse of 100 lines',
            metric: { name: 'median time per tail', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target: '≤ 1.5× probe',
          },
          measured,
          (row) => [check('time ratio ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
        ),
      );
      const independence = await alternate({
        rounds,
        warmup,
        product: productTail(large.runId, 100),
        probe: productTail(small.runId, 100),
      });
      rows.push(
        compareRow(
          {
            id: 'run.tail.size-independence',
            mode: 'read, page cache',
            area: 'tail',
            title: `tail of the ${formatBytes(large.bytes)} file vs the same tail of a ${formatBytes(small.bytes)} file`,
            durability: 'n/a (read)',
            dataset: `${formatBytes(large.bytes)} and ${formatBytes(small.bytes)} run files, same record mix`,
            product: `runs.tail on the ${formatBytes(large.bytes)} file`,
            probe: `runs.tail on the ${formatBytes(small.bytes)} file (the product against itself)`,
            metric: { name: 'median time per tail', unit: 'µs', better: 'lower' },
            latencyUnit: 'µs',
            target: 'independent of file size (large / small ≤ 1.5)',
          },
          independence,
          (row) => [check('large / small ≤ 1.5', row.ratio?.median ?? Number.NaN, '<=', 1.5)],
        ),
      );
    }
    await store.close();
    return rows;
  },
};
