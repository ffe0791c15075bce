import { readFileSync } from 'node:fs';
import { createTaskLifecycle } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { runChecks } from './checks.js';
import { existingDemoHome } from './demo-home.js';
import type { CheckResult, DemoReport } from './report.js';
import { UsageError } from './usage-error.js';

/** What `verify` found. */
export interface VerifyResult {
  readonly kind: 'episodic.demo.verify';
  readonly ok: boolean;
  readonly home: string;
  readonly checks: CheckResult[];
}

/**
 * Runs the demo's checks again on the files of its last run (the report saved in the home names
 * the sessions, runs and evidence). The MCP part of the scope check needs the running server and
 * is checked on the ledger alone here.
 */
export async function runVerify(home: string): Promise<VerifyResult> {
  const layout = existingDemoHome(home);
  let report: DemoReport;
  try {
    report = JSON.parse(readFileSync(layout.report, 'utf8')) as DemoReport;
  } catch (error) {
    throw new UsageError(
      `Cannot read the demo report ${layout.report} (${error instanceof Error ? error.message : String(error)}). Run "pnpm demo" again with the same --home.`,
    );
  }
  if (report.kind !== 'episodic.demo') {
    throw new UsageError(
      `${layout.report} is not a demo report. Run "pnpm demo" again with the same --home.`,
    );
  }
  const store = createFsStore({ root: layout.home, durability: 'run' });
  const sqlite = createSqliteStore({ filename: layout.database });
  try {
    const tasks = createTaskLifecycle({ runs: store.runs, artifacts: sqlite.artifacts });
    const checks = await runChecks({
      report,
      layout,
      store,
      ledger: sqlite.ledger,
      readTask: () => tasks.getTask({ episode_id: report.task?.episodeId ?? '' }),
    });
    return {
      kind: 'episodic.demo.verify',
      ok: checks.every((check) => check.status !== 'failed'),
      home: layout.home,
      checks,
    };
  } finally {
    await sqlite.close();
    await store.close();
  }
}
