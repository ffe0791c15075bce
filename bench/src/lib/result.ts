import type { Summary } from './stats.js';

/** Which way a row's metric is better. */
export type Better = 'higher' | 'lower';

/** What one side (product or probe) measured over all rounds. */
export interface SideResult {
  /** The row's metric, one value per round: median, p99 and min–max over the rounds. */
  metric: Summary;
  /** Per-operation latency over every operation of every round, when the row times operations. */
  latency?: Summary;
  /** The per-round values, in round order. */
  rounds: number[];
}

/** One target check: `actual op limit`. */
export interface CheckResult {
  /** What is checked, e.g. `ratio median ≥ 0.8` or `product p99 ≤ 1 ms`. */
  label: string;
  actual: number;
  op: '>=' | '<=';
  limit: number;
  pass: boolean;
  /** `ratio`: against the probe of the same run. `absolute`: a bound QUALITY.md states in units. */
  kind: 'ratio' | 'absolute';
}

/** One row of the report. */
export interface RowResult {
  /** A stable id, e.g. `run.append.durable`; row filters match it. */
  id: string;
  /** The QUALITY.md area this row implements. */
  area: string;
  title: string;
  /** The durability mode the numbers hold for (named on every row). */
  durability: string;
  /** A short form of `durability` for the table. */
  mode: string;
  /** The data the row ran on, e.g. `100 MB run file, 1 KB records`. */
  dataset: string;
  /** What the product does. */
  product: string;
  /** What the probe does. */
  probe: string;
  metric: { name: string; unit: string; better: Better };
  /** The unit of `latency` summaries. */
  latencyUnit?: string;
  /** The target as QUALITY.md words it. */
  target: string;
  status: 'pass' | 'miss' | 'info' | 'unavailable' | 'error';
  productResult?: SideResult;
  probeResult?: SideResult;
  /** product / probe of the metric, per round: median and min–max. */
  ratio?: Summary & { rounds: number[] };
  checks: CheckResult[];
  /** Anything the reader needs to interpret the row (why it is unavailable, what dominates). */
  notes: string[];
}
