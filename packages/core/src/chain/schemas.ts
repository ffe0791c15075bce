// The zod schemas of docs/design/verify.md: chain members (line and row streams, session bases),
// erasure log entries, anchor files, findings and the `episodic.verify.v1` receipt.
import * as z from 'zod';
import { isBase64Url } from './base64url.js';

const b64 = (bytes: number, what: string) =>
  z.string().refine((text) => isBase64Url(text, bytes), {
    message: `must be ${what}: ${bytes} bytes in base64url without padding (${Math.ceil((bytes * 8) / 6)} characters)`,
  });

/** A salt, a stream key or an erasure id: 16 bytes in base64url (22 characters). */
export const chainIdSchema = b64(16, 'a salt, stream key or erasure id');
/** A commitment or a head: a SHA-256 digest in base64url (43 characters). */
export const chainDigestSchema = b64(32, 'a SHA-256 digest');
const positionSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/**
 * The `chain` member of an entry of a line or row stream (a run line, a session delta, a ledger
 * event's columns, an erasure log entry): `n`, the stream key `k` on the stream's first chained
 * entry, exactly one of the salt `s` and the erasure id `r` (a redacted entry), the commitment `c`,
 * and a stored head `h` every 64th entry.
 */
export const chainMemberSchema = z
  .strictObject({
    n: positionSchema,
    k: chainIdSchema.optional(),
    s: chainIdSchema.optional(),
    r: chainIdSchema.optional(),
    c: chainDigestSchema,
    h: chainDigestSchema.optional(),
  })
  .refine((member) => (member.s === undefined) !== (member.r === undefined), {
    message: 'must hold exactly one of s (the salt) and r (the erasure id of a redaction)',
  });
export type ChainMember = z.infer<typeof chainMemberSchema>;

/**
 * The `chain` field of a session base (docs/design/verify.md section 1.7): the stream key, the
 * revision it folded up to, every segment head so far, the commitments of the open segment, and
 * the base's own seal (`c` over its canonical JSON, salted with `s`, or `r` once redacted).
 */
export const baseChainSchema = z
  .strictObject({
    k: chainIdSchema,
    n: positionSchema,
    heads: z.array(chainDigestSchema),
    open: z.array(chainDigestSchema).max(63),
    s: chainIdSchema.optional(),
    r: chainIdSchema.optional(),
    c: chainDigestSchema,
  })
  .refine((member) => (member.s === undefined) !== (member.r === undefined), {
    message: 'must hold exactly one of s (the salt) and r (the erasure id of a redaction)',
  })
  .refine((member) => member.heads.length === Math.floor(member.n / 64), {
    message: 'heads must hold one head per complete segment of 64 revisions up to n',
  })
  .refine((member) => member.open.length <= member.n % 64, {
    message: 'open holds at most the commitments of the revisions after the last segment',
  });
export type BaseChain = z.infer<typeof baseChainSchema>;

/** Who made an erasure: a command and its flag names (never their values), or a library call. */
export const erasureBySchema = z.union([
  z.looseObject({
    command: z.string().min(1).max(200),
    flags: z.array(z.string().max(100)).max(50),
    software: z.string().max(200).optional(),
  }),
  z.looseObject({ api: z.string().min(1).max(200), label: z.string().max(200).optional() }),
]);
/** Who made an erasure (the `by` of an erasure entry). */
export type ErasureBy = z.infer<typeof erasureBySchema>;

const segmentPointSchema = z.strictObject({ n: positionSchema, h: chainDigestSchema });

/**
 * One entry of an erasure log (docs/design/verify.md sections 1.5 and 1.6): a redaction (the
 * entries it changed: their `n`, `c` and the SHA-256 `after` of what they now are), a collection
 * (a whole stream `through` its last head, a prefix `through` a checkpoint, or the commitments of
 * the `entries` collected from inside a stream), or an import seal. Streams are named by key only.
 */
