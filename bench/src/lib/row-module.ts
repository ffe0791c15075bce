import type { DatasetName } from '../data/datasets.js';
import type { BenchContext } from './context.js';
import type { RowResult } from './result.js';

/** A group of rows measured together in one worker process. */
export interface RowModule {
  /** The module id (`ledger-query`); a row filter matching it or one of `rows` selects the module. */
  readonly id: string;
  /** The ids of the rows it reports. */
  readonly rows: readonly string[];
  /** Data sets to prepare (and cache) before it runs. */
  readonly needs: readonly DatasetName[];
  run(context: BenchContext): Promise<RowResult[]>;
}

/** True when `filters` is empty or one of them occurs in the module id or one of its row ids. */
export function selectedBy(module: RowModule, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  return filters.some(
    (filter) => module.id.includes(filter) || module.rows.some((row) => row.includes(filter)),
  );
}
