import type { TaskEpisode, TaskTimeline } from '@episodic/core';
import type { TurnOutcome } from './agent/demo-agent.js';
import type { ManifestSummary } from './agent/manifest-summary.js';
import type { ExploreCommand } from './explore-commands.js';
import type { TypeCounts } from './ledger-index.js';
import type { TimelineEntry } from './timeline.js';

/** One check the demo runs on its own results. */
export interface CheckResult {
  /** A stable name, e.g. `tool-calls-paired`. */
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  /** What was checked and found; for a failure, what is wrong and where. */
  readonly detail: string;
}

/** A turn as the report keeps it. */
export interface TurnSummary {
  /** `T1`, `T2`, … in the order the demo ran them. */
  readonly label: string;
  /** What the turn demonstrates. */
  readonly shows: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly runId: string;
  /** `main` for this process, `child` for the resumed process. */
  readonly process: 'main' | 'child';
  readonly pid: number;
  readonly input: string;
  readonly outcome: TurnOutcome;
  readonly stopReason: string | null;
  readonly answer: string | null;
  readonly error: string | null;
  readonly toolCalls: ReadonlyArray<{
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
    readonly outputChars: number | null;
    readonly isError: boolean;
    readonly latencyMs: number;
  }>;
  readonly pendingCalls: ReadonlyArray<{
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
  }>;
  /** One per model call: the seq written to the run file and what the model input held. */
  readonly modelCalls: ReadonlyArray<{
    readonly seq: number;
    readonly invokeSeq: number;
    readonly round: number;
    readonly inputTokens: number | null;
    readonly manifest: ManifestSummary;
  }>;
  readonly revisionBefore: number;
  readonly revisionAfter: number;
  readonly episodes: { readonly fromId: number; readonly toId: number } | null;
  readonly interruptBoundaryId: number | null;
  readonly compaction: {
    readonly checkpointId: number;
    readonly covers: { readonly fromId: number; readonly toId: number };
    readonly artifactKey: string | null;
    readonly reason: string;
    readonly summary: string;
  } | null;
  readonly compactionError: string | null;
  readonly resumedFromInvokeSeq: number;
}

/** Everything the demo did and found; `--json` prints it, and `verify` checks it again. */
export interface DemoReport {
  readonly kind: 'episodic.demo';
  readonly schema_version: 1;
  /** True when every check passed (or was skipped). */
  ok: boolean;
  readonly model: string;
  readonly offline: boolean;
  readonly pid: number;
  readonly started_at: string;
  finished_at: string;
  readonly home: { readonly path: string; readonly fresh: boolean; readonly isDefault: boolean };
  paths: {
    readonly workspace: string;
    readonly database: string;
    readonly runsFolder: string;
    readonly snapshotsFolder: string;
    readonly toolOutputsFolder: string;
    readonly report: string;
    runFiles: Array<{ readonly runId: string; readonly path: string; readonly label: string }>;
    snapshots: Array<{ readonly sessionId: string; readonly path: string }>;
  };
  readonly session: { readonly id: string; revision: number; episodes: number };
  fork: {
    readonly id: string;
    readonly forkedAtEpisode: number;
    revision: number;
    episodes: number;
  } | null;
  readonly turns: TurnSummary[];
  readonly scenarios: {
    truncation: {
      readonly turn: string;
      readonly runId: string;
      readonly callId: string;
      readonly path: string;
      readonly fileChars: number;
      readonly viewChars: number;
      readonly omittedChars: number;
      readonly episodeId: number | null;
      readonly manifestNote: string | null;
      readonly cacheFile: string | null;
    } | null;
    danglingCall: {
      readonly turn: string;
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
      readonly healedIn: string | null;
      readonly manifestNote: string | null;
    } | null;
    interrupt: {
      readonly turn: string;
      readonly boundaryId: number | null;
      readonly reason: string | null;
    } | null;
    failedTurn: {
      readonly turn: string;
      readonly runId: string;
      readonly turnId: string;
      readonly error: string | null;
      readonly snapshotSha256Before: string;
      readonly snapshotSha256After: string;
      readonly revisionBefore: number;
      readonly revisionAfter: number;
    } | null;
    budgetRestart: {
      readonly turn: string;
      readonly round: number;
      readonly seq: number;
      readonly startId: number | null;
      readonly start: string;
      readonly limit: number;
      readonly lastInputTokens: number | null;
      readonly droppedByReason: Readonly<Record<string, number>>;
      readonly droppedBudgetIds: readonly number[];
    } | null;
    compaction: {
      readonly turn: string;
      readonly checkpointId: number;
      readonly covers: { readonly fromId: number; readonly toId: number };
      readonly artifactKey: string | null;
      readonly reason: string;
      readonly nextTurn: string | null;
      readonly nextStartId: number | null;
    } | null;
    resume: {
      readonly turn: string;
      readonly runId: string;
      readonly pid: number;
      readonly parentPid: number;
      readonly snapshotRevision: number;
      readonly snapshotInvokeSeq: number;
      readonly firstSeq: number | null;
      readonly episodesLoaded: number;
      readonly answer: string | null;
      readonly command: readonly string[];
    } | null;
    fork: {
      readonly turn: string;
      readonly forkId: string;
      readonly forkedAtEpisode: number;
    } | null;
    /** The turn run through the Vercel AI SDK (`--ai-sdk`), or null. */
    aiSdk: {
      readonly turn: string;
      readonly runId: string;
      readonly turnId: string;
      /** The turn after it, run by the session itself: its input must hold this turn. */
      readonly nextTurn: string | null;
    } | null;
  };
  timeline: TimelineEntry[];
  ledger: {
    readonly scope: string;
    readonly database: string;
    readonly byType: TypeCounts;
    readonly projected: TypeCounts;
    readonly fromEpisodes: number;
    readonly fromRuns: number;
    readonly appended: number;
    readonly duplicates: number;
    readonly otherScope: { readonly scope: string; readonly events: number };
  } | null;
  task: {
    readonly episodeId: string;
    readonly scope: string;
    readonly serverCommand: readonly string[];
    readonly calls: Readonly<Record<string, number>>;
    readonly episode: TaskEpisode;
    readonly timeline: TaskTimeline;
  } | null;
  commands: ExploreCommand[];
  checks: CheckResult[];
}
