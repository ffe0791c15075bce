// `episodic verify` as a library (docs/design/verify.md 4.4): the home's run store and ledger
// verified with core's fold, Node's SHA-256 injected, the two reports merged into one.
import {
  type AnchorFile,
  type ChainFinding,
  type ChainReport,
  type ChainStreamRef,
  type ChainStreamSummary,
  EpisodicError,
  type ErasureEntry,
  type Ledger,
  type RunStore,
} from '@episodic/core';
import { anchorFileSchema, CHAIN_FINDINGS } from '@episodic/core/schemas';
import * as z from 'zod';
import { parseAnchorPublicKey, verifyAnchorSignature } from './anchors.js';
import { readHomeConfig } from './home-config.js';
import { nodeSha256 } from './node-chain-crypto.js';

/** What was done with one part of a home (its runs, its ledger). */
export type HomeVerifyPart = 'verified' | 'not-chained' | 'not-asked';

/** Options of `verifyEpisodicHome`. */
export interface VerifyEpisodicHomeOptions {
  /** Verify the runs (every run, or `runId`). @default true */
  runs?: boolean;
  /** Only this run (a full id). */
  runId?: string;
  /**
   * The ledger scope to verify: `{ scope }` (one scope), `{ global: true }` (every scope), or
   * absent: the ledger is not verified (nothing falls back across scopes).
   */
  ledger?: { scope: string } | { global: true };
  /** Only this ledger session (with `ledger`). */
  sessionId?: string;
  /** Findings kept in the merged report (the counts keep counting). @default 1000 */
  maxFindings?: number;
  /**
   * Check the home against anchor files (docs/design/verify.md section 5): each file's signature
   * (against `publicKey` when given, else the key in the file), then every anchored stream's head.
   */
  anchors?: VerifyAnchorsOptions;
}

/** The `anchors` option of `verifyEpisodicHome`. */
export interface VerifyAnchorsOptions {
  /** The anchor files (`episodic.anchors.v1`, e.g. from `readAnchorFile`), any order: checked oldest first. */
  files: readonly { readonly name: string; readonly file: unknown }[];
  /** The public key to check every signature against (SPKI base64url or PEM). @default the file's own */
  publicKey?: string;
  /** The home folder: a file whose `home` is not this home's `home_key` is an error. */
  home?: string;
}

/** What the anchors said (the receipt's `anchors`). */
export interface HomeAnchorResult {
  /** Anchor files given. */
  readonly files: number;
  /** Distinct streams the files with a valid signature anchor. */
  readonly streams: number;
  /** What the signatures were checked against: the given public key, or each file's own key. */
  readonly checked_against: 'public-key' | 'file-key';
  /** Per file, oldest first: whether its signature holds and whether it names this home. */
  readonly signatures: readonly {
    readonly file: string;
    readonly created_at: string;
    readonly key_id: string;
    readonly valid: boolean;
    readonly home: 'this' | 'other' | 'unknown';
  }[];
  /** Anchored streams present whose head equals the signed one. */
  readonly verified: number;
  /** Anchored streams present whose head differs (`anchor-mismatch`) or whose anchored entries are gone. */
  readonly mismatched: number;
  /** Anchored streams gone, with a matching `collect` erasure. */
  readonly collected: number;
  /** Anchored streams gone without one (`deleted`). */
  readonly deleted: number;
  /** Anchored streams outside what this verification read (another scope, runs not asked for). */
  readonly not_checked: number;
  /** Chained streams no file anchors (created after the newest anchor). */
  readonly not_anchored: number;
  /**
   * The run store's redactions and collections recorded after the newest valid anchor, listed
   * apart for review (design section 5); absent when the runs were not verified or no anchor holds.
   */
  readonly erasures_after?: ErasuresAfterAnchor;
}

/** The erasures recorded after the newest valid anchor (the receipt's `anchors.erasures_after`). */
export interface ErasuresAfterAnchor {
  /** The newest valid anchor's `created_at`. */
  readonly anchor_created_at: string;
  /**
   * How "after" was decided: past the erasure-log head the anchor signed (no clock trusted), or,
   * when it signed none for this log, entries whose `at` is later than its `created_at`.
   */
  readonly since: 'erasure-log-head' | 'created-at';
  /** Oldest first: what was erased, when, by whom, and the stream's key. */
  readonly entries: readonly {
    readonly op: 'redact' | 'collect';
    readonly at: string;
    readonly by: Extract<ErasureEntry, { op: 'redact' }>['by'];
    readonly stream: string;
  }[];
}

