// `@episodic/mcp/stdio`: serves the Episodic tools over stdio (Node only).
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { createEpisodicMcpServer } from './episodic-mcp-server.js';
import {
  createEpisodicTools,
  type EpisodicTools,
  type EpisodicToolsOptions,
} from './episodic-tools.js';
import { createJsonRpcLineFilter } from './json-rpc-line-filter.js';
import { type EpisodicMcpLogger, formatLogEntry } from './logger.js';

// The types this entry's signatures name, type-only (they are the main entry's).
export type {
  EpisodicMcpStores,
  EpisodicToolResult,
  EpisodicTools,
  EpisodicToolsOptions,
} from './episodic-tools.js';
export type { EpisodicMcpLogEntry, EpisodicMcpLogger } from './logger.js';
export type {
  EPISODIC_TOOL_NAMES,
  EpisodicToolAnnotations,
  EpisodicToolDefinition,
  EpisodicToolName,
} from './tools/tool-catalog.js';

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
  /**
   * Stops gracefully: requests that arrive from now on are answered with a "shutting down" error
   * (`-32000`) and not run, the tool calls already running finish and are answered, then the
   * connection closes. The stores are the caller's to close.
   */
  close(): Promise<void>;
}

/** The tools, counting the calls in flight so a shutdown can wait for their answers. */
function trackCalls(tools: EpisodicTools) {
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  const tracked: EpisodicTools = {
    scope: tools.scope,
    definitions: tools.definitions,
    ready: () => tools.ready(),
    async call(name, args) {
      inFlight++;
      try {
        return await tools.call(name, args);
      } finally {
        inFlight--;
        if (inFlight === 0) {
          const release = waiters;
          waiters = [];
          for (const waiter of release) waiter();
        }
      }
    },
  };
  const idle = () =>
    inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
  return { tracked, idle, inFlight: () => inFlight };
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
 * import { openEpisodicStores } from '@episodic/home';
 *
 * const stores = await openEpisodicStores();
 * serveEpisodicStdio({ stores, scope: 'my-project' });
 * ```
 */
export function serveEpisodicStdio(options: ServeEpisodicStdioOptions): EpisodicStdioServer {
  const { input, output, ...toolOptions } = options;
  const logger = options.logger ?? createStderrLogger();
  const tools = createEpisodicTools({ ...toolOptions, logger });
  const { tracked, idle, inFlight } = trackCalls(tools);
  const stdout = output ?? process.stdout;
  // Malformed lines are answered here (-32700 / -32600); the SDK only ever sees JSON-RPC.
  const filter = createJsonRpcLineFilter(input ?? process.stdin, (response) => {
    stdout.write(`${JSON.stringify(response)}\n`);
  });
  const handle = serveStdio(
    () => {
      const server = createEpisodicMcpServer({ tools: tracked });
      server.server.oninitialized = () => {
        tools.ready().catch((error: unknown) => {
          logger({ level: 'error', message: 'could not open the stores', error });
        });
      };
      return server;
    },
    {
      transport: new StdioServerTransport(filter.stream, stdout),
      onerror: (error) => logger({ level: 'warn', message: 'stdio transport error', error }),
    },
  );
  let closing: Promise<void> | undefined;
  return {
    tools,
    close: () => {
      closing ??= (async () => {
        filter.stopAccepting();
        const running = inFlight();
        logger({
          level: 'info',
          message: `stopping: ${running === 0 ? 'no call in flight' : `answering the ${running} call(s) in flight first`}`,
        });
        await idle();
        // The last answers were handed to stdout in the turn their call settled: let them out.
        await new Promise((resolve) => setImmediate(resolve));
        if (stdout.writableNeedDrain) await new Promise((resolve) => stdout.once('drain', resolve));
        await handle.close();
        filter.detach();
      })();
      return closing;
    },
  };
}
