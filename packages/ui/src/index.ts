export type {
  ApiError,
  ArtifactPageResponse,
  LedgerPageResponse,
  ModelInputsResponse,
  OverviewResponse,
  RunListResponse,
  RunViewResponse,
  SessionListResponse,
  SessionTimelineResponse,
  TaskListResponse,
  TaskViewResponse,
} from './api/api-types.js';
export type {
  RunTraceResponse,
  SessionTraceResponse,
  SessionTraceTurn,
  TraceSpan,
  TraceSpanKind,
  TraceTokens,
  TraceTotals,
  TraceTurnRef,
} from './api/trace-types.js';
export type { UiServer, UiServerOptions } from './server/start-ui-server.js';
export { startUiServer } from './server/start-ui-server.js';
export type { UiSqliteDatabase, UiStores } from './stores/ui-stores.js';
export { VERSION } from './version.js';
