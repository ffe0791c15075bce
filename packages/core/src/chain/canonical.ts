// Canonical bytes per row stream (docs/design/verify.md section 1.3): the ledger's canonical JSON
// (compact, keys sorted) of the entry without its `chain` member; for a ledger event, of the
// stored fields its commitment covers (not `position`, `redacted` or the chain columns).
import { canonicalJson } from '../ledger/canonical-json.js';
import type { ChainStreamKind } from './schemas.js';

/** The fields of a ledger event its commitment covers, in the stored (snake_case) names. */
export const LEDGER_CHAIN_FIELDS = [
  'event_id',
  'ts_ms',
  'scope',
  'session_id',
  'agent_id',
  'type',
  'summary',
  'payload',
  'refs',
  'metadata',
  'schema_version',
  'created_at',
] as const;

/**
 * The canonical JSON whose bytes a row-stream entry's commitment covers: for `ledger`, the
 * `LEDGER_CHAIN_FIELDS` of the event (a missing field counts as `null`); for a session delta or
 * base and an erasure log entry, the whole object without `chain`. Run lines are line streams:
 * their canonical bytes are the line itself (see `parseChainLine`).
 */
export function chainCanonicalJson(kind: ChainStreamKind, value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return canonicalJson(value, `${kind} entry`);
  const record = value as Record<string, unknown>;
  if (kind === 'ledger') {
    const picked: Record<string, unknown> = {};
    for (const field of LEDGER_CHAIN_FIELDS) picked[field] = record[field] ?? null;
    return canonicalJson(picked, 'ledger event');
  }
  if (!Object.hasOwn(record, 'chain')) return canonicalJson(record, `${kind} entry`);
  const { chain: _chain, ...rest } = record;
  return canonicalJson(rest, `${kind} entry`);
}
