/**
 * Sizes the write transactions of a long GC or redaction so each holds the write lock for about
 * `budgetMs`: a fixed row count takes 2 ms on an idle laptop and 20 ms on a busy server (secure
 * delete rewrites every index page it touches), and another writer waits for the whole batch.
 * Each batch is sized from the cost per row of the one before, never above `maxRows`.
 */
export interface BatchSizer {
  /** How many rows the next batch should touch. */
  next(): number;
  /** Reports a finished batch: how many rows it touched and how long it held the lock. */
  record(rows: number, milliseconds: number): void;
}

/** The smallest batch: below this, transaction overhead dominates. */
export const MIN_BATCH_ROWS = 16;

export function createBatchSizer(maxRows: number, budgetMs: number): BatchSizer {
  let size = Math.max(MIN_BATCH_ROWS, Math.min(maxRows, 100));
  return {
    next: () => size,
    record(rows, milliseconds) {
      if (rows === 0) return;
      const perRow = Math.max(milliseconds, 0.001) / rows;
      // Half the budget as the aim leaves room for a slower next batch (page misses, a busy disk).
      const fitting = Math.floor(budgetMs / 2 / perRow);
      // Grow at most 2× per batch; shrink at once.
      size = Math.max(MIN_BATCH_ROWS, Math.min(maxRows, fitting, size * 2));
    },
  };
}
