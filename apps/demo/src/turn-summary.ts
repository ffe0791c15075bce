import { AGENT_LIMITS, type TurnRecord } from './agent/demo-agent.js';
import type { ManifestSummary } from './agent/manifest-summary.js';
import type { TurnSummary } from './report.js';

/** The report's form of a turn (no full manifests, no full outputs). */
export function summarizeTurn(
  record: TurnRecord,
  label: string,
  shows: string,
  process: 'main' | 'child',
): TurnSummary {
  return {
    label,
    shows,
    sessionId: record.sessionId,
    turnId: record.turnId,
    runId: record.runId,
    process,
    pid: record.pid,
    input: record.input,
    outcome: record.outcome,
    stopReason: record.stopReason,
    answer: record.answer,
    error: record.error,
    toolCalls: record.toolCalls.map((call) => ({
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
      outputChars: call.output === null ? null : call.output.length,
      isError: call.isError,
      latencyMs: call.latencyMs,
    })),
    pendingCalls: record.pendingCalls,
    modelCalls: record.modelCalls.map((call) => ({
      seq: call.seq,
      invokeSeq: call.invokeSeq,
      round: call.round,
      inputTokens: call.inputTokens,
      manifest: call.manifest,
    })),
    revisionBefore: record.revisionBefore,
    revisionAfter: record.revisionAfter,
    episodes: record.episodes,
    interruptBoundaryId: record.interruptBoundaryId,
    compaction:
      record.compaction === null
        ? null
        : {
            checkpointId: record.compaction.checkpointId,
            covers: record.compaction.covers,
            artifactKey: record.compaction.artifactKey,
            reason: record.compaction.reason,
            summary: record.compaction.summary,
          },
    compactionError: record.compactionError,
    resumedFromInvokeSeq: record.resumedFromInvokeSeq,
  };
}

const number = (value: number) => value.toLocaleString('en-US');

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function describeManifest(manifest: ManifestSummary): string {
  const dropped = Object.entries(manifest.dropped.by_reason)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  return `input starts at #${manifest.start_id ?? '–'} (${manifest.start}), ${manifest.item_count} items, ~${number(manifest.estimated_tokens)} tokens${dropped === '' ? '' : `; not sent: ${dropped}`}`;
}

/** A turn as a few lines of text: the input, each tool call, what the model saw, the answer. */
export function renderTurn(turn: TurnSummary): string[] {
  const lines = [
    `${turn.label.padEnd(4)}${turn.process === 'child' ? '[fresh process] ' : ''}${turn.input}`,
  ];
  const detail = (text: string) => lines.push(`      ${text}`);
  for (const call of turn.toolCalls) {
    const result =
      call.outputChars === null
        ? 'interrupted before it returned'
        : `${number(call.outputChars)} chars${call.isError ? ' (error)' : ''}`;
    lines.push(`    → ${call.name} ${clip(call.arguments, 60)}  ${result}, ${call.latencyMs} ms`);
  }
  const shown = new Set<string>();
  for (const call of turn.modelCalls) {
    const { manifest } = call;
    for (const note of manifest.notes) {
      // A note repeats in every later model input of the turn: show it where it first appears.
      if (shown.has(note.detail)) continue;
      shown.add(note.detail);
      const kind =
        note.kind === 'synthesized-output'
          ? 'healed a dangling call'
          : note.kind === 'truncated-output'
            ? 'truncated a tool output'
            : note.kind;
      detail(
        `model input ${call.round + 1} ${kind} (episode #${note.episode_id ?? '?'}): ${note.detail}`,
      );
    }
    if (manifest.budget?.exceeded === true) {
      detail(
        `model input ${call.round + 1}: budget exceeded (last input ${number(manifest.budget.last_input_tokens ?? 0)} > ${number(manifest.budget.limit)} tokens) → ${describeManifest(manifest)}`,
      );
    }
  }
  if (turn.outcome === 'step-limit') {
    for (const pending of turn.pendingCalls) {
      detail(
        `stopped at the step limit (${AGENT_LIMITS.maxModelCalls} model calls): ${pending.name} ${clip(pending.arguments, 50)} (${pending.callId}) committed without an output`,
      );
    }
  }
  if (turn.outcome === 'interrupted') {
    detail(`interrupted: ${turn.error ?? ''}`);
    detail(
      `the turn's work so far and interrupt boundary #${turn.interruptBoundaryId ?? '?'} committed (revision ${turn.revisionBefore} → ${turn.revisionAfter}); run ended "cancelled"`,
    );
  }
  if (turn.outcome === 'failed') {
    detail(`failed: ${turn.error ?? ''}`);
    detail(
      `nothing committed (revision stays ${turn.revisionAfter}); the run file keeps run.error`,
    );
  }
  if (turn.answer !== null) lines.push(`    ← ${clip(turn.answer, 220)}`);
  if (turn.compaction !== null) {
    detail(
      `compaction (${turn.compaction.reason}): checkpoint #${turn.compaction.checkpointId} summarizes #${turn.compaction.covers.fromId}–#${turn.compaction.covers.toId}${turn.compaction.artifactKey === null ? '' : `, kept as artifact ${turn.compaction.artifactKey}`}`,
    );
  }
  if (turn.compactionError !== null)
    detail(`compaction failed (the turn stays committed): ${turn.compactionError}`);
  return lines;
}
