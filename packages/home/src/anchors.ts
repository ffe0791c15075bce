// Anchors (docs/design/verify.md section 5): an Ed25519 key the user holds signs the current heads
// of a home's chained streams into an `episodic.anchors.v1` file kept outside the home, so that
// `verify --anchors` catches a stream rewritten whole with recomputed commitments. node:crypto
// lives here; core only checks the file's schema and compares heads.
import * as nodeCrypto from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import {
  type AnchorFile,
  type ChainReport,
  type ChainStreamSummary,
  EpisodicError,
  type Ledger,
  type RunStore,
} from '@episodic/core';
import { anchorSigningText } from '@episodic/core/adapter';
import { anchorFileSchema } from '@episodic/core/schemas';
import * as z from 'zod';
import { homeAnchorKey } from './home-config.js';
import { nodeSha256 } from './node-chain-crypto.js';

/** A key made by `generateAnchorKey`: where its private half is, and its public key. */
export interface AnchorKey {
  /** The PKCS#8 PEM file holding the private key (mode 0600). */
  readonly keyFile: string;
  /** The public key: SPKI (DER), base64url. */
  readonly publicKey: string;
  /** The fingerprint: the first 16 bytes of the SHA-256 of the SPKI, base64url. */
  readonly keyId: string;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

function invalid(field: string, value: unknown, message: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message,
    details: { field, value: typeof value === 'string' ? value : String(value) },
  });
}

function parseOptions<T>(schema: z.ZodType<T>, input: unknown, subject: string, fix: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'options';
  const given = issue?.path.reduce<unknown>(
    (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key],
    input,
  );
  const shown = given === undefined ? 'nothing' : (JSON.stringify(given) ?? String(given));
  throw invalid(
    field,
    shown,
    `Invalid ${subject}: ${field} ${issue?.message ?? 'is invalid'} (got ${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown}). ${fix}`,
  );
}

/** The fingerprint of a public key (SPKI DER): the first 16 bytes of its SHA-256, base64url. */
export function anchorKeyId(publicKey: string): string {
  return b64url(nodeSha256(Buffer.from(publicKey, 'base64url')).subarray(0, 16));
}

/**
 * Draws an Ed25519 key pair, writes the private key to `out` (PKCS#8 PEM, mode 0600; an existing
 * file is never overwritten: `CONFLICT`) and returns its public key and fingerprint. Keep the key
 * file outside the home: whoever holds it can sign anchors.
 *
 * ```ts
 * const key = generateAnchorKey({ out: '/tmp/anchor-demo.pem' });
 * key.keyId; // 22 base64url characters
 * ```
 */