/** What `verifyEpisodicHome` found. */
export interface HomeVerification {
  /** The runs' and the ledger's reports, merged (findings runs first, capped at `maxFindings`). */
  readonly report: ChainReport;
  /** Per part: verified, not chained (its store does not chain), or not asked for. */
  readonly parts: { readonly runs: HomeVerifyPart; readonly ledger: HomeVerifyPart };
  /** One sentence per part that was not verified, and why. */
  readonly notes: readonly string[];
  /** With the `anchors` option: what the anchor files said. */
  readonly anchors?: HomeAnchorResult;
}

const optionsSchema = z.strictObject({
  runs: z.boolean().optional(),
  runId: z.string().min(1).optional(),
  ledger: z
    .union([
      z.strictObject({ scope: z.string().min(1) }),
      z.strictObject({ global: z.literal(true) }),
    ])
    .optional(),
  sessionId: z.string().min(1).optional(),
  maxFindings: z.number().int().min(1).max(1_000_000).optional(),
  anchors: z
    .strictObject({
      files: z
        .array(z.strictObject({ name: z.string().min(1), file: z.unknown() }))
        .min(1)
        .max(10_000),
      publicKey: z.string().min(1).optional(),
      home: z.string().min(1).optional(),
    })
    .optional(),
});

/** An empty report: nothing verified. */
function emptyChainReport(): ChainReport {
  return {
    ok: true,
    verified: { streams: 0, entries: 0, bytes: 0 },
    streams: { chained: 0, unchained: 0, collected: 0 },
    findings: [],
    counts: Object.fromEntries(
      CHAIN_FINDINGS.map((finding) => [finding, 0]),
    ) as ChainReport['counts'],
    truncated: false,
  };
}

/** Two reports as one: sums, findings in order (at most `maxFindings`), `ok` when both are. */
function mergeChainReports(left: ChainReport, right: ChainReport, maxFindings = 1000): ChainReport {
  const findings: ChainFinding[] = [...left.findings, ...right.findings];
  const counts = { ...left.counts };
  for (const finding of CHAIN_FINDINGS) counts[finding] += right.counts[finding];
  return {
    ok: left.ok && right.ok,
    verified: {
      streams: left.verified.streams + right.verified.streams,
      entries: left.verified.entries + right.verified.entries,
      bytes: left.verified.bytes + right.verified.bytes,
    },
    streams: {
      chained: left.streams.chained + right.streams.chained,
      unchained: left.streams.unchained + right.streams.unchained,
      collected: left.streams.collected + right.streams.collected,
    },
    findings: findings.slice(0, maxFindings),
    counts,
    truncated: left.truncated || right.truncated || findings.length > maxFindings,
  };
}

/**
 * Verifies the chains of a home's stores (docs/design/verify.md section 4): its runs when the run
 * store chains (`capabilities.chain`), and the ledger sessions of the scope asked for when the
 * ledger chains, with Node's SHA-256; a part whose store does not chain is reported as
 * `not-chained` (with a note), never as an error. Reads only: open the stores read-only.
 *
 * ```ts
 * const stores = await openEpisodicStores({ home: '/tmp/demo', readOnly: true });
 * const { report, parts } = await verifyEpisodicHome(stores, { ledger: { scope: 'my-project' } });
 * await stores.close();
 * ```
 */
