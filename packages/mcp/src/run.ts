// `@episodic/mcp/run`: start the server as the `episodic-mcp` bin does (and `episodic mcp`).

// The types those signatures name, type-only (they are the main entry's).
export type { EpisodicMcpLogEntry, EpisodicMcpLogger } from './logger.js';
export type { ParsedMcpServerArguments } from './run/parse-arguments.js';
export { MCP_SERVER_USAGE, parseMcpServerArguments } from './run/parse-arguments.js';
export type { RunMcpServerOptions, RunningMcpServer } from './run/run-mcp-server.js';
export { runMcpServer } from './run/run-mcp-server.js';
