import type { ChainFinding, ChainReport, Ledger, RunStore } from '@episodic/core';
import { type HomeVerification, verifyEpisodicHome } from '@episodic/home';
import * as z from 'zod';
import type { ChainBadgeResponse } from './api-types.js';
import { parseQuery } from './query-params.js';

/** Findings one badge reads (the counts are never capped). */
const BADGE_MAX_FINDINGS = 20;

const SEVERITY_ORDER = ['error', 'warning', 'info'] as const;

/** Where a finding's entry is: `line 14 of sessions/…/x.jsonl`, `row 12 of episodic_events`. */
function whereText(finding: ChainFinding): string {
  const { where } = finding;
  if (where?.line !== undefined)
    return where.file === undefined ? `line ${where.line}` : `line ${where.line} of ${where.file}`;
  if (where?.rowid !== undefined)
    return `row ${where.rowid}${where.table === undefined ? '' : ` of ${where.table}`}`;
  if (finding.from !== undefined && finding.to !== undefined && finding.from !== finding.to)
    return `entries ${finding.from}–${finding.to}`;
  if (finding.n !== undefined) return `entry ${finding.n}`;
  return '';
}

const MEANING: Record<string, string> = {
  altered: 'was changed outside Episodic',
  inserted: 'was inserted outside Episodic',
  deleted: 'is missing (deleted outside Episodic)',
  reordered: 'was moved outside Episodic',
  forked: 'was written twice with one number (two writers at once)',
  unchained: 'was written before chaining: not covered by the chain',
  redacted: 'was redacted by Episodic',
  collected: 'was collected by Episodic',
  'anchor-mismatch': 'differs from its signed anchor',
  unreadable: 'cannot be read',
};

/** One finding as a sentence: `Entry 5 (line 5 of sessions/…) was changed outside Episodic.` */
function findingSentence(finding: ChainFinding): string {
  const where = whereText(finding);
  const entry = finding.n === undefined ? 'An entry' : `Entry ${finding.n}`;
  const redaction =
    finding.finding === 'redacted' && finding.redaction !== undefined
      ? ` (${finding.redaction.at}, ${finding.redaction.by.command})`
      : '';
  const meaning = MEANING[finding.finding];
  // The store's own detail only where the kind alone says too little.
  const detail =
    finding.detail === undefined || (meaning !== undefined && finding.finding !== 'unreadable')
      ? ''
      : `: ${finding.detail}`;
  return `${entry}${where === '' ? '' : ` (${where})`} ${meaning ?? finding.finding}${redaction}${detail}.`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The badge of one verified stream (or of a part that is not chained). */
export function chainBadge(verification: HomeVerification, part: 'runs' | 'ledger') {
  const { report, parts, notes } = verification;
  const counts = Object.fromEntries(
    Object.entries(report.counts).filter(([, count]) => count > 0),
  ) as Partial<ChainReport['counts']>;
  const notChained = (label: string): ChainBadgeResponse => ({
    status: 'not-chained',
    label,
    severity: null,
    entries: report.verified.entries,
    counts,
    first: null,
    notes: [...notes],
  });
  if (parts[part] === 'not-chained') return notChained('not chained');
  const bySeverity = (severity: (typeof SEVERITY_ORDER)[number]) =>
    report.findings.filter((finding) => finding.severity === severity);
  const worst = SEVERITY_ORDER.find((severity) => bySeverity(severity).length > 0) ?? null;
  const first = worst === null ? null : (bySeverity(worst)[0] as ChainFinding);
  const base = { entries: report.verified.entries, counts, notes: [...notes] };
  if (worst === 'error' || worst === 'warning') {
    const listed = bySeverity(worst).length;
    const total =
      worst === 'error' && report.truncated
        ? Math.max(
            listed,
            (counts.altered ?? 0) +
              (counts.inserted ?? 0) +
              (counts.deleted ?? 0) +
              (counts.reordered ?? 0) +
              (counts['anchor-mismatch'] ?? 0),
          )
        : listed;
    return {
      status: 'findings',
      label: plural(total, worst === 'error' ? 'error' : 'warning'),
      severity: worst,
      first: findingSentence(first as ChainFinding),
      ...base,
    } satisfies ChainBadgeResponse;
  }
  if (report.streams.chained === 0) {
    return notChained(report.verified.entries === 0 ? 'nothing to verify' : 'not chained');
  }
  const unchained = report.findings.find((finding) => finding.finding === 'unchained');
  const redacted = counts.redacted ?? 0;
  const label = [
    unchained?.verified_from === undefined
      ? 'verified'
      : `verified from entry ${unchained.verified_from}`,
    ...(redacted > 0 ? [`redacted ${redacted}×`] : []),
  ].join(', ');
  return {
    status: 'verified',
    label,
    severity: worst,
    first: first === null ? null : findingSentence(first),
    ...base,
  } satisfies ChainBadgeResponse;
}

/**
 * `GET /api/runs/:id/verify`: the chain of one run (its lines, and its own erasure entries),
 * verified now. Reads only: the run's lines and the erasure log are read like any reader does, so
 * no writer waits for it.
 */
export async function runChainBadge(
  stores: { runs: RunStore; ledger: Ledger },
  rawRunId: string,
): Promise<ChainBadgeResponse> {
  const runId = await stores.runs.resolveRunId(rawRunId, { subject: 'run id' });
  const verification = await verifyEpisodicHome(stores, {
    runId,
    maxFindings: BADGE_MAX_FINDINGS,
  });
  return chainBadge(
    { ...verification, notes: verification.notes.filter((note) => !note.startsWith('ledger:')) },
    'runs',
  );
}

const ledgerStreamSchema = z.strictObject({
  scope: z.string().min(1).max(200),
  session: z.string().min(1).max(500),
});

/**
 * `GET /api/ledger/verify?scope=…&session=…`: the chain of one ledger session (one stream),
 * verified now with plain reads (no transaction that would hold writers back).
 */
export async function ledgerChainBadge(
  stores: { runs: RunStore; ledger: Ledger },
  rawQuery: Record<string, string>,
): Promise<ChainBadgeResponse> {
  const { scope, session } = parseQuery(ledgerStreamSchema, rawQuery, 'ledger verify query');
  const verification = await verifyEpisodicHome(stores, {
    runs: false,
    ledger: { scope },
    sessionId: session,
    maxFindings: BADGE_MAX_FINDINGS,
  });
  return chainBadge(verification, 'ledger');
}
