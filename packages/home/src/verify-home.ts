// `episodic verify` as a library (docs/design/verify.md 4.4): the home's run store and ledger
// verified with core's fold, Node's SHA-256 injected, the two reports merged into one.
import {
  type ChainFinding,
  type ChainReport,
  EpisodicError,
  type Ledger,
  type RunStore,
} from '@episodic/core';
import { CHAIN_FINDINGS } from '@episodic/core/schemas';
import * as z from 'zod';
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
}

/** What `verifyEpisodicHome` found. */
export interface HomeVerification {
  /** The runs' and the ledger's reports, merged (findings runs first, capped at `maxFindings`). */
  readonly report: ChainReport;
  /** Per part: verified, not chained (its store does not chain), or not asked for. */
  readonly parts: { readonly runs: HomeVerifyPart; readonly ledger: HomeVerifyPart };
  /** One sentence per part that was not verified, and why. */
  readonly notes: readonly string[];
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
      message: `Invalid home verify options: ${field} ${issue?.message ?? 'is invalid'}. Pass runs (boolean), runId, ledger ({ scope } or { global: true }), sessionId and maxFindings only.`,
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
  let runsPart: HomeVerifyPart = 'not-asked';
  let ledgerPart: HomeVerifyPart = 'not-asked';
  if (checked.runs !== false) {
    if (stores.runs.capabilities.chain === true) {
      const runs = await stores.runs.verifyChain({
        sha256: nodeSha256,
        maxFindings,
        ...(checked.runId === undefined ? {} : { runId: checked.runId }),
      });
      report = mergeChainReports(report, runs, maxFindings);
      runsPart = 'verified';
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
  return { report, parts: { runs: runsPart, ledger: ledgerPart }, notes };
}
