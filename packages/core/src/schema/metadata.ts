import * as z from 'zod';

/** The most keys one metadata object may carry (seed 003). */
export const METADATA_MAX_KEYS = 10;
/** The longest metadata key, in characters (UTF-16 code units). */
export const METADATA_KEY_MAX_LENGTH = 64;

/** A single metadata value: a string, a finite number or a boolean. */
export const metadataScalarSchema = z.union([z.string(), z.number().finite(), z.boolean()]);

/** A metadata value: a scalar or an array of scalars. */
export const metadataValueSchema = z.union([metadataScalarSchema, z.array(metadataScalarSchema)]);

/**
 * Metadata attached to an episode, a ledger event or a task episode: at most 10 keys, each value a
 * string, number, boolean or an array of those. Artifacts derived from those objects see it as
 * their effective metadata.
 */
export const metadataSchema = z
  .record(z.string().min(1).max(METADATA_KEY_MAX_LENGTH), metadataValueSchema)
  .refine((value) => Object.keys(value).length <= METADATA_MAX_KEYS, {
    message: `must have at most ${METADATA_MAX_KEYS} keys; move the rest into the payload`,
  });

export type MetadataScalar = z.infer<typeof metadataScalarSchema>;
export type MetadataValue = z.infer<typeof metadataValueSchema>;
export type Metadata = z.infer<typeof metadataSchema>;
