import { afterEach, describe, expect, it, vi } from 'vitest';
import { pauseAfterLostRace } from './lost-race-pause.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('pauseAfterLostRace', () => {
  it('retries the first two lost races at once, without a timer', async () => {
    vi.useFakeTimers();
    await pauseAfterLostRace(1);
    await pauseAfterLostRace(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('then waits a random pause up to min(50, attempt * 2) ms', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    for (const [attempt, bound] of [
      [3, 6],
      [10, 20],
      [25, 50],
      [900, 50],
    ] as const) {
      let done = false;
      const paused = pauseAfterLostRace(attempt).then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(bound - 2);
      expect(done, `attempt ${attempt}`).toBe(false);
      await vi.advanceTimersByTimeAsync(2);
      await paused;
      expect(done).toBe(true);
    }
  });
});
