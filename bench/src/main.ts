// `pnpm bench [--quick] [--check] [row filters…]`: runs every selected row module in its own
// process, prints the table, writes the JSON report and, with --check, exits 1 when a target is
// missed.
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import type { DatasetName } from './data/datasets.js';
import { benchPaths, FULL_SIZES, QUICK_SIZES } from './lib/context.js';
import { formatPeerSummary } from './lib/peer-summary.js';
import { formatMarkdown, formatNotes, formatTable } from './lib/report.js';
import type { RowResult } from './lib/result.js';
import { selectedBy } from './lib/row-module.js';
import { MODULES } from './rows/index.js';

const USAGE = `Usage: pnpm bench [--quick] [--check] [--out FILE] [FILTER…]

Runs the Episodic benchmarks: every row of QUALITY.md's performance table, product and raw probe
measured alternately in one run.

Options:
  --quick      smaller data sets and fewer rounds (the whole suite in a few minutes)
  --check      exit 1 when a row misses its target, listing the misses
  --markdown   print the table as Markdown (for bench/README.md)
  --from FILE  print (and --check) an earlier JSON report instead of running
  --out FILE   where to write the JSON report
               (default: bench/results/latest.json for a full run of every row,
                bench/results/quick.json with --quick, bench/results/partial.json with filters)
  --help       this text

FILTER selects row modules whose id or row ids contain it, e.g. "ledger", "run.tail", "episodic".

Modules: ${MODULES.map((module) => module.id).join(', ')}
`;

interface Arguments {
  quick: boolean;
  check: boolean;
  markdown: boolean;
  from: string | undefined;
  out: string | undefined;
  filters: string[];
}

function parseArguments(argv: readonly string[]): Arguments {
  const parsed: Arguments = {
    quick: false,
    check: false,
    markdown: false,
    from: undefined,
    out: undefined,
    filters: [],
  };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--quick') parsed.quick = true;
    else if (argument === '--check') parsed.check = true;
    else if (argument === '--markdown') parsed.markdown = true;
    else if (argument === '--from') {
      const value = argv[++index];
      if (value === undefined) throw new Error('--from needs a file name');
      parsed.from = value;
    } else if (argument === '--out') {
      const value = argv[++index];
      if (value === undefined) throw new Error('--out needs a file name');
      parsed.out = value;
    } else if (argument === '--help' || argument === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (argument === '--') continue;
    else if (argument.startsWith('-')) throw new Error(`unknown option ${argument}`);
    else parsed.filters.push(argument);
  }
  return parsed;
}

interface WorkerMessage {
  rows?: RowResult[];
  prepared?: string;
}

