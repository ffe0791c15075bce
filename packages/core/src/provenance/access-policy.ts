import * as z from 'zod';
import {
  METADATA_MAX_KEYS,
  type MetadataScalar,
  metadataScalarSchema,
} from '../schema/metadata.js';
import { parseInput } from '../validation/parse-input.js';
import { metadataScalarsEqual } from './compare-metadata.js';
import { type EffectiveMetadata, effectiveMetadata } from './effective-metadata.js';
import { METADATA_FILTER_MAX_LIST } from './metadata-filter.js';

/**
 * An attribute-based access policy: the metadata values a reader (an API key, an MCP token, a
 * tenant) is restricted to. `{ required: { tenant: 'acme', source: ['crm', 'support'] } }` lets
 * the reader see an object only when, for every listed key, the object's effective metadata has
 * that key and every value it carries there is one of the allowed values.
 */
export interface AccessPolicy {
  /** Per metadata key, the value (or values) the reader may see. 1 to 10 keys. */
  required: Readonly<Record<string, MetadataScalar | readonly MetadataScalar[]>>;
}

/** The zod schema of an `AccessPolicy` (no transforms; `z.toJSONSchema` works on it). */
export const accessPolicySchema = z
  .strictObject({
    required: z
      .record(
        z.string().min(1).max(64),
        z.union([
          metadataScalarSchema,
          z.array(metadataScalarSchema).min(1).max(METADATA_FILTER_MAX_LIST),
        ]),
      )
      .refine((required) => {
        const count = Object.keys(required).length;
        return count >= 1 && count <= METADATA_MAX_KEYS;
      }, `must name between 1 and ${METADATA_MAX_KEYS} metadata keys`)
      .describe('Per metadata key, the value or values the reader is allowed to see.'),
  })
  .describe(
    'Restricts a reader to objects whose effective metadata carries only allowed values for every listed key.',
  );

/** A compiled policy: tests an object's effective metadata. */
export type AccessPredicate = (effective: EffectiveMetadata) => boolean;

/**
 * Validates `policy` and returns the test for effective metadata. An object is visible when, for
 * every required key, its effective metadata holds at least one value for the key and all of its
 * values are allowed. "All", not "any": effective metadata is the union of every contributing
 * episode, so an artifact derived from a tenant-A episode and a tenant-B episode carries B's
 * information too, and a reader restricted to A must not see it. A missing key hides the object.
 */
export function compileAccessPolicy(policy: unknown): AccessPredicate {
  const parsed = parseInput(accessPolicySchema, policy, 'access policy');
  const rules = Object.entries(parsed.required).map(([key, allowed]) => ({
    key,
    allowed: Array.isArray(allowed) ? allowed : [allowed],
  }));
  return (effective) =>
    rules.every(({ key, allowed }) => {
      const values = Object.hasOwn(effective, key) ? effective[key] : undefined;
      return (
        values !== undefined &&
        values.length > 0 &&
        values.every((value) => allowed.some((item) => metadataScalarsEqual(value, item)))
      );
    });
}

/** True when an object with this effective metadata is visible under `policy`. */
export function satisfiesAccessPolicy(policy: AccessPolicy, effective: EffectiveMetadata): boolean {
  return compileAccessPolicy(policy)(effective);
}

/**
 * True when an object derived from these episodes (their metadata, in association order) is
 * visible under `policy`. For a ledger event or an episode pass its own metadata alone:
 * `policyAllows(policy, [event.metadata])`.
 */
export function policyAllows(policy: AccessPolicy, episodesMetadata: Iterable<unknown>): boolean {
  return compileAccessPolicy(policy)(effectiveMetadata(episodesMetadata));
}
