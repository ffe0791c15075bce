import { EpisodicError } from '../core-kit.js';
import type { KeyValueStore, KvEntry } from './key-value-store.js';

/** What one attempt of a write plans: the values it read, the values it writes, its result. */
export interface KvPlan<T> {
  /** The keys the plan read, with the values it read (`undefined`: absent). */
  readonly checks: readonly KvEntry[];
  readonly writes: readonly KvEntry[];
  readonly result: T;
}

const MAX_ATTEMPTS = 1_000;

/**
 * Optimistic concurrency: reads and plans a write, then commits it only if nothing it read
 * changed meanwhile; otherwise plans again from the new values. A plan that throws (a `CONFLICT`
 * on a stale expected position, a validation error) writes nothing.
 */
export async function transact<T>(kv: KeyValueStore, plan: () => Promise<KvPlan<T>>): Promise<T> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const planned = await plan();
    if (await kv.compareAndSet(planned.checks, planned.writes)) return planned.result;
  }
  throw new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `A write lost ${MAX_ATTEMPTS} races in a row to other writers of the same keys; retry it later.`,
    details: { attempts: MAX_ATTEMPTS },
  });
}
