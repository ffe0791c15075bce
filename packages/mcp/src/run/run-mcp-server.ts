import type { Readable, Writable } from 'node:stream';
import { type AccessPolicy, EpisodicError } from '@episodic/core';
import { parseInput, safeJsonParse } from '@episodic/core/adapter';
import { accessPolicySchema } from '@episodic/core/schemas';
import {
  type EpisodicLocation,
  type EpisodicStores,
  type OpenEpisodicStoresOptions,
  openEpisodicStores,
  resolveEpisodicLocation,
} from '@episodic/home';
import type { EpisodicMcpStores } from '../episodic-tools.js';
import type { EpisodicHttpToken } from '../http/bearer-tokens.js';
import { type EpisodicMcpLogger, formatLogEntry } from '../logger.js';
import { bindScope } from '../scope/bound-scope.js';

/**
 * Options of `runMcpServer`: where the stores are (as for `openEpisodicStores`), the scope, and
 * the transport. Options win over the environment variables named in each field.
 */
export interface RunMcpServerOptions extends OpenEpisodicStoresOptions {
  /**
   * The scope the server is bound to (stdio, and a token given with `token`).
   * @default `EPISODIC_SCOPE`, else 'default'
   */
  scope?: string | undefined;
  /**
   * An access policy for the stdio server (and `token`), e.g. `{ required: { tenant: 'acme' } }`.
   * @default `EPISODIC_MCP_POLICY` (JSON), else none
   */
  policy?: AccessPolicy | undefined;
  /** Serve Streamable HTTP on this port (0: any free port) instead of stdio. @default stdio */
  http?: number | undefined;
  /** The HTTP listen address. @default '127.0.0.1' */
  host?: string | undefined;
  /** The HTTP endpoint path. @default '/mcp' */
  path?: string | undefined;
  /** HTTP: host names the `Host` header may carry. @default localhost names */
  allowedHosts?: readonly string[] | undefined;
  /** HTTP: host names a browser `Origin` may carry. @default localhost names */
  allowedOrigins?: readonly string[] | undefined;
  /** HTTP: a tokens file (see `readTokensFile`). @default `EPISODIC_MCP_TOKENS_FILE` */
  tokensFile?: string | undefined;
  /** HTTP: one bearer token bound to `scope` and `policy`. @default `EPISODIC_MCP_TOKEN` */
  token?: string | undefined;
  /** Where log lines go. @default one line per entry on stderr */
  logger?: EpisodicMcpLogger | undefined;
  /** stdio input. @default process.stdin */
  input?: Readable | undefined;
  /** stdio output (JSON-RPC only). @default process.stdout */
  output?: Writable | undefined;
}

/** A running server started by `runMcpServer`. */
export interface RunningMcpServer {
  /** Which transport it serves. */
  readonly transport: 'stdio' | 'http';
  /** The HTTP endpoint URL (HTTP only). */
  readonly url?: string;
  /** Where the stores are. */
  readonly location: EpisodicLocation;
  /** The bound scope (stdio), or the scopes of the tokens (HTTP). */
  readonly scopes: readonly string[];
  /** Resolves once the server has stopped and the stores are closed (stdin ended, or `close()`). */
  readonly closed: Promise<void>;
  /**
   * Stops serving and closes the stores. Idempotent. Over stdio, the tool calls in flight are
   * answered first, and requests arriving meanwhile get a "shutting down" error (`-32000`).
   */
  close(): Promise<void>;
}

