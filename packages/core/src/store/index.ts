export * from './artifact-store.js';
export type { IdKind, IdReference } from './id-prefix.js';
export {
  ID_PREFIX_MIN_LENGTH,
  idPrefixRange,
  parseIdReference,
  resolveIdPrefix,
} from './id-prefix.js';
export * from './ledger-store.js';
export type { MaybePromise } from './maybe-promise.js';
export * from './memory-artifact-store.js';
export * from './memory-ledger.js';
export * from './memory-run-store.js';
export {
  createMemorySessionStore,
  createMemorySessionStoreAdapter,
} from './memory-session-store.js';
export * from './redact-run.js';
export * from './run-store.js';
export * from './scoped-run-store.js';
export type {
  DecodedSessionBase,
  SessionBaseLayout,
  SessionHead,
  SessionSummaryColumns,
} from './session-format.js';
export {
  applyDeltaFields,
  BASE_CLOSE,
  decodeSessionBase,
  decodeSessionDeltas,
  encodeSessionBase,
  encodeSessionDelta,
  MESSAGES_OPEN,
  sessionBaseLayout,
  summaryBaseLine,
  textLines,
} from './session-format.js';
export type {
  SaveSessionOptions,
  SessionAdapterCommit,
  SessionAdapterFold,
  SessionCommit,
  SessionCommitReceipt,
  SessionCommitSizes,
  SessionFoldOption,
  SessionFoldPolicy,
  SessionFoldReceipt,
  SessionRedactReceipt,
  SessionStore,
  SessionStoreAdapter,
  SessionStoreCapabilities,
  SessionStoreOptions,
  SessionSummary,
  StoredSession,
  StoredSessionHead,
  StoredSessionLines,
} from './session-store.js';
export {
  assertExpectedRevision,
  assertReplaceable,
  baseEpisodes,
  compareSessionSummaries,
  createSessionStore,
  revisionOf,
  sessionEpisodes,
  snapshotEpisodes,
  storedSessionRevision,
  summarizeSession,
} from './session-store.js';
export { callAdapter, toStorageError } from './storage-error.js';
export * from './store-set.js';
export type { StoredFieldClass, StoredFieldEntry } from './stored-fields.js';
export { storedFieldInventory } from './stored-fields.js';
export type {
  StoredRedactionCounts,
  StoredRedactionMode,
  StoredRedactionOptions,
  StoredRedactor,
} from './stored-redaction.js';
export {
  createStoredRedactor,
  parseStoredRedactionOptions,
  REDACTED_TEXT,
} from './stored-redaction.js';
