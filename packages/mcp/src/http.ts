// `@episodic/mcp/http`: serves the Episodic tools over Streamable HTTP (Node only).

// The types those signatures name, type-only (they are the main entry's).
export type { EpisodicMcpStores, EpisodicToolsOptions } from './episodic-tools.js';
export type { EpisodicHttpToken } from './http/bearer-tokens.js';
export {
  httpTokenSchema,
  MIN_TOKEN_LENGTH,
  readTokensFile,
  tokenDigest,
  tokensFileSchema,
} from './http/bearer-tokens.js';
export type { EpisodicHttpServer, EpisodicHttpServerOptions } from './http/episodic-http-server.js';
export {
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  startEpisodicHttpServer,
} from './http/episodic-http-server.js';
export type { EpisodicMcpLogEntry, EpisodicMcpLogger } from './logger.js';
