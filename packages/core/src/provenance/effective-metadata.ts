import type { MetadataScalar } from '../schema/metadata.js';
import { isMetadataScalar } from './compare-metadata.js';

/**
 * The metadata an artifact carries by projection (seed 003): per key, the distinct values of its
 * associated episodes, in first-seen order. A key found in one episode maps to a one-value list.
 */
export type EffectiveMetadata = Record<string, MetadataScalar[]>;

/** A key that keeps `5`, `"5"` and `true` distinct (`0` and `-0` are the same value). */
function identity(value: MetadataScalar): string {
  return typeof value === 'number'
    ? `n:${value === 0 ? 0 : value}`
    : `${typeof value}:${String(value)}`;
}

/**
 * Projects the metadata of an artifact's associated episodes, in association order, onto the
 * artifact: per key, the distinct values contributed by those episodes, first-seen order. Array
 * values contribute their elements one by one. Episodes without metadata (null, undefined) add
 * nothing; values that are not metadata scalars are ignored, so this never throws on stored data.
 *
 * Seed 003's example: `[{ source: 'crm', priority: 5 }, { source: 'support_ticket', reviewed: true }]`
 * projects to `{ source: ['crm', 'support_ticket'], priority: [5], reviewed: [true] }`.
 */
export function effectiveMetadata(episodesMetadata: Iterable<unknown>): EffectiveMetadata {
  const keys = new Map<string, { values: MetadataScalar[]; seen: Set<string> }>();
  const add = (key: string, value: unknown) => {
    if (!isMetadataScalar(value)) return;
    let entry = keys.get(key);
    if (entry === undefined) {
      entry = { values: [], seen: new Set() };
      keys.set(key, entry);
    }
    const id = identity(value);
    if (entry.seen.has(id)) return;
    entry.seen.add(id);
    entry.values.push(value);
  };
  for (const metadata of episodesMetadata) {
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) continue;
    for (const key of Object.keys(metadata)) {
      const value: unknown = (metadata as Record<string, unknown>)[key];
      if (Array.isArray(value)) for (const element of value) add(key, element);
      else add(key, value);
    }
  }
  // Object.fromEntries defines own properties, so a key named `__proto__` stays a plain key.
  return Object.fromEntries([...keys].map(([key, entry]) => [key, entry.values]));
}
