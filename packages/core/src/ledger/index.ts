// Public exports of this area, listed by name.
export { canonicalJson } from './canonical-json.js';
export type { ContentFinding, ContentGuardOptions, GuardResult } from './content-guard.js';
export {
  contentRejectedError,
  guardJsonValue,
  placeholderFor,
  redactText,
  scanText,
} from './content-guard.js';
export type { ContentRule } from './content-rules.js';
export { DEFAULT_CONTENT_RULES } from './content-rules.js';
export type { LedgerRow, NewLedgerRow } from './ledger-row.js';
export {
  ledgerRowFromSql,
  newLedgerRowValues,
  rowToLedgerEvent,
  type SqlLedgerRow,
  storedLedgerRow,
} from './ledger-row.js';
export type {
  ContentGuardPolicy,
  LedgerCaps,
  PreparedLedgerEvent,
  PrepareEventCall,
  PrepareEventContext,
} from './prepare-event.js';
export {
  DEFAULT_LEDGER_CAPS,
  isSameLedgerEvent,
  ledgerCapsSchema,
  prepareLedgerEvent,
  resolveLedgerCaps,
} from './prepare-event.js';
export type { EpisodeProjectionOptions, ProjectionOptions } from './projection.js';
export { projectEpisodes, projectRunRecords } from './projection.js';
export {
  DAY_MS,
  DEFAULT_RETENTION_POLICY,
  FOREVER_WORDS,
  isExpired,
  parseRetentionDays,
  resolveRetentionPolicy,
  retentionCutoffs,
} from './retention.js';
export type { ResolvedScope } from './scope.js';
export {
  GLOBAL_SCOPE,
  normalizeScope,
  requireScope,
  resolveScopeSelector,
  SCOPE_MAX_LENGTH,
} from './scope.js';
export { stableHash } from './stable-hash.js';
export { truncateUtf8 } from './utf8.js';
