// Public exports of this area, listed by name.
export type {
  ReplayAgentEvent,
  ReplayEvent,
  ReplayResult,
  ReplayRunOptions,
  ReplaySessionOptions,
  ReplayUserMessage,
  SessionReplayResult,
} from './replay.js';
export {
  DEFAULT_REPLAY_MAX_EVENTS,
  DEFAULT_REPLAY_MAX_RUNS,
  replayRun,
  replaySession,
} from './replay.js';
export type { EnvironmentChange, PlanResumeOptions, ResumePlan } from './resume.js';
export { describeEnvironmentChanges, diffRuntime, planResume, snapshotRuntime } from './resume.js';
export type { RunDigest, RunDigester } from './run-digest.js';
export { createRunDigester, digestRun, RUN_TITLE_LENGTH, runTitle } from './run-digest.js';
export type {
  LlmRequestInput,
  LlmResponseOutput,
  RunHeaderFields,
  RunInput,
  RunRecorder,
  RunRecorderOptions,
  RunRecorderState,
  RunStartOptions,
  RunStartReceipt,
  ToolOutputInput,
} from './run-recorder.js';
export { createRunRecorder } from './run-recorder.js';
export type {
  CollectExpiredRunsOptions,
  CollectExpiredRunsResult,
  RunRetentionCandidate,
  RunRetentionPlan,
  RunRetentionPolicy,
} from './run-retention.js';
export { collectExpiredRuns, planRunRetention } from './run-retention.js';
