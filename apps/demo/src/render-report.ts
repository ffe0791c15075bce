import type { TaskPattern } from '@episodic/core';
import type { CheckResult, DemoReport } from './report.js';
import { renderTimeline } from './timeline.js';

const number = (value: number) => value.toLocaleString('en-US');

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function row(label: string, text: string): string {
  return `  ${label.padEnd(15)} ${text}`;
}

const more = (text: string) => `  ${''.padEnd(15)} ${text}`;

/** A path under the home, written relative to it (the home is printed once, above). */
function inHome(report: DemoReport, path: string): string {
  const prefix = `${report.home.path}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function describePattern(pattern: TaskPattern): string {
  switch (pattern.type) {
    case 'tool_sequence':
      return `tool_sequence   ${pattern.tools.join(' → ')}`;
    case 'decision_point':
      return `decision_point  ${pattern.tool}: "${clip(pattern.condition, 70)}" (${pattern.decision_words.join(', ')})`;
    case 'error_recovery':
      return `error_recovery  ${pattern.failed_tool} failed ("${clip(pattern.error, 50)}"), ${pattern.recovery_tool} recovered`;
    case 'context':
      return `context         ${pattern.context_features.join(', ')} → ${pattern.recommended_tools.join(', ')}`;
    default:
      return JSON.stringify(pattern);
  }
}

/** The check results as text lines. */
export function renderChecks(checks: readonly CheckResult[]): string[] {
  const failed = checks.filter((check) => check.status === 'failed').length;
  const skipped = checks.filter((check) => check.status === 'skipped').length;
  const passed = checks.length - failed - skipped;
  const lines = [
    `Checks: ${passed} passed${skipped > 0 ? `, ${skipped} skipped` : ''}${failed > 0 ? `, ${failed} FAILED` : ''}`,
  ];
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) {
    const mark = check.status === 'passed' ? '✓' : check.status === 'skipped' ? '-' : '✗';
    lines.push(`  ${mark} ${check.name.padEnd(width)}  ${check.detail}`);
  }
  return lines;
}

/** Everything after the turns: where things are, what the model saw, timeline, ledger, task, commands, checks. */
export function renderReport(report: DemoReport): string[] {
  const lines: string[] = [];
  const { paths, scenarios } = report;

  lines.push('Where everything is');
  lines.push(
    row(
      'home',
      `${report.home.path}${report.home.fresh ? '  (recreated fresh for this run)' : ''}`,
    ),
  );
  lines.push(row('workspace', `${paths.workspace}  (the files the tools read)`));
  lines.push(
    row(
      'run files',
      `${paths.runsFolder}/YYYY/MM/DD/<run_id>.jsonl  (${paths.runFiles.length} runs)`,
    ),
  );
  for (const file of paths.runFiles)
    lines.push(more(`${file.label.padEnd(12)} ${inHome(report, file.path)}`));
  lines.push(row('snapshots', `${paths.snapshotsFolder}/<session_id>.json`));
  for (const snapshot of paths.snapshots) {
    const which =
      snapshot.sessionId === report.session.id
        ? `session, revision ${report.session.revision}`
        : `fork, revision ${report.fork?.revision ?? '?'}`;
    lines.push(more(`${inHome(report, snapshot.path)}  (${which})`));
  }
  lines.push(
    row('tool outputs', `${paths.toolOutputsFolder}/  (the full text of every tool output)`),
  );
  lines.push(
    row(
      'database',
      `${paths.database}  (ledger scope "${report.ledger?.scope ?? '?'}", artifacts: patterns, reflection, checkpoint summaries)`,
    ),
  );
  lines.push(row('report', `${paths.report}  ("pnpm demo verify" checks it again)`));
  lines.push('');

  lines.push(
    'What the model saw, and why (from the assembly manifests recorded with each llm.request)',
  );
  if (scenarios.truncation) {
    const truncation = scenarios.truncation;
    lines.push(
      row(
        'long output',
        `${truncation.turn} read ${truncation.path}: ${number(truncation.fileChars)} chars, complete in the run file and ${truncation.cacheFile === null ? 'the cache' : inHome(report, truncation.cacheFile)}`,
      ),
    );
    lines.push(
      more(
        `the model saw ${number(truncation.viewChars)} chars (${number(truncation.omittedChars)} omitted); manifest, episode #${truncation.episodeId ?? '?'}: "${truncation.manifestNote ?? ''}"`,
      ),
    );
  }
  if (scenarios.danglingCall) {
    const dangling = scenarios.danglingCall;
    lines.push(
      row(
        'dangling call',
        `${dangling.turn} stopped with ${dangling.name} ${clip(dangling.arguments, 40)} (${dangling.callId}) unanswered`,
      ),
    );
    lines.push(
      more(
        `${dangling.healedIn ?? 'no later turn'} healed it in the model input only: "${clip(dangling.manifestNote ?? '', 110)}"`,
      ),
    );
  }
  if (scenarios.interrupt) {
    lines.push(
      row(
        'interrupt',
        `${scenarios.interrupt.turn} kept up to the interrupt; boundary #${scenarios.interrupt.boundaryId ?? '?'} "${clip(scenarios.interrupt.reason ?? '', 80)}" is shown to the next turn as <interrupt>, its unfinished call healed`,
      ),
    );
  }
  if (scenarios.budgetRestart) {
    const restart = scenarios.budgetRestart;
    const dropped = Object.entries(restart.droppedByReason)
      .map(([reason, count]) => `${count} ${reason}`)
      .join(', ');
    lines.push(
      row(
        'budget restart',
        `${restart.turn} model input ${restart.round + 1} (llm.request ${restart.seq}): last input ${number(restart.lastInputTokens ?? 0)} > budget ${number(restart.limit)} tokens`,
      ),
    );
    lines.push(
      more(
        `→ started at #${restart.startId ?? '–'} (${restart.start}); not sent: ${dropped} (budget: #${restart.droppedBudgetIds[0] ?? '?'}–#${restart.droppedBudgetIds.at(-1) ?? '?'})`,
      ),
    );
  }
  if (scenarios.compaction) {
    const compaction = scenarios.compaction;
    lines.push(
      row(
        'checkpoint',
        `#${compaction.checkpointId} summarizes #${compaction.covers.fromId}–#${compaction.covers.toId} (${compaction.reason})`,
      ),
    );
    lines.push(
      more(
        `${compaction.nextTurn ?? 'the next turn'}'s input starts at #${compaction.nextStartId ?? '?'}; summary kept as artifact ${compaction.artifactKey ?? '(none)'}`,
      ),
    );
  }
  if (scenarios.failedTurn) {
    const failed = scenarios.failedTurn;
    lines.push(row('failed turn', `${failed.turn}: ${clip(failed.error ?? '', 90)}`));
    lines.push(
      more(
        `snapshot sha256 ${failed.snapshotSha256Before.slice(0, 16)}… before and ${failed.snapshotSha256After.slice(0, 16)}… after; revision ${failed.revisionBefore} → ${failed.revisionAfter}`,
      ),
    );
  }
  if (scenarios.resume) {
    const resume = scenarios.resume;
    lines.push(
      row(
        'resume',
        `${resume.turn} ran in process ${resume.pid} (this one: ${resume.parentPid}): ${resume.episodesLoaded} episodes from snapshot revision ${resume.snapshotRevision}; llm.request seq ${resume.firstSeq ?? '?'} follows invoke_seq ${resume.snapshotInvokeSeq}`,
      ),
    );
  }
  if (scenarios.fork && report.fork) {
    lines.push(
      row(
        'fork',
        `${scenarios.fork.turn} ran on ${report.fork.id}, forked at #${scenarios.fork.forkedAtEpisode}; the original session did not change`,
      ),
    );
  }
  lines.push('');

  lines.push(
    `Timeline of session ${report.session.id} (${report.session.episodes} episodes, revision ${report.session.revision})`,
  );
  lines.push(...renderTimeline(report.timeline));
  lines.push('');

  if (report.ledger) {
    const { ledger } = report;
    const total = Object.values(ledger.byType).reduce((sum, count) => sum + count, 0);
    lines.push(
      `Ledger ${ledger.database}, scope "${ledger.scope}": ${total} events (${ledger.fromEpisodes} projected from episodes, ${ledger.fromRuns} from run records)`,
    );
    for (const [type, count] of Object.entries(ledger.byType))
      lines.push(`  ${type.padEnd(24)} ${String(count).padStart(4)}`);
    lines.push(
      `  scope "${ledger.otherScope.scope}": ${ledger.otherScope.events} events (scopes never leak into each other)`,
    );
    lines.push('');
  }

  if (report.task) {
    const { task } = report;
    const { episode } = task;
    const calls = Object.entries(task.calls)
      .map(([name, count]) => (count === 1 ? name : `${count} × ${name}`))
      .join(', ');
    lines.push(`Task episode ${task.episodeId} (MCP over stdio: ${calls})`);
    if (episode.outcome) {
      const outcome = episode.outcome;
      lines.push(
        row(
          'outcome',
          `${outcome.type}: ${'verdict' in outcome ? outcome.verdict : outcome.reason}`,
        ),
      );
    }
    if (episode.reward) {
      const reward = episode.reward;
      lines.push(
        row(
          'reward',
          `reward_score ${reward.reward_score.toFixed(3)}  (total ${reward.total.toFixed(2)} = base ${reward.base.toFixed(2)} × efficiency ${reward.efficiency.toFixed(2)} × complexity ${reward.complexity_bonus.toFixed(2)} × quality ${reward.quality_multiplier.toFixed(2)} + learning ${reward.learning_bonus.toFixed(2)})`,
        ),
      );
    }
    lines.push(
      row(
        'steps',
        `${episode.steps.length} (${task.timeline.timeline.filter((step) => step.result_type === 'error').length} errors), ${task.timeline.duration_seconds ?? '?'} s`,
      ),
    );
    if (episode.reflection) {
      const reflection = episode.reflection;
      const items = [
        ...reflection.successes.map((text) => `+ ${text}`),
        ...reflection.improvements.map((text) => `− ${text}`),
        ...reflection.insights.map((text) => `• ${text}`),
      ];
      items.forEach((text, index) => {
        lines.push(index === 0 ? row('reflection', clip(text, 140)) : more(clip(text, 140)));
      });
    }
    episode.patterns.forEach((pattern, index) => {
      lines.push(
        index === 0 ? row('patterns', describePattern(pattern)) : more(describePattern(pattern)),
      );
    });
    lines.push('');
  }

  lines.push('Explore further (from the repository root; the episodic CLI reads the same files)');
  for (const command of report.commands) {
    lines.push(`  # ${command.what}`);
    lines.push(`  ${command.command}`);
  }
  lines.push('');
  lines.push(...renderChecks(report.checks));
  return lines;
}
