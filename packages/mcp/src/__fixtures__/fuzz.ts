/** True when the reliability tests run their full counts (`RELIABILITY_FULL=1`). */
export const FULL = process.env.RELIABILITY_FULL === '1';

/** The count for this run: `full` with RELIABILITY_FULL=1, else `reduced`. The pass figures never change. */
export function count(reduced: number, full: number): number {
  return FULL ? full : reduced;
}

/** The fast-check parameters of one reliability property: logged seed, replayable from the environment. */
export interface FuzzParameters {
  numRuns: number;
  seed: number;
  path?: string;
}

/**
 * Parameters for a reliability property: `reduced` runs (or `full` with RELIABILITY_FULL=1), a
 * seed taken from `FC_SEED` (else a fresh random one) and a shrink path from `FC_PATH`. The seed is
 * printed before the property runs, so every run (not only a failing one) can be replayed:
 * `FC_SEED=<seed> [FC_PATH=<path>] npx vitest run <file> -t <name>`. fast-check itself prints the
 * seed and path of a failure.
 */
export function fuzzParameters(label: string, reduced: number, full: number): FuzzParameters {
  const numRuns = count(reduced, full);
  const given = process.env.FC_SEED;
  const seed =
    given !== undefined && given !== '' ? Number(given) : (Math.random() * 0x7fffffff) | 0;
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${given}`);
  const path = process.env.FC_PATH;
  console.log(
    `[fast-check] ${label}: seed ${seed}, ${numRuns} runs (replay: FC_SEED=${seed}${path ? ` FC_PATH=${path}` : ''})`,
  );
  return { numRuns, seed, ...(path ? { path } : {}) };
}
