import * as z from 'zod';

/** The `version` block of every receipt: the package version and the receipt schema version. */
export const receiptVersionSchema = z.object({
  /** The `@episodic/cli` version that printed the receipt. */
  episodic: z.string(),
  /** The receipt schema version; the `.v1` of every `kind`. */
  schema: z.literal('v1'),
});

/** Builds the schema of a successful receipt: `{ kind, ok: true, ts, version, …fields }`. */
export function successReceiptSchema<Kind extends string, Shape extends z.ZodRawShape>(
  kind: Kind,
  shape: Shape,
) {
  return z.object({
    /** What printed it, e.g. `episodic.episodes.query.v1`. */
    kind: z.literal(kind),
    ok: z.literal(true),
    /** When it was printed (ISO 8601 UTC). */
    ts: z.iso.datetime(),
    version: receiptVersionSchema,
    ...shape,
  });
}

/** The error codes a receipt can carry: the core codes plus `USAGE_ERROR` for a bad command line. */
export const RECEIPT_ERROR_CODES = [
  'USAGE_ERROR',
  'VALIDATION_ERROR',
  'SCOPE_REQUIRED',
  'CONFIRMATION_REQUIRED',
  'NOT_FOUND',
  'CONFLICT',
  'STORAGE_ERROR',
  'CORRUPT_DATA',
  'PLUGIN_ERROR',
  'ABORTED',
  'UNSUPPORTED',
  'INTERNAL_ERROR',
] as const;

/**
 * What every command prints with `--json` when it fails: `{ kind, ok: false, error, code }`.
 * Exit code 2 for `USAGE_ERROR`, `VALIDATION_ERROR`, `SCOPE_REQUIRED` and
 * `CONFIRMATION_REQUIRED` (nothing was changed); 1 for every other code.
 */
export const errorReceiptSchema = z.object({
  /** The command's kind (`episodic.v1` when no command was recognized). */
  kind: z.string().regex(/^episodic(\.[a-z-]+)*\.v1$/),
  ok: z.literal(false),
  ts: z.iso.datetime(),
  version: receiptVersionSchema,
  /** What went wrong and what to do. */
  error: z.string().min(1),
  code: z.enum(RECEIPT_ERROR_CODES),
  /** Structured facts (the field, the value, the limit), when there are any. */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorReceipt = z.infer<typeof errorReceiptSchema>;
