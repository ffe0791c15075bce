import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSqliteStore } from '@episodic/store-sqlite';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoHomeLayout, snapshotPath } from '../src/demo-home.js';
import type { CheckResult, DemoReport } from '../src/report.js';
import { runVerify } from '../src/verify-command.js';
import { runDemo, temporaryDirectory, temporaryHome } from './run-built-demo.js';

// The demo's checks must fail, with a message naming the check and the damaged file, when its
// results are broken. One real demo run is copied and damaged in a different way per test.

let pristine: string;
let report: DemoReport;

beforeAll(async () => {
  pristine = temporaryHome();
  const result = await runDemo(['--json', '--home', pristine]);
  expect(result.status, result.stderr).toBe(0);
  report = JSON.parse(result.stdout) as DemoReport;
});

function copyHome(): string {
  const copy = join(temporaryDirectory('episodic-demo-broken-'), 'home');
  cpSync(pristine, copy, { recursive: true });
  return copy;
}

function runFileOf(home: string, runId: string): string {
  const entry = report.paths.runFiles.find((file) => file.runId === runId);
  if (entry === undefined) throw new Error(`no run file for ${runId}`);
  return join(home, entry.path.slice(report.home.path.length));
}

const failed = (checks: readonly CheckResult[]) =>
  checks.filter((check) => check.status === 'failed');

describe('the demo checks its own results', () => {
  it('passes on an intact copy', async () => {
    const result = await runVerify(copyHome());
    expect(failed(result.checks)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('names the run file and line when a run file is damaged', async () => {
    const home = copyHome();
    const turn = report.turns.find((candidate) => candidate.label === 'T5');
    const file = runFileOf(home, turn?.runId ?? '');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[3] = '{"type":"llm.request","run_id": tor';
    writeFileSync(file, lines.join('\n'));
    const result = await runVerify(home);
    expect(result.ok).toBe(false);
    const runFiles = result.checks.find((check) => check.name === 'run-files');
    expect(runFiles?.status).toBe('failed');
    expect(runFiles?.detail).toContain(file);
    expect(runFiles?.detail).toContain('line 4');
  });

  it('fails the snapshot check when a snapshot is not JSON', async () => {
    const home = copyHome();
    const path = snapshotPath(demoHomeLayout(home), report.session.id);
    writeFileSync(path, '{"schema_version": 1, "session_id": ');
    const result = await runVerify(home);
    const snapshots = result.checks.find((check) => check.name === 'snapshots');
    expect(snapshots?.status).toBe('failed');
    expect(snapshots?.detail).toContain(path);
  });

  it('fails when the full tool output in the cache is cut short', async () => {
    const home = copyHome();
    const cache = join(home, 'cache', 'tool-output');
    const callId = report.scenarios.truncation?.callId ?? '';
    const file = readdirSync(cache).find((name) => name.startsWith(callId));
    expect(file).toBeDefined();
    const path = join(cache, file as string);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 8_000));
    const result = await runVerify(home);
    expect(failed(result.checks).map((check) => check.name)).toEqual([
      'run-files',
      'long-output-complete-on-disk',
    ]);
    expect(failed(result.checks)[1]?.detail).toContain(`${callId}.txt`);
  });

  it('fails the ledger check, naming the type, when events are missing', async () => {
    const home = copyHome();
    const store = createSqliteStore({ filename: join(home, 'episodic.db') });
    store.database
      .prepare(
        "DELETE FROM episodic_events WHERE id IN (SELECT id FROM episodic_events WHERE type = 'tool.call' LIMIT 2)",
      )
      .run();
    await store.close();
    const result = await runVerify(home);
    const ledger = result.checks.find((check) => check.name === 'ledger-counts-match');
    expect(ledger?.status).toBe('failed');
    expect(ledger?.detail).toMatch(/tool\.call \d+ \(expected \d+\)/);
  });

  it('fails when the evidence says the failed turn changed the snapshot', async () => {
    const home = copyHome();
    const saved = JSON.parse(readFileSync(join(home, 'demo-report.json'), 'utf8')) as DemoReport;
    const failedTurn = saved.scenarios.failedTurn;
    if (failedTurn === null) throw new Error('no failed turn in the report');
    saved.scenarios.failedTurn = { ...failedTurn, snapshotSha256After: '0'.repeat(64) };
    writeFileSync(join(home, 'demo-report.json'), JSON.stringify(saved));
    const result = await runVerify(home);
    expect(failed(result.checks).map((check) => check.name)).toEqual([
      'failed-turn-changed-nothing',
    ]);
  });

  it('exits 1 from the command line with a message naming the failed check', async () => {
    const home = copyHome();
    const file = runFileOf(home, report.turns[0]?.runId ?? '');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\u0000\u0000\u0000 not a record\n`);
    const result = await runDemo(['verify', '--home', home]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^demo check failed: run-files: run file .+ has 1 damaged line/m);
    expect(result.stdout).toContain('✗ run-files');
  });
});
