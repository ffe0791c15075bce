import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

/** `anchors keygen --json`: where the private key was written, and its public key. */
export const anchorsKeygenReceiptSchema = successReceiptSchema('episodic.anchors.keygen.v1', {
  /** The PKCS#8 PEM file holding the private key (mode 0600). */
  key_file: z.string(),
  /** The Ed25519 public key: SPKI (DER), base64url. Give it to `verify --public-key`. */
  public_key: z.string(),
  /** The fingerprint: the first 16 bytes of the SHA-256 of the SPKI, base64url. */
  key_id: z.string(),
});

const anchorPart = z.enum(['anchored', 'not-chained', 'not-asked']);

/** `anchors create --json`: the signed anchor file written, and what it anchors. */
export const anchorsCreateReceiptSchema = successReceiptSchema('episodic.anchors.create.v1', {
  /** The `episodic.anchors.v1` file written. */
  out: z.string(),
  created_at: z.iso.datetime(),
  key_id: z.string(),
  /** The streams anchored (runs, ledger sessions), by kind. */
  heads: z.strictObject({
    run: z.number().int().min(0),
    ledger: z.number().int().min(0),
    session: z.number().int().min(0),
  }),
  /** The erasure logs anchored. */
  erasure_logs: z.number().int().min(0),
  parts: z.strictObject({ runs: anchorPart, ledger: anchorPart }),
  /** One sentence per thing not anchored, and why. */
  notes: z.array(z.string()),
});
