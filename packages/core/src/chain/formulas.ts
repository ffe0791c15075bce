// The formulas of docs/design/verify.md section 1.2: per-entry commitments, the genesis head, and
// segment heads over 64 commitments. Every function takes the synchronous SHA-256 the caller
// injects (core has no node:crypto): `(bytes) => Uint8Array` of 32 bytes.
import { toBase64Url } from './base64url.js';

/** A synchronous SHA-256: the 32-byte digest of `bytes` (Node: `(b) => crypto.hash('sha256', b, 'buffer')`). */
export type Sha256 = (bytes: Uint8Array) => Uint8Array;

/** Entries per segment: a head every 64 entries (`h_j` covers `n = 64(j-1)+1 … 64j`). */
export const CHAIN_SEGMENT = 64;

const ENTRY_DOMAIN = 'episodic.chain.v1 entry\n';
const GENESIS_DOMAIN = 'episodic.chain.v1 genesis\n';
const HEAD_DOMAIN = 'episodic.chain.v1 head\n';

const encoder = new TextEncoder();

/** The segment (1-based) that holds entry `n`. */
export function segmentOf(n: number): number {
  return Math.ceil(n / CHAIN_SEGMENT);
}

/** `b64(SHA-256(bytes))`. */
export function digest(sha256: Sha256, bytes: Uint8Array): string {
  return toBase64Url(sha256(bytes));
}

/** `h_0 = SHA-256("episodic.chain.v1 genesis\n" ‖ stream key)`, the key as its 22 base64url characters. */
export function genesisHead(sha256: Sha256, streamKey: string): string {
  return digest(sha256, encoder.encode(GENESIS_DOMAIN + streamKey));
}

/**
 * The head after the commitments `commitments` (in stored order) of one segment, ending at entry
 * `lastN`, from the previous head `previous` (`h_0` for the stream's first segment):
 * `SHA-256("episodic.chain.v1 head\n" ‖ previous ‖ "\n" ‖ lastN ‖ "\n" ‖ commitments joined by "\n")`.
 * `head(64j)` is `h_j`; `head(n)` for any other `n` is the same formula over the segment cut at `n`.
 */
export function segmentHead(
  sha256: Sha256,
  previous: string,
  lastN: number,
  commitments: readonly string[],
): string {
  return digest(
    sha256,
    encoder.encode(`${HEAD_DOMAIN}${previous}\n${lastN}\n${commitments.join('\n')}`),
  );
}

/**
 * The commitment of a row-stream entry (session deltas and bases, ledger events, erasure rows):
 * `SHA-256("episodic.chain.v1 entry\n" ‖ salt ‖ "\n" ‖ n ‖ "\n" ‖ canonical JSON)`, the salt as its
 * 22 base64url characters. An entry another program wrote (no salt) commits with the empty salt.
 */
export function rowCommitment(
  sha256: Sha256,
  salt: string,
  n: number,
  canonicalJson: string,
): string {
  return digest(sha256, encoder.encode(`${ENTRY_DOMAIN}${salt}\n${n}\n${canonicalJson}`));
}

/** The commitment of a line-stream entry: the SHA-256 of the line's bytes `[0, end)` (through the salt's closing quote). */
export function lineCommitment(sha256: Sha256, line: Uint8Array, end: number): string {
  return digest(sha256, end === line.length ? line : line.subarray(0, end));
}

/**
 * The `after` of an erasure log entry (docs/design/verify.md section 1.5): the plain SHA-256 of
 * what a redacted row-stream entry now is (its new canonical JSON), base64url.
 */
export function erasureAfter(sha256: Sha256, canonicalJson: string): string {
  return digest(sha256, encoder.encode(canonicalJson));
}
