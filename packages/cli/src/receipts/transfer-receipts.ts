import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

const counts = z.object({
  sessions: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  records: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
  /** Learned artifacts (patterns, reflections, checkpoint summaries) with their associations. */
  artifacts: z.number().int().nonnegative(),
  /** Episodes whose metadata was exported (the source of artifacts' effective metadata). */
  episode_metadata: z.number().int().nonnegative(),
  /** Erasure log entries about the exported runs (`episodic.export.v3` only). */
  erasures: z.number().int().nonnegative().optional(),
});

/** Which runs an export selected (the command line, normalized). */
export const runSelectionShape = {
  session_id: z.string().nullable(),
  run_ids: z.array(z.string()).nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  all: z.boolean(),
};

/** `export --json -o FILE`. */
export const exportReceiptSchema = successReceiptSchema('episodic.export.v1', {
  /** The file written (absolute). */
  output: z.string().nullable(),
  selection: z.object({
    ...runSelectionShape,
    ledger: z.object({ scope: z.string().nullable(), global: z.boolean() }).nullable(),
  }),
  counts,
  bytes: z.number().int().nonnegative(),
  /** SHA-256 of the file's bytes. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Damaged run lines that could not be exported (see `episodic doctor`). */
  skipped_damaged_lines: z.number().int().nonnegative(),
  warnings: z.array(z.string()),
});

/** `import --json`. */
export const importReceiptSchema = successReceiptSchema('episodic.import.v1', {
  /** The file read (absolute), or `-` for stdin. */
  input: z.string(),
  dry_run: z.boolean(),
  /** What the export holds. */
  counts,
  /** What was written (zero with `--dry-run`). */
  written: counts,
  /** With `--dry-run`: what would be written. */
  would_write: counts.optional(),
  /** What was already present with the same content. */
  skipped: counts,
  /** An `episodic.export.v3` file: what became of its proofs. */
  proofs: z
    .object({
      /** Runs written with their proofs, byte for byte. */
      runs: z.number().int().nonnegative(),
      /** Runs whose proofs were dropped (an unchained home, or a run that was already there). */
      dropped: z.number().int().nonnegative(),
      /** Erasure log entries added. */
      erasures: z.number().int().nonnegative(),
      /** Export lines whose proof does not check (the file was changed after export). */
      altered_lines: z.array(z.number().int().nonnegative()),
    })
    .optional(),
  /** An `episodic.export.v3` file: proofs dropped or not matching, one sentence each. */
  warnings: z.array(z.string()).optional(),
});

const migrateCounts = z.object({
  sessions: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  records: z.number().int().nonnegative(),
  events: z.number().int().nonnegative(),
  artifacts: z.number().int().nonnegative(),
  metadata: z.number().int().nonnegative(),
});

/** `migrate --json`. */
export const migrateReceiptSchema = successReceiptSchema('episodic.migrate.v1', {
  /** The home that was copied. */
  from: z.object({ home: z.string(), database: z.string(), store: z.enum(['sqlite', 'fs']) }),
  /** The PostgreSQL server, without credentials. */
  to: z.string(),
  /** The schema written. */
  schema: z.string(),
  /** What was written. */
  copied: migrateCounts,
  /** What was already there with the same content. */
  skipped: migrateCounts,
  /** Damaged run lines that could not be copied (see `episodic doctor`). */
  skipped_damaged_lines: z.number().int().nonnegative(),
  warnings: z.array(z.string()),
});
