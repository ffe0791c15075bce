import { sessionStateSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';
import { storeSourceSchema } from './runs-receipts.js';

const storeKind = z.enum(['sqlite', 'fs']);

/** `sessions list --json`. */
export const sessionsListReceiptSchema = successReceiptSchema('episodic.sessions.list.v1', {
  store: storeKind,
  store_source: storeSourceSchema,
  count: z.number().int().nonnegative(),
  /** How many sessions there are in all (`count` is smaller with `--limit`). */
  total: z.number().int().nonnegative(),
  /** Newest first. */
  sessions: z.array(
    z.object({
      session_id: z.string(),
      updated_at: z.string(),
      revision: z.number().int().nonnegative(),
      run_id: z.string().nullable(),
      /** Episodes in the committed log; null when the stored form does not record it. */
      episode_count: z.number().int().nonnegative().nullable(),
      /** Messages of the base snapshot's seed 001 view (as of `base_revision`). */
      message_count: z.number().int().nonnegative(),
      /** The revision of the base snapshot (the last fold); the commits since are deltas. */
      base_revision: z.number().int().nonnegative(),
      /** Seed 001's `last_user_message` (as Codelia's session list shows it); null when none. */
      last_user_message: z.string().nullable(),
      /** The last activity: the last commit, or a later record of the last run. */
      last_activity_at: z.string(),
      /** The last run's status (its `run.end` outcome, or `running`); null without a readable last run. */
      last_run_status: z.string().nullable(),
      /** The last run's model (`provider/name`); null when unknown. */
      model: z.string().nullable(),
      /** Input tokens of the last run's model responses; null when unknown. */
      input_tokens: z.number().nonnegative().nullable(),
      /** Output tokens of the last run's model responses; null when unknown. */
      output_tokens: z.number().nonnegative().nullable(),
    }),
  ),
  /** For a person: where it looked when it found nothing, and what the other store holds. */
  notes: z.array(z.string()),
});

/** `sessions fold --json`: the deltas folded into a new base. */
export const sessionsFoldReceiptSchema = successReceiptSchema('episodic.sessions.fold.v1', {
  store: storeKind,
  session_id: z.string(),
  revision: z.number().int().nonnegative(),
  /** How many commits the new base took in (0: it was already up to date). */
  folded: z.number().int().nonnegative(),
});

/** `sessions show --json`: the snapshot and a summary of it. */
export const sessionsShowReceiptSchema = successReceiptSchema('episodic.sessions.show.v1', {
  store: storeKind,
  session_id: z.string(),
  revision: z.number().int().nonnegative(),
  updated_at: z.string(),
  run_id: z.string().nullable(),
  message_count: z.number().int().nonnegative(),
  /** Episodes in the committed log. */
  episode_count: z.number().int().nonnegative(),
  /** The whole snapshot: the base as stored, or with the commits since applied (schema_version 2). */
  state: sessionStateSchema,
});
