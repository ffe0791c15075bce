/** One log entry of the server. */
export interface EpisodicMcpLogEntry {
  /** How important the entry is. */
  level: 'debug' | 'info' | 'warn' | 'error';
  /** What happened, in one line. */
  message: string;
  /** The error behind the entry, if any (its details may name files: logs are for the operator). */
  error?: unknown;
}

/**
 * Receives the server's log entries. Logs are for the operator, never for the client: over stdio
 * they must go to stderr (stdout carries only JSON-RPC).
 */
export type EpisodicMcpLogger = (entry: EpisodicMcpLogEntry) => void;

/** Renders an entry as one line, with the error's code, message and details when there is one. */
export function formatLogEntry(entry: EpisodicMcpLogEntry): string {
  let line = `episodic-mcp ${entry.level}: ${entry.message}`;
  const error = entry.error as
    | { code?: unknown; message?: unknown; details?: unknown; stack?: unknown }
    | undefined;
  if (error !== undefined && error !== null) {
    if (typeof error.code === 'string') line += ` [${error.code}]`;
    if (typeof error.message === 'string') line += `: ${error.message}`;
    else if (typeof error !== 'object') line += `: ${String(error)}`;
  }
  return line.replace(/[\r\n]+/g, ' ');
}
