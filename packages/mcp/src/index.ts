// The runtime-neutral entry: the tools, the server and the scoped views, with stores passed in.
// Node wiring lives at `@episodic/mcp/stdio`, `@episodic/mcp/http` and `@episodic/mcp/run`;
// opening a home is `@episodic/home`.
export type { EpisodicMcpServerOptions } from './episodic-mcp-server.js';
export { createEpisodicMcpServer, EPISODIC_MCP_INSTRUCTIONS } from './episodic-mcp-server.js';
export type {
  EpisodicMcpStores,
  EpisodicToolResult,
  EpisodicTools,
  EpisodicToolsOptions,
} from './episodic-tools.js';
export { createEpisodicTools } from './episodic-tools.js';
export type { EpisodicMcpLogEntry, EpisodicMcpLogger } from './logger.js';
export { toPortableJsonSchema } from './portable-json-schema.js';
export { MAX_TOOL_TEXT, sanitizeText } from './sanitize-text.js';
export { BOUND_SCOPE_MAX_LENGTH, bindScope, DEFAULT_SCOPE } from './scope/bound-scope.js';
export type { ScopedArtifactStore } from './scope/scoped-artifact-store.js';
export {
  artifactKeyPrefix,
  createScopedArtifactStore,
  scopeOfArtifactKey,
} from './scope/scoped-artifact-store.js';
export type {
  ListVisibleOptions,
  ScopedRunView,
  ScopedRunViewOptions,
  VisibleRun,
} from './scope/scoped-run-store.js';
export { createScopedRunView, RUN_SCOPE_FIELD, scopeOfRun } from './scope/scoped-run-store.js';
export type { ToolErrorBody, ToolErrorCode } from './tool-error.js';
export { TOOL_ERROR_CODES } from './tool-error.js';
export type {
  EpisodicToolAnnotations,
  EpisodicToolDefinition,
  EpisodicToolName,
} from './tools/tool-catalog.js';
export { EPISODIC_TOOL_DEFINITIONS, EPISODIC_TOOL_NAMES } from './tools/tool-catalog.js';
export { EPISODIC_TOOL_OUTPUT_SCHEMAS, toolErrorBodySchema } from './tools/tool-output-schemas.js';
export { VERSION } from './version.js';
