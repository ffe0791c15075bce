import { resolve } from 'node:path';
import type { ChainFinding, ChainReport } from '@episodic/core';
import { type HomeVerification, readAnchorFile, verifyEpisodicHome } from '@episodic/home';

import type { CommandContext, CommandHandler, CommandResult } from '../command-spec.js';
import { EXIT_FAILURE } from '../exit-codes.js';
import { runIdArgument } from '../id-arguments.js';
import { commandName, ledgerCommand } from '../ledger-command.js';
import { writeNotes } from '../notes.js';
import { flag, listOption, optionalScopeSelector, optionalString } from '../option-values.js';
import { createStyles } from '../output.js';
import { locate, withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

/** The most findings a receipt holds (docs/design/verify.md 4.3); the counts are never capped. */
const MAX_FINDINGS = 1000;

/** How a stream is named for a person: `run 8f1d7b7a`, `ledger my-project / s-42`, `erasure log`. */
function streamLabel(stream: ChainFinding['stream']): string {
  switch (stream.kind) {
    case 'run':
      return `run ${stream.id ?? stream.key ?? '?'}`;
    case 'ledger':
      return `ledger ${stream.scope ?? '?'} / ${stream.session_id ?? '?'}`;
    case 'erasures':
      return 'erasure log';
    case 'session':
      return `session ${stream.id ?? stream.key ?? '?'}`;
    default:
      return `stream ${stream.key ?? '?'}`;
  }
}

/** Where an entry is: `line 14 of sessions/…/x.jsonl`, `row 12 of episodic_events`, `entry 3`. */
function whereText(finding: ChainFinding): string {
  const { where } = finding;
  if (where?.line !== undefined)
    return where.file === undefined ? `line ${where.line}` : `line ${where.line} of ${where.file}`;
  if (where?.rowid !== undefined)
    return `row ${where.rowid}${where.table === undefined ? '' : ` of ${where.table}`}`;
  if (finding.from !== undefined && finding.to !== undefined && finding.from !== finding.to)
    return `entries ${finding.from}–${finding.to}`;
  if (finding.n !== undefined) return `entry ${finding.n}`;
  if (finding.to !== undefined) return `${finding.to} entries`;
  return '';
}

/** One finding in a few words: `altered at line 14 of …`. */
function findingText(finding: ChainFinding): string {
  const where = whereText(finding);
  const what =
    finding.finding === 'redacted' && finding.redaction !== undefined
      ? `redacted by Episodic (${finding.redaction.at})`
      : finding.finding;
  return where === '' ? what : `${what} at ${where}`;
}

/** The failure sentence: the first error finding and how many more there are. */
function failureSentence(report: ChainReport): string {
  const errors = report.findings.filter((finding) => finding.severity === 'error');
  const total = errorCount(report);
  const first = errors[0];
  if (first === undefined)
    return `${total} error finding(s) (not listed: the findings were truncated)`;
  const rest = total - 1;
  const more = rest > 0 ? ` (and ${rest} more error finding${rest === 1 ? '' : 's'})` : '';
  // A finding about an anchor file itself (its signature, its home) names no stream.
  if (first.stream.kind === undefined && first.stream.key === undefined)
    return `${first.detail ?? first.finding}${more}. Check the anchor file and the key (--public-key), or run "episodic verify --json" for every finding.`;
  const verb =
    first.finding === 'altered'
      ? 'was changed outside Episodic'
      : first.finding === 'deleted'
        ? 'is missing (deleted outside Episodic)'
        : first.finding === 'inserted'
          ? 'was inserted outside Episodic'
          : first.finding === 'reordered'
            ? 'was moved outside Episodic'
            : first.finding === 'anchor-mismatch'
              ? 'differs from its signed anchor (rewritten since it was anchored)'
              : `is ${first.finding}`;
  const where = whereText(first);
  return `${streamLabel(first.stream)}${where === '' ? '' : ` ${where}`} ${verb}${more}. Restore it from a backup or an export, or run "episodic verify --json" for every finding.`;
}

/** The number of error findings (from the counts when the list was capped). */
function errorCount(report: ChainReport): number {
  const listed = report.findings.filter((finding) => finding.severity === 'error').length;
  if (!report.truncated) return listed;
  const { altered, inserted, deleted, reordered } = report.counts;
  return Math.max(
    listed,
    altered + inserted + deleted + reordered + report.counts['anchor-mismatch'],
  );
}

/** Who made an erasure, as one phrase: the command (with its flag names) or the library call. */
function erasureByText(by: Record<string, unknown>): string {
  if (typeof by.command === 'string') {
    const flags = Array.isArray(by.flags) && by.flags.length > 0 ? ` ${by.flags.join(' ')}` : '';
    return `${by.command}${flags}`;
  }
  return typeof by.api === 'string' ? by.api : 'unknown';
}

/** The receipt's report fields (the same object under `details` when it fails). */
function reportFields(verification: HomeVerification) {
  const { report } = verification;
  return {
    verified: report.verified,
    streams: report.streams,
    findings: report.findings,
    counts: report.counts,
    truncated: report.truncated,
    anchors: verification.anchors ?? null,
    parts: verification.parts,
    notes: [...verification.notes],
  };
}

/** Whether something asked for is not chained (`--require-chain` fails on it). */
function chainMissing(verification: HomeVerification): string | undefined {
  const { parts, report } = verification;
  const missing = (['runs', 'ledger'] as const).filter((part) => parts[part] === 'not-chained');
  if (missing.length > 0)
    return `--require-chain: the home's ${missing.join(' and the ')} ${missing.length === 1 && missing[0] === 'ledger' ? 'is' : 'are'} not chained (see the notes). Nothing was changed.`;
  if (report.counts.unchained > 0)
    return `--require-chain: ${report.counts.unchained} stream range(s) hold entries written before chaining (or by another program): they are not covered by the chain.`;
  if (parts.runs === 'not-asked' && parts.ledger === 'not-asked')
    return '--require-chain: nothing was verified.';
  return undefined;
}

/** The human output: one line per stream with a finding, then the notes and a summary line. */
function render(
  context: CommandContext,
  verification: HomeVerification,
  write: (text: string) => void,
): void {
  const styles = createStyles(context.globals.color, context.globals.width);
  const { report } = verification;
  const byStream = new Map<string, { label: string; findings: ChainFinding[] }>();
  for (const finding of report.findings) {
    const label = streamLabel(finding.stream);
    const id = JSON.stringify(finding.stream);
    let entry = byStream.get(id);
    if (entry === undefined) {
      entry = { label, findings: [] };
      byStream.set(id, entry);
    }
    entry.findings.push(finding);
  }
  for (const { label, findings } of byStream.values()) {
    const worst = findings.some((finding) => finding.severity === 'error')
      ? styles.red('error')
      : findings.some((finding) => finding.severity === 'warning')
        ? styles.yellow('warning')
        : styles.dim('info');
    write(`${worst}  ${styles.bold(label)}: ${findings.map(findingText).join('; ')}\n`);
  }
  const counted = Object.entries(report.counts)
    .filter(([, count]) => count > 0)
    .map(([finding, count]) => `${count} ${finding}`);
  const verified = `${report.verified.streams} stream${report.verified.streams === 1 ? '' : 's'}, ${report.verified.entries} entr${report.verified.entries === 1 ? 'y' : 'ies'}`;
  const nothing =
    verification.parts.runs !== 'verified' && verification.parts.ledger !== 'verified';
  const { parts } = verification;
  const summary = nothing
    ? parts.runs === 'not-chained' && parts.ledger === 'not-chained'
      ? 'no chain: nothing in this home is chained (nothing to verify)'
      : `no chain: nothing verified (runs: ${parts.runs.replace('-', ' ')}; ledger: ${parts.ledger.replace('-', ' ')})`
    : report.ok
      ? `${styles.green('verified')} ${verified}: no change outside Episodic${counted.length === 0 ? '' : ` (${counted.join(', ')})`}`
      : `${styles.red('NOT verified')} ${verified}: ${counted.join(', ')}`;
  write(`${summary}${report.truncated ? ` (findings listed: the first ${MAX_FINDINGS})` : ''}\n`);
  const { anchors } = verification;
  if (anchors !== undefined) {
    const valid = anchors.signatures.filter((signature) => signature.valid).length;
    const failed = anchors.files - valid;
    const outcome = [
      `${anchors.verified} verified`,
      ...(anchors.mismatched > 0
        ? [styles.red(`${anchors.mismatched} changed since the anchor`)]
        : []),
      ...(anchors.deleted > 0 ? [styles.red(`${anchors.deleted} deleted`)] : []),
      ...(anchors.collected > 0 ? [`${anchors.collected} collected by Episodic`] : []),
      ...(anchors.not_checked > 0 ? [`${anchors.not_checked} not checked`] : []),
    ];
    write(
      `anchors: ${anchors.files} file${anchors.files === 1 ? '' : 's'}, signatures checked against ${anchors.checked_against === 'public-key' ? 'the public key given' : 'the key in each file'}${failed > 0 ? ` (${styles.red(`${failed} failed`)}: their heads are not used)` : ''}; ${anchors.streams} anchored stream${anchors.streams === 1 ? '' : 's'}: ${outcome.join(', ')}${anchors.not_anchored > 0 ? `; ${anchors.not_anchored} stream${anchors.not_anchored === 1 ? '' : 's'} not anchored (newer than the anchors)` : ''}\n`,
    );
    const after = anchors.erasures_after;
    if (after !== undefined && after.entries.length > 0) {
      write(
        `${styles.bold(`erased after the newest anchor (${after.anchor_created_at})`)}, for review (${after.since === 'erasure-log-head' ? 'past the erasure-log head it signed' : 'recorded later than its time'}):\n`,
      );
      for (const entry of after.entries)
        write(
          `  ${entry.at}  ${entry.op === 'redact' ? 'redacted' : 'collected'}  stream ${entry.stream}  by ${erasureByText(entry.by)}\n`,
        );
    }
  }
}

/**
 * `verify`: checks the chains of the home's runs and, for the scope given, its ledger sessions
 * (docs/design/verify.md section 4). Read-only: nothing is created or changed.
 */
export const verify: CommandHandler = ledgerCommand(async (context): Promise<CommandResult> => {
  const { options } = context;
  const command = commandName(context);
  const askedRuns = flag(options, 'runs');
  const askedLedger = flag(options, 'ledger');
  const selector = optionalScopeSelector(options, command);
  const sessionId = optionalString(options, 'session-id');
  const runReference = optionalString(options, 'run');
  // Neither part named: both (the ledger only with a scope, said in one line).
  const runs = askedRuns || !askedLedger;
  const ledger = askedLedger || (!askedRuns && selector !== undefined);
  if (ledger && selector === undefined && askedLedger) {
    throw new UsageError(
      `"${command} --ledger" needs --scope SCOPE (--global is the scope named global; --all-scopes verifies every scope). Nothing falls back across scopes; nothing was read.`,
      'SCOPE_REQUIRED',
    );
  }
  if (sessionId !== undefined && selector === undefined) {
    throw new UsageError(
      `--session-id names a ledger session: add --scope SCOPE (or --global, --all-scopes). Nothing was read.`,
      'SCOPE_REQUIRED',
    );
  }
  if (!ledger && (selector !== undefined || sessionId !== undefined)) {
    throw new UsageError(
      `${selector === undefined ? '--session-id' : '--scope, --global and --all-scopes'} select ledger sessions: drop --runs (or add --ledger), or leave ${selector === undefined ? 'it' : 'them'} out. Nothing was read.`,
    );
  }
  if (runReference !== undefined && !runs) {
    throw new UsageError(
      '--run names a run: drop --ledger (or add --runs) to verify it. Nothing was read.',
    );
  }
  const anchorPaths = listOption(options, 'anchors', false);
  const publicKey = optionalString(options, 'public-key');
  if (publicKey !== undefined && anchorPaths === undefined) {
    throw new UsageError(
      '--public-key checks the signatures of anchor files: add --anchors FILE (repeatable). Nothing was read.',
    );
  }
  // Unreadable or malformed anchor files are bad input (exit 2), before any store is opened.
  const anchorFiles = anchorPaths?.map((path) => ({
    name: path,
    file: readAnchorFile(resolve(path)),
  }));
  const runId =
    runReference === undefined ? undefined : await runIdArgument(context, runReference, '--run');
  const verification = await withStores(
    context,
    (stores) =>
      verifyEpisodicHome(stores, {
        runs,
        maxFindings: MAX_FINDINGS,
        ...(runId === undefined ? {} : { runId }),
        ...(ledger && selector !== undefined ? { ledger: selector } : {}),
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(anchorFiles === undefined
          ? {}
          : {
              anchors: {
                files: anchorFiles,
                home: locate(context).home,
                ...(publicKey === undefined ? {} : { publicKey }),
              },
            }),
      }),
    { readOnly: true },
  );
  const { report } = verification;
  const fields = reportFields(verification);
  writeNotes(context, verification.notes);
  const required = flag(options, 'require-chain') ? chainMissing(verification) : undefined;
  const renderAll = (write: (text: string) => void) => render(context, verification, write);
  if (!report.ok) {
    const sentence = failureSentence(report);
    return {
      receipt: { ok: false, code: 'CORRUPT_DATA', error: sentence, details: fields },
      render: (write) => {
        renderAll(write);
        context.io.stderr(`episodic: ${sentence} (CORRUPT_DATA)\n`);
      },
      exitCode: EXIT_FAILURE,
    };
  }
  if (required !== undefined) {
    return {
      receipt: { ok: false, code: 'UNSUPPORTED', error: required, details: fields },
      render: (write) => {
        renderAll(write);
        context.io.stderr(`episodic: ${required} (UNSUPPORTED)\n`);
      },
      exitCode: EXIT_FAILURE,
    };
  }
  return { receipt: fields, render: renderAll };
});
