import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../src/checks.js';
import type { DemoReport } from '../src/report.js';
import { CLI_MAIN, type ProcessResult, runDemo, runNode, temporaryHome } from './run-built-demo.js';

interface LedgerRow {
  readonly type: string;
  readonly session_id?: string;
  readonly agent_id?: string;
  readonly refs?: Record<string, string | number>;
}

// The offline demo, end to end: the built binary, its MCP server and its resumed child process,
// each run in a temporary home.

describe('pnpm demo --json (offline)', () => {
  const home = temporaryHome();
  let result: ProcessResult;
  let report: DemoReport;

  beforeAll(async () => {
    result = await runDemo(['--json', '--home', home]);
    report = JSON.parse(result.stdout) as DemoReport;
  });

  it('exits 0 and prints exactly one JSON document on stdout', () => {
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim().startsWith('{')).toBe(true);
    expect(report.kind).toBe('episodic.demo');
    expect(report.ok).toBe(true);
  });

  it('passes every check, none skipped', () => {
    expect(report.checks.map((check) => check.name)).toEqual(CHECK_NAMES);
    for (const check of report.checks)
      expect(check, check.detail).toMatchObject({ status: 'passed' });
  });

  it('runs the whole script: step limit, interrupt, failure, resume in another process, fork', () => {
    const outcomes = Object.fromEntries(report.turns.map((turn) => [turn.label, turn.outcome]));
    expect(outcomes).toEqual({
      T1: 'completed',
      T2: 'completed',
      T3: 'step-limit',
      T4: 'interrupted',
      T5: 'completed',
      T6: 'completed',
      T7: 'failed',
      T8: 'completed',
      T9: 'completed',
    });
    const resumed = report.turns.find((turn) => turn.label === 'T8');
    expect(resumed?.process).toBe('child');
    expect(resumed?.pid).not.toBe(report.pid);
    expect(report.scenarios.resume?.answer).toContain('367.90');
    expect(report.turns.find((turn) => turn.label === 'T9')?.sessionId).toBe(report.fork?.id);
    expect(report.turns.find((turn) => turn.label === 'T9')?.answer).toContain('331.11');
  });

  it('keeps the long tool output whole on disk and truncated in the model view', () => {
    const truncation = report.scenarios.truncation;
    expect(truncation).not.toBeNull();
    expect(truncation?.fileChars).toBeGreaterThan(8_000);
    expect(truncation?.omittedChars).toBe((truncation?.fileChars ?? 0) - 8_000);
    expect(truncation?.manifestNote).toMatch(/characters in the middle omitted/);
    expect(readFileSync(truncation?.cacheFile ?? '', 'utf8')).toHaveLength(
      truncation?.fileChars ?? -1,
    );
  });

  it('shows the budget restart in the manifest and starts the next turn at the checkpoint', () => {
    const restart = report.scenarios.budgetRestart;
    expect(restart?.start).toBe('budget-boundary');
    expect(restart?.startId).toBe(report.scenarios.interrupt?.boundaryId);
    expect(restart?.droppedBudgetIds.length).toBeGreaterThan(0);
    expect(restart?.lastInputTokens).toBeGreaterThan(restart?.limit ?? Number.POSITIVE_INFINITY);
    expect(report.scenarios.compaction?.nextStartId).toBe(
      report.scenarios.compaction?.checkpointId,
    );
  });

  it('proves the failed turn changed nothing', () => {
    const failed = report.scenarios.failedTurn;
    expect(failed?.snapshotSha256Before).toMatch(/^[0-9a-f]{64}$/);
    expect(failed?.snapshotSha256After).toBe(failed?.snapshotSha256Before);
    expect(failed?.revisionAfter).toBe(failed?.revisionBefore);
  });

  it('writes run files, snapshots and the database where it says', () => {
    expect(report.paths.runFiles.length).toBe(report.turns.length + 1);
    for (const file of report.paths.runFiles) expect(existsSync(file.path), file.path).toBe(true);
    for (const snapshot of report.paths.snapshots) expect(existsSync(snapshot.path)).toBe(true);
    expect(existsSync(report.paths.database)).toBe(true);
    expect(JSON.parse(readFileSync(report.paths.report, 'utf8')).checks).toEqual(report.checks);
  });

  it('indexes the ledger per type exactly as projected, and nothing in another scope', () => {
    expect(report.ledger?.byType).toEqual(report.ledger?.projected);
    expect(report.ledger?.otherScope.events).toBe(0);
    expect(report.ledger?.appended).toBe(
      Object.values(report.ledger?.byType ?? {}).reduce((sum, count) => sum + count, 0),
    );
  });

  it('indexes each event once: no message, call or result twice (run, session and fork)', async () => {
    const query = await runNode(CLI_MAIN, [
      'episodes',
      'query',
      '--scope',
      'episodic-demo',
      '--home',
      home,
      '--limit',
      '500',
      '--json',
    ]);
    expect(query.status, query.stderr).toBe(0);
    const events = (JSON.parse(query.stdout) as { events: LedgerRow[] }).events;
    expect(events.length).toBe(report.ledger?.appended);
    const calls = events.filter(
      (event) => event.type === 'tool.call' || event.type === 'tool.result',
    );
    expect(calls.length).toBeGreaterThan(0);
    const keys = calls.map((event) => `${event.type} ${event.refs?.call_id}`);
    expect(new Set(keys).size).toBe(keys.length);
    const inputs = events
      .filter((event) => event.type === 'conversation.user')
      .map((event) => event.refs?.run_id);
    expect(new Set(inputs).size).toBe(inputs.length);
    // The fork's own turn is indexed under the fork; what it inherited is not indexed again.
    const forkEvents = events.filter((event) => event.session_id === report.fork?.id);
    expect(forkEvents.length).toBeGreaterThan(0);
    expect(forkEvents.every((event) => event.agent_id === 'demo-runs')).toBe(true);
  });

  it('completes the task episode over MCP with a real reward, reflection and patterns', () => {
    const task = report.task;
    expect(task?.calls.create_episode).toBe(1);
    expect(task?.calls.complete_episode).toBe(1);
    expect(task?.episode.steps).toHaveLength(task?.calls.add_episode_step ?? -1);
    expect(task?.episode.outcome?.type).toBe('partial_success');
    expect(task?.episode.reward_score).toBeGreaterThan(0);
    expect(task?.episode.reward_score).toBeLessThan(1);
    expect(task?.episode.reflection?.improvements.length).toBeGreaterThan(0);
    expect(new Set(task?.episode.patterns.map((pattern) => pattern.type))).toEqual(
      new Set(['tool_sequence', 'decision_point', 'error_recovery', 'context']),
    );
  });

  it('prints episodic commands that work as printed', async () => {
    expect(report.commands.length).toBeGreaterThan(5);
    for (const command of report.commands) {
      expect(command.command.startsWith('pnpm episodic ')).toBe(true);
      const run = await runNode(CLI_MAIN, command.argv);
      expect(run.status, `${command.command}\n${run.stderr}`).toBe(0);
    }
  });

  it('verify checks the files again and passes while they are intact', async () => {
    const verify = await runDemo(['verify', '--home', home, '--json']);
    expect(verify.status, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout).ok).toBe(true);
  });
});

describe('pnpm demo (text)', () => {
  it('prints each turn, where everything is, the timeline, ledger, task, commands and checks', async () => {
    const home = temporaryHome();
    const result = await runDemo(['--home', home]);
    expect(result.status, result.stderr).toBe(0);
    const text = result.stdout;
    expect(text).toContain(`Home: ${home}`);
    expect(text).toContain('recreated fresh for this run');
    for (const label of ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9']) {
      expect(text).toMatch(new RegExp(`^${label} `, 'm'));
    }
    for (const section of [
      'Where everything is',
      'What the model saw, and why',
      'Timeline of session',
      'Ledger ',
      'Task episode ',
      'Explore further',
      `Checks: ${CHECK_NAMES.length} passed`,
    ]) {
      expect(text).toContain(section);
    }
    expect(text).toContain('[fresh process]');
    expect(text).toContain('pnpm episodic sessions show');
  });
});
