import { describe, expect, it } from 'vitest';
import { createBatchSizer, MIN_BATCH_ROWS } from './batch-sizer.js';

describe('createBatchSizer', () => {
  it('starts small, grows at most 2× per batch while batches are cheap, never above the maximum', () => {
    const sizer = createBatchSizer(500, 8);
    const sizes = [sizer.next()];
    for (let batch = 0; batch < 6; batch++) {
      sizer.record(sizer.next(), 0.1);
      sizes.push(sizer.next());
    }
    expect(sizes[0]).toBe(100);
    for (let index = 1; index < sizes.length; index++) {
      expect(sizes[index] as number).toBeLessThanOrEqual((sizes[index - 1] as number) * 2);
    }
    expect(sizes.at(-1)).toBe(500);
  });

  it('shrinks at once to what fits half the budget when a batch was slow', () => {
    const sizer = createBatchSizer(500, 8);
    sizer.record(100, 20); // 0.2 ms per row: 4 ms fits 20 rows
    expect(sizer.next()).toBe(20);
    sizer.record(20, 100); // 5 ms per row: below the minimum batch
    expect(sizer.next()).toBe(MIN_BATCH_ROWS);
  });

  it('ignores batches that touched nothing and respects a maximum below the start', () => {
    const sizer = createBatchSizer(40, 8);
    expect(sizer.next()).toBe(40);
    sizer.record(0, 50);
    expect(sizer.next()).toBe(40);
  });
});
