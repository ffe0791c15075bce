// `@episodic/mcp/stdio`: serves the Episodic tools over stdio (Node only).
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { createEpisodicMcpServer } from './episodic-mcp-server.js';
import {
  createEpisodicTools,
  type EpisodicTools,
  type EpisodicToolsOptions,
} from './episodic-tools.js';
import { type EpisodicMcpLogger, formatLogEntry } from './logger.js';

/** Options of `serveEpisodicStdio`. */
export interface ServeEpisodicStdioOptions extends EpisodicToolsOptions {
  /** Where JSON-RPC requests come from. @default process.stdin */
  input?: Readable | undefined;
  /** Where JSON-RPC responses go: nothing else is ever written to it. @default process.stdout */
  output?: Writable | undefined;
  /** Where log lines go. @default one line per entry on process.stderr */
  logger?: EpisodicMcpLogger | undefined;
}

/** A running stdio server. */
export interface EpisodicStdioServer {
  /** The tools being served. */
  readonly tools: EpisodicTools;
  /** Closes the connection (the stores are the caller's to close). */
  close(): Promise<void>;
}

/** A logger that writes one line per entry to stderr, never to stdout. */
export function createStderrLogger(): EpisodicMcpLogger {
  return (entry) => {
    process.stderr.write(`${formatLogEntry(entry)}\n`);
  };
}

/**
 * Serves the Episodic tools over stdio: stdout carries only JSON-RPC messages, logs go to the
 * logger (stderr by default). Given `stores` as a function, the stores are opened right after the
 * client's `initialize` (or on the first call), so the handshake never waits for the database.
 *
 * ```ts
 * import { serveEpisodicStdio } from '@episodic/mcp/stdio';
 * import { openEpisodicStores } from '@episodic/mcp/stores';
 *
 * const stores = await openEpisodicStores();
 * serveEpisodicStdio({ stores, scope: 'my-project' });
 * ```
 */
export function serveEpisodicStdio(options: ServeEpisodicStdioOptions): EpisodicStdioServer {
  const { input, output, ...toolOptions } = options;
  const logger = options.logger ?? createStderrLogger();
  const tools = createEpisodicTools({ ...toolOptions, logger });
  const handle = serveStdio(
    () => {
      const server = createEpisodicMcpServer({ tools });
      server.server.oninitialized = () => {
        tools.ready().catch((error: unknown) => {
          logger({ level: 'error', message: 'could not open the stores', error });
        });
      };
      return server;
    },
    {
      transport: new StdioServerTransport(input ?? process.stdin, output ?? process.stdout),
      onerror: (error) => logger({ level: 'warn', message: 'stdio transport error', error }),
    },
  );
  return { tools, close: () => handle.close() };
}
