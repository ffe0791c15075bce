import { VERSION } from './version.js';

/** The `version` block of every receipt. */
export const RECEIPT_VERSION = { episodic: VERSION, schema: 'v1' } as const;

/** The fields every receipt starts with: `kind`, `ok`, `ts` (when it was printed) and `version`. */
export function receiptEnvelope(kind: string, ok: boolean): Record<string, unknown> {
  return { kind, ok, ts: new Date().toISOString(), version: RECEIPT_VERSION };
}