export function generateAnchorKey(options: { out: string }): AnchorKey {
  const { out } = parseOptions(
    z.strictObject({ out: z.string().min(1) }),
    options,
    'anchor key options',
    'Pass { out: "<path of the key file to create>" }; nothing was written.',
  );
  const { privateKey, publicKey } = nodeCrypto.generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  let fd: number;
  try {
    fd = openSync(out, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EpisodicError({
      code: code === 'EEXIST' ? 'CONFLICT' : 'STORAGE_ERROR',
      message:
        code === 'EEXIST'
          ? `${out} already exists: an anchor key is never overwritten (anchors signed with it would no longer verify against a new key). Choose another --out path, or remove the old key yourself; nothing was written.`
          : `Could not create the key file ${out}: ${(error as Error).message}. Check the folder exists and is writable; nothing was written.`,
      details: { path: out },
      cause: error,
    });
  }
  try {
    writeSync(fd, pem);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const spki = b64url(publicKey.export({ type: 'spki', format: 'der' }));
  return { keyFile: out, publicKey: spki, keyId: anchorKeyId(spki) };
}

/**
 * Reads an anchor key file: refused (`VALIDATION_ERROR`) when group or others may read it, as ssh
 * refuses such a key, or when it is not an Ed25519 private key.
 */
function readAnchorKey(keyFile: string): nodeCrypto.KeyObject {
  let text: string;
  try {
    const fd = openSync(keyFile, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile())
        throw invalid(
          'keyFile',
          keyFile,
          `${keyFile} is not a regular file. Pass the key file "episodic anchors keygen" wrote; nothing was signed.`,
        );
      const mode = stat.mode & 0o777;
      if (process.platform !== 'win32' && (mode & 0o077) !== 0)
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `The anchor key ${keyFile} has mode 0${mode.toString(8)}: group or others may read it, so it is refused (as ssh refuses such a key). Run "chmod 600 ${keyFile}", then retry; nothing was signed.`,
          details: { field: 'keyFile', value: keyFile, mode: `0${mode.toString(8)}` },
        });
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (EpisodicError.isInstance(error)) throw error;
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Could not read the anchor key ${keyFile}: ${(error as Error).message}. Pass the key file "episodic anchors keygen --out FILE" wrote; nothing was signed.`,
      details: { field: 'keyFile', value: keyFile },
      cause: error,
    });
  }
  let key: nodeCrypto.KeyObject;
  try {
    key = nodeCrypto.createPrivateKey(text);
  } catch (error) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `${keyFile} is not a private key in PEM (${(error as Error).message}). Pass the key file "episodic anchors keygen" wrote; nothing was signed.`,
      details: { field: 'keyFile', value: keyFile },
      cause: error,
    });
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw invalid(
      'keyFile',
      keyFile,
      `${keyFile} holds a ${key.asymmetricKeyType ?? 'unknown'} key; anchors are signed with Ed25519. Make one with "episodic anchors keygen --out FILE"; nothing was signed.`,
    );
  return key;
}

/** A public key given as SPKI base64url (what keygen prints) or as a PEM public key. */
function publicKeyOf(text: string): nodeCrypto.KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? nodeCrypto.createPublicKey(trimmed)
    : nodeCrypto.createPublicKey({
        key: Buffer.from(trimmed, 'base64url'),
        format: 'der',
        type: 'spki',
      });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${key.asymmetricKeyType} key`);
  return key;
}

/**
 * Parses a public key the user gave (`--public-key`): SPKI base64url as `anchors keygen` prints
 * it, or a PEM public key. `VALIDATION_ERROR` naming the value when it is neither.
 */
export function parseAnchorPublicKey(text: string): string {
  try {
    return b64url(publicKeyOf(text).export({ type: 'spki', format: 'der' }));
  } catch (error) {
    throw invalid(
      'publicKey',
      text.length > 80 ? `${text.slice(0, 80)}…` : text,
      `Invalid public key "${text.length > 80 ? `${text.slice(0, 80)}…` : text}": ${(error as Error).message}. Pass the Ed25519 public key "episodic anchors keygen" printed (SPKI, base64url), or a PEM public key; nothing was verified.`,
    );
  }
}

/**
 * Whether an anchor file's signature holds: against `publicKey` (SPKI base64url) when given, else
 * against the key the file names (whose fingerprint must be its `key_id`). Never throws on a bad
 * file: a key or signature that cannot be read is `false`.
 */
export function verifyAnchorSignature(file: AnchorFile, publicKey?: string): boolean {
  try {
    const spki = publicKey ?? file.public_key;
    if (publicKey === undefined && anchorKeyId(spki) !== file.key_id) return false;
    return nodeCrypto.verify(
      null,
      Buffer.from(anchorSigningText(file), 'utf8'),
      publicKeyOf(spki),
      Buffer.from(file.signature, 'base64url'),
    );
  } catch {
    return false;
  }
}

/**
 * Reads and checks an anchor file's shape (not its signature: `verifyEpisodicHome` does that).
 * `VALIDATION_ERROR` naming the file, and the field, when it is not an `episodic.anchors.v1` file.
 */