export const erasureEntrySchema = z.discriminatedUnion('op', [
  z.looseObject({
    op: z.literal('redact'),
    at: z.iso.datetime(),
    by: erasureBySchema,
    id: chainIdSchema,
    stream: chainIdSchema,
    mode: z.string().max(100).optional(),
    was: z.literal('altered').optional(),
    entries: z
      .array(z.strictObject({ n: positionSchema, c: chainDigestSchema, after: chainDigestSchema }))
      .min(1),
  }),
  z.looseObject({
    op: z.literal('collect'),
    at: z.iso.datetime(),
    by: erasureBySchema,
    id: chainIdSchema,
    stream: chainIdSchema,
    reason: z.string().max(100).optional(),
    through: z
      .strictObject({
        n: positionSchema,
        h: chainDigestSchema.optional(),
        boundary: segmentPointSchema.optional(),
        open: z.array(chainDigestSchema).max(63).optional(),
      })
      .optional(),
    entries: z.array(z.strictObject({ n: positionSchema, c: chainDigestSchema })).optional(),
    /**
     * The stream's first chained `n`, where entries before it were never chained (a ledger
     * session's unchained prefix): gone entries below it are not `deleted`.
     */
    first: positionSchema.optional(),
  }),
  z.looseObject({
    op: z.literal('import'),
    at: z.iso.datetime(),
    id: chainIdSchema,
    stream: chainIdSchema,
    seal: chainDigestSchema,
    from_home: z.string().min(1).max(100),
  }),
]);
export type ErasureEntry = z.infer<typeof erasureEntrySchema>;

/** The kinds of stream the chain covers. */
export const CHAIN_STREAM_KINDS = ['run', 'session', 'ledger', 'erasures'] as const;
export type ChainStreamKind = (typeof CHAIN_STREAM_KINDS)[number];

/** An anchor file, `episodic.anchors.v1` (docs/design/verify.md section 5). */
export const anchorFileSchema = z.strictObject({
  format: z.literal('episodic.anchors.v1'),
  created_at: z.iso.datetime(),
  home: z.string().min(1).max(100),
  public_key: z.string().min(1).max(200),
  key_id: z.string().min(1).max(100),
  heads: z.array(
    z.strictObject({
      stream: chainIdSchema,
      kind: z.enum(CHAIN_STREAM_KINDS),
      n: positionSchema,
      h: chainDigestSchema,
      boundary: segmentPointSchema.optional(),
      base: z.strictObject({ n: positionSchema, c: chainDigestSchema }).optional(),
    }),
  ),
  erasure_logs: z.array(
    z.strictObject({ stream: chainIdSchema, n: positionSchema, h: chainDigestSchema }),
  ),
  signature: z.string().min(1).max(200),
});
export type AnchorFile = z.infer<typeof anchorFileSchema>;

/** The findings of `verify`, and their severity (docs/design/verify.md section 4.2). */
export const CHAIN_FINDINGS = [
  'altered',
  'inserted',
  'deleted',
  'reordered',
  'forked',
  'unchained',
  'redacted',
  'collected',
  'anchor-mismatch',
  'unreadable',
] as const;
export type ChainFindingKind = (typeof CHAIN_FINDINGS)[number];

/** Where an entry is stored: file and line (store-fs), table and rowid (SQLite), table and key. */
export const chainWhereSchema = z.strictObject({
  file: z.string().optional(),
  line: z.number().int().min(1).optional(),
  table: z.string().optional(),
  rowid: z.number().int().optional(),
  key: z.string().optional(),
  revision: z.number().int().min(1).optional(),
});
export type ChainWhere = z.infer<typeof chainWhereSchema>;

/** The stream a finding is about: its kind and id (scope and session for the ledger), its key when known. */
export const chainStreamRefSchema = z.strictObject({
  kind: z.enum(CHAIN_STREAM_KINDS),
  id: z.string().min(1).max(500).optional(),
  scope: z.string().max(500).optional(),
  session_id: z.string().max(500).optional(),
  key: chainIdSchema.optional(),
});
export type ChainStreamRef = z.infer<typeof chainStreamRefSchema>;

/** One finding of `verify`. `n` names an entry; `from`/`to` a range (unchained, deleted, collected). */
export const chainFindingSchema = z.strictObject({
  finding: z.enum(CHAIN_FINDINGS),
  severity: z.enum(['error', 'warning', 'info']),
  /** The stream; only its key (no kind) for a stream known from an erasure log or an anchor alone. */
  stream: chainStreamRefSchema.partial({ kind: true }),
  n: positionSchema.optional(),
  where: chainWhereSchema.optional(),
  from: positionSchema.optional(),
  to: positionSchema.optional(),
  verified_from: positionSchema.optional(),
  /** The other entry of a `reordered` or `forked` pair. */
  other: z.strictObject({ n: positionSchema, where: chainWhereSchema.optional() }).optional(),
  redaction: z
    .strictObject({
      erasure: chainIdSchema,
      at: z.string(),
      by: erasureBySchema,
      mode: z.string().optional(),
      applied: z.boolean().optional(),
    })
    .optional(),
  detail: z.string().max(500).optional(),
});
export type ChainFinding = z.infer<typeof chainFindingSchema>;

