import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { openDemoAgent } from './agent/demo-agent.js';
import { existingDemoHome } from './demo-home.js';
import type { DemoModel } from './models/demo-model.js';
import type { TurnSummary } from './report.js';
import { renderTurn, summarizeTurn } from './turn-summary.js';
import { UsageError } from './usage-error.js';

/** What a resumed process reports (as JSON with `--json`). */
export interface ResumeResult {
  readonly kind: 'episodic.demo.resume';
  readonly pid: number;
  readonly sessionId: string;
  /** The snapshot the process started from. */
  readonly snapshotRevision: number;
  readonly snapshotInvokeSeq: number;
  readonly episodesLoaded: number;
  readonly turn: TurnSummary;
}

/** Options of `runResume`. */
export interface ResumeOptions {
  readonly home: string;
  readonly sessionId: string;
  readonly input: string;
  readonly model: DemoModel;
}

/**
 * Continues a stored session in this (fresh) process: loads its snapshot, runs one turn, records
 * the turn as a new run whose invocation numbers continue the snapshot's `invoke_seq`.
 */
export async function runResume(options: ResumeOptions): Promise<ResumeResult> {
  const layout = existingDemoHome(options.home);
  const store = createFsStore({ root: layout.home, durability: 'run' });
  const sqlite = createSqliteStore({ filename: layout.database });
  try {
    const snapshot = await store.sessions.load(options.sessionId);
    if (snapshot === null) {
      throw new UsageError(
        `Session ${options.sessionId} has no snapshot in ${layout.snapshots}. "pnpm demo" prints the session id; pass it with --session.`,
      );
    }
    const agent = await openDemoAgent({
      model: options.model,
      store,
      workspace: layout.workspace,
      sessionId: options.sessionId,
      resume: true,
      artifacts: sqlite.artifacts,
    });
    const episodesLoaded = agent.session.log.size;
    const record = await agent.turn(options.input);
    return {
      kind: 'episodic.demo.resume',
      pid: process.pid,
      sessionId: agent.session.id,
      snapshotRevision: snapshot.revision ?? 0,
      snapshotInvokeSeq: snapshot.invoke_seq ?? 0,
      episodesLoaded,
      turn: summarizeTurn(
        record,
        'T+',
        'a turn in a fresh process, resumed from the snapshot',
        'child',
      ),
    };
  } finally {
    await sqlite.close();
    await store.close();
  }
}

/** The resumed turn as text. */
export function renderResume(result: ResumeResult): string[] {
  return [
    `Resumed session ${result.sessionId} in process ${result.pid}: ${result.episodesLoaded} episodes from snapshot revision ${result.snapshotRevision} (invoke_seq ${result.snapshotInvokeSeq}).`,
    ...renderTurn(result.turn),
  ];
}
