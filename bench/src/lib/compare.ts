import type { Better, CheckResult, RowResult, SideResult } from './result.js';
import { summarize } from './stats.js';

/** What one side measured in one round. */
export interface Round {
  /** The row's metric for this round (a throughput, or a time). */
  value: number;
  /** Per-operation latencies of this round, when the row times operations. */
  latencies?: ArrayLike<number>;
}

export type Measure = () => Round | Promise<Round>;

export interface AlternateOptions {
  rounds: number;
  /** Unrecorded runs of each side before the first round (JIT, caches, file system). */
  warmup: number;
  product: Measure;
  probe: Measure;
}

export interface Alternated {
  product: Round[];
  probe: Round[];
}

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Runs product and probe alternately: warm-up first, then `rounds` rounds in which the side that
 * goes first alternates (product–probe, probe–product, …), so neither side always inherits the
 * other's garbage or page-cache state. A forced GC precedes every run.
 */
export async function alternate(options: AlternateOptions): Promise<Alternated> {
  for (let index = 0; index < options.warmup; index++) {
    collectGarbage();
    await options.product();
    collectGarbage();
    await options.probe();
  }
  const product: Round[] = [];
  const probe: Round[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? ['product', 'probe'] : ['probe', 'product'];
    for (const side of order) {
      collectGarbage();
      if (side === 'product') product.push(await options.product());
      else probe.push(await options.probe());
    }
  }
  return { product, probe };
}

/**
 * `alternate` for more than two sides (e.g. Episodic and its peers): warm-up runs of each side,
 * then `rounds` rounds in which the side that goes first rotates, a forced GC before every run.
 * Returns each side's rounds by name.
 */
export async function alternateSides(
  sides: Readonly<Record<string, Measure>>,
  rounds: number,
  warmup: number,
): Promise<Record<string, Round[]>> {
  const names = Object.keys(sides);
  const measured: Record<string, Round[]> = {};
  for (const name of names) measured[name] = [];
  for (let index = 0; index < warmup; index++) {
    for (const name of names) {
      collectGarbage();
      await (sides[name] as Measure)();
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length] as string;
      collectGarbage();
      (measured[name] as Round[]).push(await (sides[name] as Measure)());
    }
  }
  return measured;
}

function sideResult(rounds: readonly Round[]): SideResult {
  const values = rounds.map((round) => round.value);
  const withLatencies = rounds.filter((round) => round.latencies !== undefined);
  const result: SideResult = { metric: summarize(values), rounds: values };
  if (withLatencies.length > 0) {
    const total = withLatencies.reduce((sum, round) => sum + (round.latencies?.length ?? 0), 0);
    const all = new Float64Array(total);
    let offset = 0;
    for (const round of withLatencies) {
      all.set(Array.from(round.latencies as ArrayLike<number>), offset);
      offset += (round.latencies as ArrayLike<number>).length;
    }
    result.latency = summarize(all);
  }
  return result;
}

export function check(
  label: string,
  actual: number,
  op: '>=' | '<=',
  limit: number,
  kind: CheckResult['kind'] = 'ratio',
): CheckResult {
  const pass = Number.isFinite(actual) && (op === '>=' ? actual >= limit : actual <= limit);
  return { label, actual, op, limit, pass, kind };
}

export interface RowSpec {
  id: string;
  area: string;
  title: string;
  durability: string;
  /** A short form of `durability` for the table. */
  mode: string;
  dataset: string;
  product: string;
  probe: string;
  metric: { name: string; unit: string; better: Better };
  latencyUnit?: string;
  target: string;
}

/**
 * Builds a row from alternated rounds: both sides' summaries and the per-round ratio
 * product/probe of the metric. `checks` receives the row to compute its target checks.
 */
export function compareRow(
  spec: RowSpec,
  measured: Alternated,
  checks: (row: RowResult) => CheckResult[],
  notes: string[] = [],
): RowResult {
  const productResult = sideResult(measured.product);
  const probeResult = sideResult(measured.probe);
  const ratios = measured.product.map((round, index) => {
    const probeRound = measured.probe[index] as Round;
    return round.value / probeRound.value;
  });
  const row: RowResult = {
    ...spec,
    status: 'info',
    productResult,
    probeResult,
    ratio: { ...summarize(ratios), rounds: ratios },
    checks: [],
    notes,
  };
  const productLatency = productResult.latency;
  const probeLatency = probeResult.latency;
  if (
    spec.metric.better === 'higher' &&
    spec.latencyUnit?.startsWith('µs') === true &&
    productLatency !== undefined &&
    probeLatency !== undefined
  ) {
    // A throughput is a mean: a few slow operations (a busy disk) move it a lot. The typical
    // operation's ratio is shown beside it, for information.
    row.notes.push(
      `typical operation: probe p50 / product p50 = ${(probeLatency.median / productLatency.median).toFixed(2)}× (the throughput ratio also counts slow outliers)`,
    );
  }
  row.checks = checks(row);
  row.status = statusOf(row.checks);
  return row;
}

/** A row measured on the product alone (storage size, availability notes). */
export function singleRow(
  spec: RowSpec,
  rounds: readonly Round[],
  checks: (row: RowResult) => CheckResult[],
  notes: string[] = [],
): RowResult {
  const row: RowResult = {
    ...spec,
    status: 'info',
    productResult: sideResult(rounds),
    checks: [],
    notes,
  };
  row.checks = checks(row);
  row.status = statusOf(row.checks);
  return row;
}

export function unavailableRow(spec: RowSpec, reason: string): RowResult {
  return { ...spec, status: 'unavailable', checks: [], notes: [reason] };
}

function statusOf(checks: readonly CheckResult[]): RowResult['status'] {
  if (checks.length === 0) return 'info';
  return checks.every((entry) => entry.pass) ? 'pass' : 'miss';
}
