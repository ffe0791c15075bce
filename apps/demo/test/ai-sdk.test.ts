import { beforeAll, describe, expect, it } from 'vitest';
import { AI_SDK_CHECK, CHECK_NAMES } from '../src/checks.js';
import type { DemoReport } from '../src/report.js';
import { CLI_MAIN, type ProcessResult, runDemo, runNode, temporaryHome } from './run-built-demo.js';

// `pnpm demo --ai-sdk`: T1 runs through the Vercel AI SDK (generateText, the AI SDK's mock model
// answering with the built-in one, the model wrapped by @episodic/ai-sdk's middleware), the rest of
// the script through the session; the built demo, its checks and the CLI on what it wrote.

describe('pnpm demo --ai-sdk --json (offline)', () => {
  const home = temporaryHome();
  let result: ProcessResult;
  let report: DemoReport;

  beforeAll(async () => {
    result = await runDemo(['--ai-sdk', '--json', '--home', home], { timeoutMs: 300_000 });
    report = JSON.parse(result.stdout) as DemoReport;
  }, 300_000);

  it('passes every check, and the AI SDK turn check after them', () => {
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.map((check) => check.name)).toEqual([...CHECK_NAMES, AI_SDK_CHECK]);
    for (const check of report.checks)
      expect(check, check.detail).toMatchObject({ status: 'passed' });
  });

  it('runs T1 through the AI SDK and the rest of the script as usual', () => {
    expect(report.scenarios.aiSdk).toMatchObject({ turn: 'T1', nextTurn: 'T2' });
    const first = report.turns[0];
    expect(first).toMatchObject({
      label: 'T1',
      outcome: 'completed',
      runId: report.scenarios.aiSdk?.runId,
    });
    expect(first?.toolCalls.map((call) => call.name)).toEqual(['list_files']);
    expect(first?.answer).toContain('5 files');
    expect(report.turns.map((turn) => turn.outcome)).toEqual([
      'completed',
      'completed',
      'step-limit',
      'interrupted',
      'completed',
      'completed',
      'failed',
      'completed',
      'completed',
    ]);
  });

  it('prints a runs show command for the AI SDK turn that shows every step', async () => {
    const command = report.commands.find((entry) =>
      entry.argv.includes(report.scenarios.aiSdk?.runId ?? '-'),
    );
    expect(command?.argv.slice(0, 2)).toEqual(['runs', 'show']);
    const shown = await runNode(CLI_MAIN, command?.argv ?? []);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/status\s+completed\n[\s\S]*ended\s+\d{4}-\d{2}-\d{2}/);
    expect(shown.stdout).toMatch(/run\.start\s+What files are in the workspace\?/);
    expect(shown.stdout).toMatch(/llm\.request\s+#1 user: What files are in the workspace\?/);
    expect(shown.stdout).toMatch(/tool\.output\s+list_files/);
    expect(shown.stdout).toMatch(/llm\.response\s+#2 assistant: The workspace has 5 files/);
    expect(shown.stdout).toMatch(/run\.end\s+completed/);
  });

  it('verify runs the AI SDK check again on the files', async () => {
    const verify = await runDemo(['verify', '--home', home, '--json']);
    expect(verify.status, verify.stderr).toBe(0);
    const verified = JSON.parse(verify.stdout) as { ok: boolean; checks: Array<{ name: string }> };
    expect(verified.ok).toBe(true);
    expect(verified.checks.map((check) => check.name)).toContain(AI_SDK_CHECK);
  });
});
