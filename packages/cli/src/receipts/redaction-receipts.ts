import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

const storeKind = z.enum(['sqlite', 'fs']);

/** What redacting one stored run changed. */
export const runRedactionSchema = z.object({
  run_id: z.string(),
  mode: z.enum(['secrets', 'content']),
  /** Stored lines rewritten. */
  changed_lines: z.number().int().nonnegative(),
  /** Lines removed (content mode drops lines that are not JSON). */
  /** Cached full tool outputs rewritten (fs store). */
  changed_tool_outputs: z.number().int().nonnegative(),
  /** Detector findings (secrets) or string values (content) replaced. */
  replacements: z.number().int().nonnegative(),
});

/** What redacting one session snapshot changed. */
export const sessionRedactionSchema = z.object({
  session_id: z.string(),
  mode: z.enum(['secrets', 'content']),
  /** True when the snapshot changed (it was saved as the next revision). */
  changed: z.boolean(),
  replacements: z.number().int().nonnegative(),
  revision: z.number().int().nonnegative(),
});

/** `runs redact --json`. */
export const runsRedactReceiptSchema = successReceiptSchema('episodic.runs.redact.v1', {
  store: storeKind,
  run: runRedactionSchema,
});

/** `sessions redact --json`. */
export const sessionsRedactReceiptSchema = successReceiptSchema('episodic.sessions.redact.v1', {
  store: storeKind,
  session: sessionRedactionSchema,
});
