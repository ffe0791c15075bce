import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Data set sizes and round counts: the full sizes of QUALITY.md, or the `--quick` ones. */
export interface Sizes {
  /** The run file that `read` and `tail` use. */
  runFileBytes: number;
  /** The small run file that shows tail cost does not grow with file size. */
  smallRunFileBytes: number;
  ledgerRows: number;
  episodes: number;
  /** The long session of the session rows (commit size-independence, load). */
  sessionEpisodes: number;
  /** Thread lengths (messages) of the peer comparison. */
  peerThreads: readonly number[];
  /** Run files in the UI's home (`ui` rows). */
  uiRuns: number;
  /** Measured rounds per row (each round runs the product and the probe once). */
  rounds: number;
  /** Unrecorded warm-up runs of each side. */
  warmup: number;
}

export const FULL_SIZES: Sizes = {
  runFileBytes: 100 * 1024 * 1024,
  smallRunFileBytes: 1024 * 1024,
  ledgerRows: 1_000_000,
  episodes: 1_000_000,
  sessionEpisodes: 1_000_000,
  peerThreads: [1000, 10_000, 100_000],
  uiRuns: 10_000,
  rounds: 5,
  warmup: 1,
};

export const QUICK_SIZES: Sizes = {
  runFileBytes: 10 * 1024 * 1024,
  smallRunFileBytes: 1024 * 1024,
  ledgerRows: 100_000,
  episodes: 100_000,
  sessionEpisodes: 100_000,
  peerThreads: [1000, 10_000],
  uiRuns: 1_000,
  rounds: 3,
  warmup: 1,
};

export interface BenchPaths {
  /** `bench/` */
  bench: string;
  /** The repository root. */
  repo: string;
  /** `bench/dist` (the built harness and probes). */
  dist: string;
  /** `bench/.data`: cached data sets (git-ignored). */
  data: string;
  /** `bench/.data/scratch`: files a row writes and deletes. */
  scratch: string;
  /** `bench/results` */
  results: string;
}

/** What every row module receives. */
export interface BenchContext {
  quick: boolean;
  sizes: Sizes;
  paths: BenchPaths;
  /** Progress on stderr (stdout is the report). */
  log(message: string): void;
}

export function benchPaths(): BenchPaths {
  const dist = dirname(fileURLToPath(import.meta.url));
  const bench = dirname(dist);
  const paths: BenchPaths = {
    bench,
    repo: dirname(bench),
    dist,
    data: join(bench, '.data'),
    scratch: join(bench, '.data', 'scratch'),
    results: join(bench, 'results'),
  };
  mkdirSync(paths.scratch, { recursive: true });
  return paths;
}

export function createContext(quick: boolean): BenchContext {
  return {
    quick,
    sizes: quick ? QUICK_SIZES : FULL_SIZES,
    paths: benchPaths(),
    log(message) {
      process.stderr.write(`  ${message}\n`);
    },
  };
}

/** `1,234,567` */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** `100 MB` / `512 KB` (binary units, as the sizes are chosen). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