function runWorker(args: readonly string[], quick: boolean): Promise<WorkerMessage> {
  const paths = benchPaths();
  return new Promise((resolve, reject) => {
    let message: WorkerMessage | undefined;
    const child = fork(join(paths.dist, 'worker.js'), args, {
      execArgv: ['--expose-gc', '--max-old-space-size=8192'],
      env: { ...process.env, EPISODIC_BENCH_QUICK: quick ? '1' : '0' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (value) => {
      message = value as WorkerMessage;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && message !== undefined) resolve(message);
      else reject(new Error(`worker ${args.join(' ')} exited with code ${code}`));
    });
  });
}

function errorRows(moduleId: string, rowIds: readonly string[], error: unknown): RowResult[] {
  const message = error instanceof Error ? error.message : String(error);
  return rowIds.map((id) => ({
    id,
    area: moduleId,
    title: `module ${moduleId} failed`,
    durability: 'n/a',
    mode: 'n/a',
    dataset: 'n/a',
    product: 'n/a',
    probe: 'n/a',
    metric: { name: 'n/a', unit: '', better: 'lower' as const },
    target: 'n/a',
    status: 'error' as const,
    checks: [],
    notes: [message],
  }));
}

async function main(): Promise<number> {
  let options: Arguments;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options.from !== undefined) {
    const earlier = JSON.parse(readFileSync(options.from, 'utf8')) as Report;
    printReport(earlier, options, options.from);
    return options.check ? checkRows(earlier.rows) : 0;
  }
  const paths = benchPaths();
  const modules = MODULES.filter((module) => selectedBy(module, options.filters));
  if (modules.length === 0) {
    process.stderr.write(
      `bench: no row matches ${options.filters.join(', ')}.\nRows: ${MODULES.flatMap((module) => module.rows).join(', ')}\n`,
    );
    return 2;
  }
  const sizes = options.quick ? QUICK_SIZES : FULL_SIZES;
  const started = new Date();
  const cpu = cpus();
  const machine = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
  process.stderr.write(
    `episodic bench (${options.quick ? 'quick' : 'full'} sizes) on ${machine.cores} × ${machine.cpu}, Node ${machine.node}\n`,
  );

  const datasets = new Set<DatasetName>();
  for (const module of modules) for (const need of module.needs) datasets.add(need);
  for (const dataset of datasets) {
    process.stderr.write(`preparing data set ${dataset}\n`);
    try {
      await runWorker(['--prepare', dataset], options.quick);
    } catch (error) {
      // The rows that need it report the failure (a data set the product cannot write is a result).
      process.stderr.write(`  preparing ${dataset} failed: ${(error as Error).message}\n`);
    }
  }

  const rows: RowResult[] = [];
  for (const module of modules) {
    const moduleStart = Date.now();
    process.stderr.write(`running ${module.id} (${module.rows.join(', ')})\n`);
    try {
      const message = await runWorker([module.id], options.quick);
      rows.push(...(message.rows ?? []));
    } catch (error) {
      rows.push(...errorRows(module.id, module.rows, error));
    }
    process.stderr.write(
      `  ${module.id} done in ${((Date.now() - moduleStart) / 1000).toFixed(1)} s\n`,
    );
  }
  const finished = new Date();

  const report = {
    kind: 'episodic.bench.v1',
    startedAt: started.toISOString(),
    durationSeconds: Math.round((finished.getTime() - started.getTime()) / 1000),
    mode: options.quick ? 'quick' : 'full',
    sizes,
    filters: options.filters,
    machine,
    environment: {
      nodeExtraCaCerts:
        process.env.NODE_EXTRA_CA_CERTS === undefined
          ? 'unset'
          : 'set in this shell; cold-start rows unset it for their child processes',
    },
    rows,
  };
  const out =
    options.out ??
    join(
      paths.results,
      options.filters.length > 0 ? 'partial.json' : options.quick ? 'quick.json' : 'latest.json',
    );
  mkdirSync(paths.results, { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

  printReport(report, options, out);
  return options.check ? checkRows(rows) : 0;
}

type Report = {
  startedAt: string;
  mode: string;
  machine: { node: string; cores: number; cpu: string };
  rows: RowResult[];
};

function printReport(report: Report, options: Arguments, file: string): void {
  const { machine, rows } = report;
  process.stdout.write(
    `\nEpisodic benchmarks — ${report.mode} sizes, ${report.startedAt.slice(0, 10)}, Node ${machine.node}, ${machine.cores} × ${machine.cpu}\n`,
  );
  process.stdout.write(
    'Each ratio is product / probe per round (median [min–max] over rounds); throughputs: higher is better, times: lower is better.\n\n',
  );
  if (options.markdown) {
    process.stdout.write(`${formatMarkdown(rows)}\n\n`);
    const peers = formatPeerSummary(rows);
    if (peers !== '')
      process.stdout.write(`Peer comparison, median time per operation:\n\n${peers}\n\n`);
  } else process.stdout.write(`${formatTable(rows)}\n\n${formatNotes(rows)}\n\n`);
  process.stdout.write(`JSON report: ${relative(process.cwd(), file) || file}\n`);
}

/** Prints the rows that miss their target; 1 when there is one, else 0. */
function checkRows(rows: readonly RowResult[]): number {
  const failed = rows.filter((row) => row.status === 'miss' || row.status === 'error');
  if (failed.length === 0) {
    process.stdout.write('check: every measured row meets its target\n');
    return 0;
  }
  process.stdout.write(`check: ${failed.length} row(s) miss their target:\n`);
  for (const row of failed) {
    const misses = row.checks.filter((entry) => !entry.pass);
    const detail =
      row.status === 'error'
        ? (row.notes[0] ?? 'failed')
        : misses.map((entry) => `${entry.label}, actual ${entry.actual.toFixed(3)}`).join('; ');
    process.stdout.write(`  - ${row.id}: ${detail}\n`);
  }
  return 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