export async function verifyEpisodicHome(
  stores: { readonly runs: RunStore; readonly ledger: Ledger },
  options: VerifyEpisodicHomeOptions = {},
): Promise<HomeVerification> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'options';
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid home verify options: ${field} ${issue?.message ?? 'is invalid'}. Pass runs (boolean), runId, ledger ({ scope } or { global: true }), sessionId, maxFindings and anchors ({ files, publicKey?, home? }) only.`,
      details: { field },
    });
  }
  const checked = parsed.data;
  if (checked.sessionId !== undefined && checked.ledger === undefined) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid home verify options: sessionId names a ledger session, so it needs ledger ({ scope } or { global: true }).',
      details: { field: 'sessionId', value: checked.sessionId },
    });
  }
  const maxFindings = checked.maxFindings ?? 1000;
  const notes: string[] = [];
  let report = emptyChainReport();
  const anchoring = checked.anchors === undefined ? undefined : checkAnchorFiles(checked.anchors);
  const summaries: ChainStreamSummary[] = [];
  const anchorOptions =
    anchoring === undefined
      ? {}
      : {
          anchors: anchoring.trusted,
          verifySignature: anchoring.verifySignature,
          onStream: (summary: ChainStreamSummary) => {
            summaries.push(summary);
          },
        };
  if (anchoring !== undefined) report = mergeChainReports(report, anchoring.report, maxFindings);
  let runsPart: HomeVerifyPart = 'not-asked';
  let ledgerPart: HomeVerifyPart = 'not-asked';
  let erasureLogKeys: Set<string> | undefined;
  if (checked.runs !== false) {
    if (stores.runs.capabilities.chain === true) {
      const runs = await stores.runs.verifyChain({
        sha256: nodeSha256,
        maxFindings,
        ...(checked.runId === undefined ? {} : { runId: checked.runId }),
        ...anchorOptions,
      });
      report = mergeChainReports(report, runs, maxFindings);
      runsPart = 'verified';
      erasureLogKeys = new Set(
        summaries.flatMap((summary) =>
          summary.stream.kind === 'erasures' && summary.key !== undefined ? [summary.key] : [],
        ),
      );
    } else {
      runsPart = 'not-chained';
      notes.push(
        stores.runs.name === 'fs'
          ? 'runs: no chain (the run files are not chained: add "chain": true to episodic-home.json to record proofs from the next append on)'
          : `runs: no chain (the ${stores.runs.name} run store does not chain runs yet; run files do, with "chain": true in episodic-home.json)`,
      );
    }
  }
  if (checked.ledger === undefined) {
    notes.push('ledger: not verified (give --scope SCOPE, --global or --all-scopes)');
  } else if (stores.ledger.capabilities.chain === true) {
    const ledger = await stores.ledger.verifyChain({
      sha256: nodeSha256,
      ...checked.ledger,
      ...(checked.sessionId === undefined ? {} : { sessionId: checked.sessionId }),
      ...anchorOptions,
    });
    report = mergeChainReports(report, ledger, maxFindings);
    ledgerPart = 'verified';
  } else {
    ledgerPart = 'not-chained';
    notes.push(
      stores.ledger.name === 'sqlite'
        ? 'ledger: no chain (the ledger is not chained: add "chain": true to episodic-home.json to record proofs from the next append on)'
        : `ledger: no chain (the ${stores.ledger.name} ledger does not chain yet)`,
    );
  }
  const parts = { runs: runsPart, ledger: ledgerPart };
  if (anchoring === undefined) return { report, parts, notes };
  const covered = new Set<string>();
  if (runsPart === 'verified' && checked.runId === undefined) covered.add('run').add('erasures');
  if (
    ledgerPart === 'verified' &&
    checked.ledger !== undefined &&
    'global' in checked.ledger &&
    checked.sessionId === undefined
  )
    covered.add('ledger');
  const result = anchorResult(anchoring, report, summaries, covered);
  if (result.not_checked > 0)
    notes.push(
      `anchors: ${result.not_checked} anchored stream(s) not checked (outside what was verified: give the selection the anchors were made with, e.g. --all-scopes)`,
    );
  const newest = anchoring.trusted.at(-1);
  const anchors =
    newest === undefined || erasureLogKeys === undefined
      ? result
      : {
          ...result,
          erasures_after: erasuresAfter(newest, erasureLogKeys, await stores.runs.readErasures()),
        };
  return { report, parts, notes, anchors };
}

/** The anchor files checked: their signatures and home, the trusted ones oldest first. */
interface CheckedAnchors {
  readonly trusted: AnchorFile[];
  readonly verifySignature: (file: AnchorFile) => boolean;
  readonly signatures: HomeAnchorResult['signatures'];
  readonly checkedAgainst: HomeAnchorResult['checked_against'];
  /** The findings of files whose signature fails (or that name another home). */
  readonly report: ChainReport;
  readonly files: number;
}

function checkAnchorFiles(
  options: NonNullable<VerifyEpisodicHomeOptions['anchors']>,
): CheckedAnchors {
  const publicKey =
    options.publicKey === undefined ? undefined : parseAnchorPublicKey(options.publicKey);
  const homeKey = options.home === undefined ? undefined : readHomeConfig(options.home)?.home_key;
  const files = options.files.map(({ name, file }) => {
    const parsed = anchorFileSchema.safeParse(file);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `${name} is not an episodic.anchors.v1 file: ${issue?.path.join('.') || 'the file'} ${issue?.message ?? 'is invalid'}. Pass a file "episodic anchors create" wrote; nothing was verified.`,
        details: { field: 'anchors', value: name },
      });
    }
    return { name, file: parsed.data };
  });
  // Oldest first (a stable sort keeps the given order between files of the same time).
  files.sort((left, right) =>
    left.file.created_at < right.file.created_at
      ? -1
      : left.file.created_at > right.file.created_at
        ? 1
        : 0,
  );
  const verifySignature = (file: AnchorFile) => verifyAnchorSignature(file, publicKey);
  const report = emptyChainReport();
  const trusted: AnchorFile[] = [];
  const signatures = files.map(({ name, file }) => {
    const valid = verifySignature(file);
    const home: 'this' | 'other' | 'unknown' =
      homeKey === undefined ? 'unknown' : file.home === homeKey ? 'this' : 'other';
    const problem = !valid
      ? `anchor file ${name} (created ${file.created_at}, key ${file.key_id}) fails its signature (checked against ${publicKey === undefined ? 'the key in the file' : 'the public key given'}): its heads are not used`
      : home === 'other'
        ? `anchor file ${name} (created ${file.created_at}) was made for another home (its home key is not this home's): its heads are not used`
        : undefined;
    if (problem === undefined) trusted.push(file);
    else {
      report.counts['anchor-mismatch']++;
      report.findings.push({
        finding: 'anchor-mismatch',
        severity: 'error',
        stream: {},
        detail: problem.slice(0, 500),
      });
      report.ok = false;
    }
    return { file: name, created_at: file.created_at, key_id: file.key_id, valid, home };
  });
  return {
    trusted,
    verifySignature,
    signatures,
    checkedAgainst: publicKey === undefined ? 'file-key' : 'public-key',
    report,
    files: files.length,
  };
}