function parsePolicy(text: string): AccessPolicy {
  const parsed = safeJsonParse(text);
  if (!parsed.success) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid EPISODIC_MCP_POLICY: it is not JSON (${parsed.error}). Give a policy such as {"required": {"tenant": "acme"}}.`,
      details: { field: 'EPISODIC_MCP_POLICY' },
    });
  }
  return parseInput(accessPolicySchema, parsed.value, 'EPISODIC_MCP_POLICY') as AccessPolicy;
}

/**
 * Starts the Episodic MCP server as the `episodic-mcp` bin (and `episodic mcp`) do: stores under
 * the Episodic home, bound to one scope, over stdio by default or over Streamable HTTP when `http`
 * is set. Over stdio the stores are opened after the client's `initialize`, so a client never
 * waits for the database to connect; over HTTP they are opened before listening, so a bad path
 * fails at once. Bad options are a `VALIDATION_ERROR` thrown before anything starts.
 *
 * ```ts
 * import { runMcpServer } from '@episodic/mcp/run';
 *
 * const server = await runMcpServer({ home: '~/.episodic', scope: 'my-project' }); // stdio
 * await server.closed; // until the client disconnects
 * ```
 */
export async function runMcpServer(options: RunMcpServerOptions = {}): Promise<RunningMcpServer> {
  const env = options.env ?? process.env;
  const {
    scope: scopeOption,
    policy: policyOption,
    http,
    host,
    path,
    allowedHosts,
    allowedOrigins,
    tokensFile,
    token,
    logger: loggerOption,
    input,
    output,
    ...storeOptions
  } = options;
  const location = resolveEpisodicLocation({ ...storeOptions, env });
  const scope = bindScope(
    scopeOption ?? (env.EPISODIC_SCOPE || undefined),
    scopeOption === undefined ? 'EPISODIC_SCOPE' : 'scope',
  );
  const policy =
    policyOption ??
    (env.EPISODIC_MCP_POLICY === undefined || env.EPISODIC_MCP_POLICY === ''
      ? undefined
      : parsePolicy(env.EPISODIC_MCP_POLICY));
  const logger: EpisodicMcpLogger =
    loggerOption ?? ((entry) => process.stderr.write(`${formatLogEntry(entry)}\n`));

  // Opened once, on first use (better-sqlite3's native addon loads only then). A static import:
  // a dynamic one of `@episodic/home` would keep every export of the package in the bin's start-up.
  let opened: Promise<EpisodicStores> | undefined;
  const openStores = (): Promise<EpisodicStores> => {
    opened ??= openEpisodicStores({ ...storeOptions, env });
    return opened;
  };
  const closeStores = async (): Promise<void> => {
    if (opened === undefined) return;
    const stores = await opened.catch(() => undefined);
    await stores?.close();
  };
  const storesForTools = (): Promise<EpisodicMcpStores> => openStores();

  if (http === undefined) {
    const { serveEpisodicStdio } = await import('../stdio.js');
    const stdin = input ?? process.stdin;
    const served = serveEpisodicStdio({
      stores: storesForTools,
      scope,
      policy,
      logger,
      input: stdin,
      ...(output === undefined ? {} : { output }),
    });
    let resolveStdioClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      resolveStdioClosed = resolve;
    });
    let closing: Promise<void> | undefined;
    // `closed` settles on every way out: stdin ending, and `close()` (a signal), which first lets
    // the calls in flight be answered. Before, only stdin ending settled it, so a process awaiting
    // it after a signal had nothing left to run and Node exited with status 13.
    const close = () => {
      closing ??= (async () => {
        try {
          await served.close();
        } finally {
          await closeStores();
          resolveStdioClosed();
        }
      })();
      return closing;
    };
    stdin.once('end', () => void close().catch(() => {}));
    stdin.once('close', () => void close().catch(() => {}));
    logger({
      level: 'info',
      message: `serving scope "${scope}" over stdio (database ${location.database}, runs in ${location.store})`,
    });
    return { transport: 'stdio', location, scopes: [scope], closed, close };
  }

  const { readTokensFile, checkTokens } = await import('../http/bearer-tokens.js');
  const file = tokensFile ?? (env.EPISODIC_MCP_TOKENS_FILE || undefined);
  const single = token ?? (env.EPISODIC_MCP_TOKEN || undefined);
  const tokens: EpisodicHttpToken[] = [
    ...(file === undefined ? [] : readTokensFile(file)),
    ...(single === undefined
      ? []
      : checkTokens([
          {
            name: 'EPISODIC_MCP_TOKEN',
            token: single,
            scope,
            ...(policy === undefined ? {} : { policy }),
          },
        ])),
  ];
  if (tokens.length === 0) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message:
        'Serving over HTTP needs at least one bearer token: pass --tokens FILE (or set EPISODIC_MCP_TOKENS_FILE), or set EPISODIC_MCP_TOKEN to a random string of at least 16 characters bound to --scope.',
      details: { field: 'tokens' },
    });
  }
  const { startEpisodicHttpServer } = await import('../http/episodic-http-server.js');
  const stores = await openStores();
  let server: Awaited<ReturnType<typeof startEpisodicHttpServer>>;
  try {
    server = await startEpisodicHttpServer({
      stores,
      tokens,
      port: http,
      logger,
      ...(host === undefined ? {} : { host }),
      ...(path === undefined ? {} : { path }),
      ...(allowedHosts === undefined ? {} : { allowedHosts }),
      ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
    });
  } catch (error) {
    await closeStores();
    throw error;
  }
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      try {
        await server.close();
      } finally {
        await closeStores();
        resolveClosed();
      }
    })();
    return closing;
  };
  const scopes = [...new Set(tokens.map((entry) => bindScope(entry.scope)))];
  logger({
    level: 'info',
    message: `serving ${tokens.length} token(s) for scope(s) ${scopes.map((name) => `"${name}"`).join(', ')} at ${server.url} (database ${location.database})`,
  });
  return { transport: 'http', url: server.url, location, scopes, closed, close };
}
