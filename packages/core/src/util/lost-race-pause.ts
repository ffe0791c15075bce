/**
 * A short random pause before the next attempt of a compare-and-set (or compare-and-append) that
 * lost the race to another writer: none for the first two attempts, then up to
 * `min(50, attempt * 2)` ms, so competing writers stop colliding in step and a slow writer gets a
 * gap to land in.
 *
 * @param attempt - The attempt that just lost (1 for the first).
 */
export function pauseAfterLostRace(attempt: number): Promise<void> {
  if (attempt < 3) return Promise.resolve();
  const ms = Math.random() * Math.min(50, attempt * 2);
  return new Promise((resolve) => globalThis.setTimeout(resolve, ms));
}
