import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

/** `scopes list --json`: every scope the home holds data in. */
export const scopesListReceiptSchema = successReceiptSchema('episodic.scopes.list.v1', {
  /** Where runs (and so task episodes) were read. */
  store: z.enum(['sqlite', 'fs']),
  count: z.number().int().nonnegative(),
  /** By scope name. */
  scopes: z.array(
    z.object({
      scope: z.string(),
      /** Ledger events and sessions. */
      events: z.number().int().nonnegative(),
      sessions: z.number().int().nonnegative(),
      /** The oldest and newest event (epoch ms); null without events. */
      first_ts_ms: z.number().int().nullable(),
      last_ts_ms: z.number().int().nullable(),
      /** Task episodes (runs stamped with the scope); null with `--no-tasks`. */
      tasks: z.number().int().nonnegative().nullable(),
      /** Learned artifacts by kind (`pattern`, `reflection`, `checkpoint`, …). */
      artifacts: z.record(z.string(), z.number().int().nonnegative()),
    }),
  ),
  notes: z.array(z.string()),
});

/** `completion --json`: the script. */
export const completionReceiptSchema = successReceiptSchema('episodic.completion.v1', {
  shell: z.enum(['bash', 'zsh', 'fish']),
  script: z.string(),
});
