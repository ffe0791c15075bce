// Canonical bytes per row stream (docs/design/verify.md section 1.3): the ledger's canonical JSON
// (compact, keys sorted) of the entry without its `chain` member; for a ledger event, of the
// stored fields its commitment covers (not `position`, `redacted` or the chain columns).
import { canonicalJson } from '../ledger/canonical-json.js';
import type { AnchorFile, ChainStreamKind } from './schemas.js';

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

/** The stored columns of a ledger row its commitment covers (a `LedgerRow`, `SqlLedgerRow` or new row). */
export interface LedgerChainColumns {
  readonly event_id: string;
  readonly ts_ms: number | string;
  readonly scope: string;
  readonly session_id: string;
  readonly agent_id: string;
  readonly type: string;
  readonly summary: string;
  readonly payload_json?: string | null;
  readonly refs_json: string | null;
  readonly metadata_json: string | null;
  readonly schema_version: string;
  readonly created_at: string;
}

/**
 * The value of a stored ledger row that its commitment covers (docs/design/verify.md section
 * 1.3): the `LEDGER_CHAIN_FIELDS`, with `payload`, `refs` and `metadata` as the JSON text their
 * columns store (so every stored byte counts, and nothing is parsed on append) and `ts_ms` as a
 * number. Pass it to `chainCanonicalJson('ledger', …)`, or use `ledgerChainCanonicalJson`.
 */
export function ledgerChainValue(row: LedgerChainColumns): Record<string, unknown> {
  return {
    event_id: row.event_id,
    ts_ms: Number(row.ts_ms),
    scope: row.scope,
    session_id: row.session_id,
    agent_id: row.agent_id,
    type: row.type,
    summary: row.summary,
    payload: row.payload_json ?? null,
    refs: row.refs_json,
    metadata: row.metadata_json,
    schema_version: row.schema_version,
    created_at: row.created_at,
  };
}

const text = (value: unknown): value is string | null =>
  value === null || typeof value === 'string';

/**
 * The canonical JSON a ledger row's commitment covers: `chainCanonicalJson('ledger',
 * ledgerChainValue(row))`. Every append computes it, so a row of strings, nulls and a finite
 * `ts_ms` (every row core builds) is written directly in sorted key order, which gives the same
 * text; anything else goes through the general canonical JSON.
 */
export function ledgerChainCanonicalJson(row: LedgerChainColumns): string {
  const tsMs = Number(row.ts_ms);
  const payload = row.payload_json ?? null;
  if (
    !Number.isFinite(tsMs) ||
    typeof row.event_id !== 'string' ||
    typeof row.scope !== 'string' ||
    typeof row.session_id !== 'string' ||
    typeof row.agent_id !== 'string' ||
    typeof row.type !== 'string' ||
    typeof row.summary !== 'string' ||
    typeof row.schema_version !== 'string' ||
    typeof row.created_at !== 'string' ||
    !text(payload) ||
    !text(row.refs_json) ||
    !text(row.metadata_json)
  )
    return chainCanonicalJson('ledger', ledgerChainValue(row));
  const json = JSON.stringify;
  return `{"agent_id":${json(row.agent_id)},"created_at":${json(row.created_at)},"event_id":${json(row.event_id)},"metadata":${json(row.metadata_json)},"payload":${json(payload)},"refs":${json(row.refs_json)},"schema_version":${json(row.schema_version)},"scope":${json(row.scope)},"session_id":${json(row.session_id)},"summary":${json(row.summary)},"ts_ms":${json(tsMs)},"type":${json(row.type)}}`;
}

/**
 * The text an anchor file's signature covers (docs/design/verify.md section 5): the canonical JSON
 * (compact, keys sorted) of every field of the file but `signature`. Signing and checking both
 * use it, so they cannot drift.
 */
export function anchorSigningText(file: Omit<AnchorFile, 'signature'> | AnchorFile): string {
  const { signature: _signature, ...signed } = file as AnchorFile;
  return canonicalJson(signed, 'anchor file');
}