export function readAnchorFile(path: string): AnchorFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Could not read the anchor file ${path}: ${(error as Error).message}. Pass a file "episodic anchors create" wrote; nothing was verified.`,
      details: { field: 'anchors', value: path },
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(
      'anchors',
      path,
      `${path} is not JSON (${(error as Error).message}), so it is not an anchor file. Pass a file "episodic anchors create" wrote; nothing was verified.`,
    );
  }
  const parsed = anchorFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      'anchors',
      path,
      `${path} is not an episodic.anchors.v1 file: ${issue?.path.join('.') || 'the file'} ${issue?.message ?? 'is invalid'}. Pass a file "episodic anchors create" wrote; nothing was verified.`,
    );
  }
  return parsed.data;
}

/** Options of `createAnchors`. */
export interface CreateAnchorsOptions {
  /** The Ed25519 private key (PKCS#8 PEM) `generateAnchorKey` wrote; refused if group/others may read it. */
  keyFile: string;
  /** The home folder: its config's `home_key` names the home in the file (added on first use). */
  home?: string;
  /** Anchor the runs and the run store's erasure log. @default true */
  runs?: boolean;
  /** Anchor the ledger sessions of one scope (`{ scope }`) or every scope (`{ global: true }`). */
  ledger?: { scope: string } | { global: true };
  /** Write the signed file here (never over an existing file: `CONFLICT`). */
  out?: string;
  /** The time written in the file. @default now */
  now?: Date;
}

/** What `createAnchors` made. */
export interface CreatedAnchors {
  /** The signed `episodic.anchors.v1` document. */
  readonly document: AnchorFile;
  /** Per part: anchored, not chained, or not asked for. */
  readonly parts: {
    readonly runs: 'anchored' | 'not-chained' | 'not-asked';
    readonly ledger: 'anchored' | 'not-chained' | 'not-asked';
  };
  /** One sentence per thing not anchored, and why (sessions are not chained yet). */
  readonly notes: readonly string[];
}

const createOptionsSchema = z.strictObject({
  keyFile: z.string().min(1),
  home: z.string().min(1).optional(),
  runs: z.boolean().optional(),
  ledger: z
    .union([
      z.strictObject({ scope: z.string().min(1) }),
      z.strictObject({ global: z.literal(true) }),
    ])
    .optional(),
  out: z.string().min(1).optional(),
  now: z.date().optional(),
});

/**
 * Signs the current head of every selected chained stream (each run, each ledger session of the
 * scope asked for) and of the run store's erasure log into an `episodic.anchors.v1` document
 * (docs/design/verify.md section 5), streams named by their random keys only. The home is verified
 * first: a home with an error finding is refused (`CORRUPT_DATA`), since anchoring it would sign
 * the change; a selection with no chained part is `UNSUPPORTED`. Sessions are not chained yet, so
 * they are not anchored (a note says so).
 *
 * ```ts
 * const stores = await openEpisodicStores({ home: '/tmp/demo', readOnly: true });
 * const { document } = await createAnchors(stores, { keyFile: '/tmp/anchor-demo.pem', home: '/tmp/demo' });
 * await stores.close();
 * ```
 */
export async function createAnchors(
  stores: { readonly runs: RunStore; readonly ledger: Ledger },
  options: CreateAnchorsOptions,
): Promise<CreatedAnchors> {
  const checked = parseOptions(
    createOptionsSchema,
    options,
    'anchor options',
    'Pass keyFile, and optionally home, runs (boolean), ledger ({ scope } or { global: true }), out and now; nothing was signed.',
  );
  const key = readAnchorKey(checked.keyFile);
  const notes: string[] = ['sessions: not anchored (session streams are not chained yet)'];
  const summaries: ChainStreamSummary[] = [];
  const onStream = (summary: ChainStreamSummary) => {
    summaries.push(summary);
  };
  let errors = 0;
  let firstError: string | undefined;
  const count = (report: ChainReport) => {
    if (report.ok) return;
    const found = report.findings.filter((finding) => finding.severity === 'error');
    errors += Math.max(found.length, 1);
    firstError ??= found[0]?.detail ?? found[0]?.finding;
  };
  let runsPart: CreatedAnchors['parts']['runs'] = 'not-asked';
  let ledgerPart: CreatedAnchors['parts']['ledger'] = 'not-asked';
  if (checked.runs !== false) {
    if (stores.runs.capabilities.chain === true) {
      count(await stores.runs.verifyChain({ sha256: nodeSha256, onStream }));
      runsPart = 'anchored';
    } else {
      runsPart = 'not-chained';
      notes.push(
        'runs: not anchored (the run store does not chain: "chain": true in episodic-home.json)',
      );
    }
  }
  if (checked.ledger === undefined) {
    notes.push('ledger: not anchored (give --scope SCOPE, --global or --all-scopes)');
  } else if (stores.ledger.capabilities.chain === true) {
    count(await stores.ledger.verifyChain({ sha256: nodeSha256, ...checked.ledger, onStream }));
    ledgerPart = 'anchored';
  } else {
    ledgerPart = 'not-chained';
    notes.push(
      'ledger: not anchored (the ledger does not chain: "chain": true in episodic-home.json)',
    );
  }
  if (runsPart !== 'anchored' && ledgerPart !== 'anchored')
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `Nothing to anchor: ${notes.slice(1).join('; ')}. Add "chain": true to episodic-home.json to chain from the next write on, or name a chained part; nothing was written.`,
      details: { runs: runsPart, ledger: ledgerPart },
    });
  if (errors > 0)
    throw new EpisodicError({
      code: 'CORRUPT_DATA',
      message: `The home fails verification (${errors} error finding${errors === 1 ? '' : 's'}${firstError === undefined ? '' : `, the first: ${firstError}`}), so it is not anchored: an anchor would sign the change. Run "episodic verify" to see every finding, restore what changed, then anchor again; nothing was written.`,
      details: { errors },
    });
  const heads: AnchorFile['heads'] = [];
  const erasureLogs: AnchorFile['erasure_logs'] = [];
  let unanchorable = 0;
  for (const summary of summaries) {
    if (summary.key === undefined) continue; // not chained: nothing to anchor
    if (summary.head === undefined || summary.n === 0) {
      unanchorable++;
      continue;
    }
    if (summary.stream.kind === 'erasures')
      erasureLogs.push({ stream: summary.key, n: summary.n, h: summary.head });
    else
      heads.push({
        stream: summary.key,
        kind: summary.stream.kind,
        n: summary.n,
        h: summary.head,
        ...(summary.boundary === undefined || summary.boundary.n >= summary.n
          ? {}
          : { boundary: { n: summary.boundary.n, h: summary.boundary.h } }),
      });
  }
  if (unanchorable > 0)
    notes.push(
      `${unanchorable} chained stream(s) not anchored: their head cannot be computed (entries missing before it)`,
    );
  const drawKey = () => b64url(nodeCrypto.randomBytes(16));
  const homeKey = checked.home === undefined ? undefined : homeAnchorKey(checked.home, drawKey);
  if (homeKey === undefined)
    notes.push(
      'home: no episodic-home.json, so the home key in this file is drawn fresh: it does not name the home for later anchors',
    );
  const publicKey = b64url(nodeCrypto.createPublicKey(key).export({ type: 'spki', format: 'der' }));
  const unsigned = {
    format: 'episodic.anchors.v1' as const,
    created_at: (checked.now ?? new Date()).toISOString(),
    home: homeKey ?? drawKey(),
    public_key: publicKey,
    key_id: anchorKeyId(publicKey),
    heads,
    erasure_logs: erasureLogs,
  };
  const signature = b64url(
    nodeCrypto.sign(null, Buffer.from(anchorSigningText(unsigned), 'utf8'), key),
  );
  const document = anchorFileSchema.parse({ ...unsigned, signature });
  if (checked.out !== undefined) writeAnchorFile(checked.out, document);
  return { document, parts: { runs: runsPart, ledger: ledgerPart }, notes };
}

/** Writes an anchor file (never over an existing one), fsynced. */
function writeAnchorFile(path: string, document: AnchorFile): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EpisodicError({
      code: code === 'EEXIST' ? 'CONFLICT' : 'STORAGE_ERROR',
      message:
        code === 'EEXIST'
          ? `${path} already exists: an anchor file is never overwritten (an older anchor is evidence). Choose another --out path (e.g. one per day); nothing was written.`
          : `Could not create the anchor file ${path}: ${(error as Error).message}. Check the folder exists and is writable; nothing was written.`,
      details: { path },
      cause: error,
    });
  }
  try {
    writeSync(fd, `${JSON.stringify(document)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