const countsSchema = z.strictObject(
  Object.fromEntries(CHAIN_FINDINGS.map((finding) => [finding, z.number().int().min(0)])) as Record<
    ChainFindingKind,
    z.ZodNumber
  >,
);

/** What a verification found, before a command wraps it in a receipt. */
export const chainReportSchema = z.strictObject({
  ok: z.boolean(),
  verified: z.strictObject({
    streams: z.number().int().min(0),
    entries: z.number().int().min(0),
    bytes: z.number().int().min(0),
  }),
  streams: z.strictObject({
    chained: z.number().int().min(0),
    unchained: z.number().int().min(0),
    collected: z.number().int().min(0),
  }),
  findings: z.array(chainFindingSchema),
  counts: countsSchema,
  truncated: z.boolean(),
});
export type ChainReport = z.infer<typeof chainReportSchema>;

const receiptCommon = {
  kind: z.literal('episodic.verify.v1'),
  ts: z.iso.datetime(),
  version: z.looseObject({ episodic: z.string(), schema: z.string() }),
};
const receiptReport = {
  verified: chainReportSchema.shape.verified,
  streams: chainReportSchema.shape.streams,
  findings: z.array(chainFindingSchema).max(1000),
  counts: countsSchema,
  truncated: z.boolean().optional(),
  /** With `--anchors` (section 5): the files' signatures and what became of each anchored stream. */
  anchors: z
    .looseObject({
      files: z.number().int().min(0),
      streams: z.number().int().min(0),
      /** Signatures checked against the `--public-key` given, or each file's own key. */
      checked_against: z.enum(['public-key', 'file-key']).optional(),
      /** Per file, oldest first. */
      signatures: z
        .array(
          z.strictObject({
            file: z.string(),
            created_at: z.string(),
            key_id: z.string(),
            valid: z.boolean(),
            home: z.enum(['this', 'other', 'unknown']),
          }),
        )
        .optional(),
      verified: z.number().int().min(0).optional(),
      mismatched: z.number().int().min(0).optional(),
      collected: z.number().int().min(0).optional(),
      deleted: z.number().int().min(0).optional(),
      not_checked: z.number().int().min(0).optional(),
      not_anchored: z.number().int().min(0).optional(),
      /**
       * The run store's redactions and collections recorded after the newest valid anchor, listed
       * apart for review (section 5): past the erasure-log head it signed, else after its time.
       */
      erasures_after: z
        .strictObject({
          anchor_created_at: z.string(),
          since: z.enum(['erasure-log-head', 'created-at']),
          entries: z.array(
            z.strictObject({
              op: z.enum(['redact', 'collect']),
              at: z.string(),
              by: erasureBySchema,
              stream: chainIdSchema,
            }),
          ),
        })
        .optional(),
    })
    .nullable(),
  /** Per part of the home: verified, not chained (its store does not chain), or not asked for. */
  parts: z
    .strictObject({
      runs: z.enum(['verified', 'not-chained', 'not-asked']),
      ledger: z.enum(['verified', 'not-chained', 'not-asked']),
    })
    .optional(),
  /** One sentence per part that was not verified, and why. */
  notes: z.array(z.string()).optional(),
};

/**
 * The `episodic.verify.v1` receipt (`episodic verify --json`, docs/design/verify.md section 4.3):
 * the report itself when nothing is an error, else the failure shape (`ok: false`, `code`,
 * `error`) with the same report under `details`. Findings are capped at 1,000 (`truncated`),
 * counts never.
 */
export const verifyReceiptSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ...receiptCommon, ok: z.literal(true), ...receiptReport }),
  z.strictObject({
    ...receiptCommon,
    ok: z.literal(false),
    code: z.string(),
    error: z.string(),
    details: z.strictObject(receiptReport),
  }),
]);
export type VerifyReceipt = z.infer<typeof verifyReceiptSchema>;

/**
 * A store's `chain` option: `false` (the default until `episodic verify` ships: nothing is
 * chained), `true` (chain every entry; racing plain run appenders may fork), or `'strict'`
 * (take the run lock on every plain append too: no forks, at a cost).
 */
export const chainOptionSchema = z.union([z.boolean(), z.literal('strict')]);
export type ChainOption = z.infer<typeof chainOptionSchema>;
