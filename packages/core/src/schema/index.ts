export * from './artifact.js';
export type { BaseMessage, ToolCall } from './base-message.js';
export { baseMessageSchema, toolCallSchema } from './base-message.js';
export type {
  BoundaryEpisode,
  BoundaryPayload,
  BoundaryReason,
  CheckpointPayload,
  Episode,
  EpisodeCommon,
  EpisodeMeta,
  EpisodeSource,
  EpisodeType,
  EpisodicQuery,
  ItemEpisode,
  MetaEpisode,
  MetaPayload,
  NewEpisode,
  NewEpisodeMeta,
  NewEpisodeOf,
  TurnUsage,
} from './episode.js';
export {
  BOUNDARY_REASONS,
  boundaryPayloadSchema,
  checkpointPayloadSchema,
  EPISODE_SOURCES,
  EPISODE_TYPES,
  episodeIdSchema,
  episodeMetaSchema,
  episodeSchema,
  episodicQuerySchema,
  intentPayloadSchema,
  isoTimestampSchema,
  itemPayloadSchema,
  markerPayloadSchema,
  metaPayloadSchema,
  newEpisodeSchema,
  restoredEpisodeSchema,
  turnUsageSchema,
} from './episode.js';
export type {
  FunctionCallItem,
  FunctionCallOutputItem,
  InputItem,
  MessageItem,
  ReasoningItem,
  UnknownItem,
} from './input-item.js';
export {
  functionCallItemSchema,
  functionCallOutputItemSchema,
  inputItemSchema,
  isFunctionCall,
  isFunctionCallOutput,
  KNOWN_ITEM_TYPES,
  messageItemSchema,
  reasoningItemSchema,
} from './input-item.js';
export * from './ledger-event.js';
export type { Metadata, MetadataScalar, MetadataValue } from './metadata.js';
export {
  METADATA_MAX_KEYS,
  metadataScalarSchema,
  metadataSchema,
  metadataValueSchema,
} from './metadata.js';
export * from './run-record.js';
export type { EpisodeRunRange, SessionDelta, SessionState } from './session-state.js';
export {
  SESSION_STATE_SCHEMA_VERSION,
  sessionDeltaSchema,
  sessionStateSchema,
  uuidSchema,
} from './session-state.js';
export * from './task.js';
export {
  runStartTaskSchema,
  TASK_COMPLETED_EVENT,
  TASK_STEP_EVENT,
} from './task-run-records.js';
