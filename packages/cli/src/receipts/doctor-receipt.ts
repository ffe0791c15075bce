import * as z from 'zod';
import { receiptVersionSchema } from './receipt-base.js';

/** One problem doctor found. */
export const doctorProblemSchema = z.object({
  area: z.enum(['run_file', 'snapshot', 'file', 'database']),
  /** A path relative to the home, or a database subject (`event <id>`, `run <id>`, `session <id>`). */
  path: z.string(),
  line: z.number().int().positive().optional(),
  byte_offset: z.number().int().nonnegative().optional(),
  message: z.string(),
  excerpt: z.string().optional(),
  /** Whether `--fix` can repair it without losing a readable record. */
  fixable: z.boolean(),
  /** Whether this run repaired it. */
  fixed: z.boolean(),
  /** What `--fix` did about it. */
  action: z.string().optional(),
});

/**
 * `doctor --json`. `ok` is true when nothing remains to repair (exit 0); otherwise `ok` is false,
 * `error` and `code` (`CORRUPT_DATA`) say so, and the exit code is 1.
 */
export const doctorReceiptSchema = z.object({
  kind: z.literal('episodic.doctor.v1'),
  ok: z.boolean(),
  ts: z.iso.datetime(),
  version: receiptVersionSchema,
  error: z.string().optional(),
  code: z.literal('CORRUPT_DATA').optional(),
  home: z.string(),
  database: z.string(),
  store: z.enum(['sqlite', 'fs']),
  fix: z.boolean(),
  healthy: z.boolean(),
  checked: z.object({
    run_files: z.number().int().nonnegative(),
    records: z.number().int().nonnegative(),
    snapshots: z.number().int().nonnegative(),
    database: z
      .object({
        integrity: z.enum(['ok', 'damaged', 'not_checked']),
        events: z.number().int().nonnegative(),
        sessions: z.number().int().nonnegative(),
        runs: z.number().int().nonnegative(),
      })
      .nullable(),
  }),
  problem_count: z.number().int().nonnegative(),
  fixed_count: z.number().int().nonnegative(),
  problems: z.array(doctorProblemSchema),
  /** The quarantine folder of this run (with its manifest.json), or null when nothing was moved. */
  quarantine: z.string().nullable(),
  /**
   * On a home that chains (`"chain"` in episodic-home.json): per kind of stream, how many hold
   * entries written before chaining was turned on, and the entry verification starts from
   * (lowest and highest). Information: it never changes the exit code. Null when the home does
   * not chain.
   */
  chain: z
    .object({
      unchained: z.array(
        z.object({
          kind: z.enum(['run', 'session', 'ledger', 'erasures']),
          streams: z.number().int().positive(),
          verified_from: z.object({
            min: z.number().int().positive(),
            max: z.number().int().positive(),
          }),
        }),
      ),
    })
    .nullable()
    .optional(),
});
