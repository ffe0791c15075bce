import * as z from 'zod';

/**
 * A store argument (a `RunStore`, an `ArtifactStore`, …): an object with each of `methods`;
 * otherwise the issue says it `must be <what>`.
 */
export const storeSchema = <Value>(methods: readonly string[], what: string) =>
  z.custom<Value>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    `must be ${what}`,
  );