/**
 * The run store's redactions and collections recorded after `anchor` (design section 5: listed
 * apart, for review). When the anchor signed this erasure log's head (its key among `logKeys`),
 * the entries past its `n` are the ones after it: no clock is trusted. Otherwise (the log did not
 * exist then, or the anchor covered only the ledger) entries whose `at` is later than the anchor's
 * `created_at`. Positions count the log's readable entries: an unreadable line is a finding of
 * its own.
 */
function erasuresAfter(
  anchor: AnchorFile,
  logKeys: ReadonlySet<string>,
  entries: readonly ErasureEntry[],
): ErasuresAfterAnchor {
  const signed = anchor.erasure_logs.find((log) => logKeys.has(log.stream));
  const after =
    signed === undefined
      ? entries.filter((entry) => Date.parse(entry.at) > Date.parse(anchor.created_at))
      : entries.slice(signed.n);
  return {
    anchor_created_at: anchor.created_at,
    since: signed === undefined ? 'created-at' : 'erasure-log-head',
    entries: after.flatMap((entry) =>
      entry.op === 'redact' || entry.op === 'collect'
        ? [{ op: entry.op, at: entry.at, by: entry.by, stream: entry.stream }]
        : [],
    ),
  };
}

const refId = (ref: Partial<ChainStreamRef>) =>
  [ref.kind ?? '', ref.id ?? '', ref.scope ?? '', ref.session_id ?? ''].join('\u0000');

/** Per anchored stream: verified, mismatched, collected, deleted or not checked; and the streams no anchor names. */
function anchorResult(
  anchoring: CheckedAnchors,
  report: ChainReport,
  summaries: readonly ChainStreamSummary[],
  covered: ReadonlySet<string>,
): HomeAnchorResult {
  const anchored = new Map<string, string>();
  for (const file of anchoring.trusted) {
    for (const head of file.heads) anchored.set(head.stream, head.kind);
    for (const log of file.erasure_logs) anchored.set(log.stream, 'erasures');
  }
  const failed = new Set<string>();
  const collectedKeys = new Set<string>();
  const deletedKeys = new Set<string>();
  for (const finding of report.findings) {
    if (finding.finding === 'anchor-mismatch' || finding.finding === 'deleted')
      failed.add(refId(finding.stream));
    const key = finding.stream.key;
    if (key !== undefined && anchored.has(key)) {
      if (finding.finding === 'collected') collectedKeys.add(key);
      else if (
        finding.finding === 'deleted' &&
        finding.stream.id === undefined &&
        finding.stream.scope === undefined
      )
        deletedKeys.add(key); // gone whole (a stream still there names its id or scope)
    }
  }
  const seen = new Set<string>();
  let verified = 0;
  let mismatched = 0;
  let notAnchored = 0;
  for (const summary of summaries) {
    // A stream with no entry left (a ledger session whose rows were all deleted) is not present.
    if (summary.key === undefined || summary.n === 0) continue;
    seen.add(summary.key);
    if (!anchored.has(summary.key)) notAnchored++;
    else if (failed.has(refId(summary.stream))) mismatched++;
    else verified++;
  }
  let notChecked = 0;
  for (const [key, kind] of anchored)
    if (!seen.has(key) && !covered.has(kind) && !collectedKeys.has(key)) notChecked++;
  return {
    files: anchoring.files,
    streams: anchored.size,
    checked_against: anchoring.checkedAgainst,
    signatures: anchoring.signatures,
    verified,
    mismatched,
    collected: collectedKeys.size,
    deleted: deletedKeys.size,
    not_checked: notChecked,
    not_anchored: notAnchored,
  };
}
