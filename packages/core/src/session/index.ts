// Public exports of this area, listed by name.
export type { CommitEpisodesOptions, CommitEpisodesResult } from './commit-episodes.js';
export { commitEpisodes } from './commit-episodes.js';
export type {
  CompactOptions,
  CompactResult,
  CompactSummary,
  SummarizeInput,
} from './compact.js';
export { compact, DEFAULT_CHECKPOINT_TITLE } from './compact.js';
export { createSession } from './create-session.js';
export type { LoadSessionOptions } from './load-session.js';
export { loadSession } from './load-session.js';
export type {
  ModelCall,
  ModelRequest,
  ModelResponse,
  ToolCallContext,
  ToolExecutor,
  ToolResult,
} from './model-call.js';
export type {
  CheckpointHook,
  CheckpointInfo,
  ForkSessionOptions,
  InterruptOptions,
  InterruptResult,
  ReadonlyEpisodic,
  RunTurnOptions,
  Session,
  SessionAssemblyOptions,
  SessionContext,
  SessionOptions,
  SessionRecorder,
  TurnInput,
  TurnResult,
  TurnStopReason,
} from './session-types.js';
