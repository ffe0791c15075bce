/** Median, p99 and range of a list of samples. */
export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
  max: number;
}

/** The value at quantile `q` (0–1) of ascending `sorted`, by nearest rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    min: sorted.length === 0 ? Number.NaN : (sorted[0] as number),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] as number),
  };
}

export function median(values: ArrayLike<number>): number {
  return summarize(values).median;
}

/** Microseconds since an arbitrary origin, with sub-microsecond resolution. */
export function nowMicros(): number {
  return Number(process.hrtime.bigint()) / 1000;
}

/** Collects per-operation latencies without growing an array per sample. */
export class LatencyRecorder {
  private values: Float64Array;
  private count = 0;

  constructor(capacity = 1024) {
    this.values = new Float64Array(capacity);
  }

  add(micros: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = micros;
  }

  get size(): number {
    return this.count;
  }

  toArray(): Float64Array {
    return this.values.slice(0, this.count);
  }
}
