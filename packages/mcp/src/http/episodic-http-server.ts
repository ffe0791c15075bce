import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EpisodicError } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import {
  createMcpHandler,
  isJsonContentType,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpHttpHandler,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createEpisodicMcpServer } from '../episodic-mcp-server.js';
import { createEpisodicTools, type EpisodicToolsOptions } from '../episodic-tools.js';
import { parseJsonRpcBytes } from '../json-rpc-line-filter.js';
import { type EpisodicMcpLogger, formatLogEntry } from '../logger.js';
import {
  checkTokens,
  digestOfEntry,
  type EpisodicHttpToken,
  tokenDigest,
} from './bearer-tokens.js';

/** The default bound on a request body. Tool arguments are far smaller; a step's parameters are at most 1 MB. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;

/** Options of `startEpisodicHttpServer`. */
export interface EpisodicHttpServerOptions
  extends Omit<EpisodicToolsOptions, 'scope' | 'policy' | 'logger'> {
  /** The bearer tokens, each bound to one scope and an optional access policy. */
  tokens: readonly EpisodicHttpToken[];
  /**
   * The address to listen on. A non-loopback address needs `allowedHosts`.
   * @default '127.0.0.1'
   */
  host?: string | undefined;
  /** The port; 0 picks a free one. @default 0 */
  port?: number | undefined;
  /** The endpoint path. @default '/mcp' */
  path?: string | undefined;
  /**
   * Host names (no ports) the `Host` header may carry; anything else is refused with 403, which
   * blocks DNS rebinding. @default ['localhost', '127.0.0.1', '[::1]'] on a loopback address
   */
  allowedHosts?: readonly string[] | undefined;
  /**
   * Origin host names a browser `Origin` header may carry (requests without one are judged on
   * `Host` alone). @default ['localhost', '127.0.0.1', '[::1]']
   */
  allowedOrigins?: readonly string[] | undefined;
  /** Requests with a larger body are refused with 413 before it is read. @default 2 MiB */
  maxRequestBodyBytes?: number | undefined;
  /** Where log lines go. @default one line per entry on process.stderr */
  logger?: EpisodicMcpLogger | undefined;
}

/** A listening Episodic HTTP server. */
export interface EpisodicHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
  /** The address it listens on. */
  readonly host: string;
  /** The port it listens on. */
  readonly port: number;
  /** Stops accepting requests and closes open connections (the stores are the caller's to close). */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Headers not passed on to the MCP handler: connection-level ones, and the token (already checked). */
const HOP_HEADERS = new Set([
  'authorization',
  'connection',
  'content-length',
  'host',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);

const optionsSchema = z.looseObject({
  tokens: z.array(z.unknown()).min(1),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9._~/-]*$/, 'must be a URL path such as "/mcp"')
    .optional(),
  allowedHosts: z.array(z.string().min(1)).min(1).optional(),
  allowedOrigins: z.array(z.string().min(1)).optional(),
  maxRequestBodyBytes: z.number().int().min(1024).optional(),
});

function sendJson(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  writeJson(
    response,
    status,
    { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
    headers,
  );
}

function writeJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Reads a request body up to `max` bytes; null when it is larger (the rest is not read). */
function readBody(request: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    request.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > max) {
        done = true;
        request.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      if (!done) reject(error);
    });
  });
}

/**
 * Starts the Episodic MCP server over Streamable HTTP on Node's `http` module. Every request
 * passes, in order: `Host` validation and `Origin` validation (403, against DNS rebinding and
 * cross-site requests), the endpoint path (404), the bearer token (401), the body size (413); only
 * then does it reach the MCP handler, with the tools of the token's scope and policy. Listens on
 * 127.0.0.1 by default.
 *
 * ```ts
 * const http = await startEpisodicHttpServer({
 *   stores, port: 8765, tokens: [{ token: process.env.EPISODIC_MCP_TOKEN!, scope: 'my-project' }],
 * });
 * console.error(`listening on ${http.url}`);
 * ```
 */
export async function startEpisodicHttpServer(
  options: EpisodicHttpServerOptions,
): Promise<EpisodicHttpServer> {
  const checked = parseInput(optionsSchema, options, 'HTTP server options');
  const tokens = checkTokens(options.tokens);
  const host = checked.host ?? '127.0.0.1';
  const path = checked.path ?? '/mcp';
  const maxBody = checked.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  if (checked.allowedHosts === undefined && !LOOPBACK.has(host)) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Listening on ${host} (not a loopback address) needs allowedHosts: the host names clients use to reach this server (e.g. --allowed-hosts mcp.internal.example). Without that list every request would be refused.`,
      details: { field: 'allowedHosts' },
    });
  }
  const allowedHosts = [...(checked.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [...(checked.allowedOrigins ?? localhostAllowedOrigins())];
  const logger: EpisodicMcpLogger =
    options.logger ?? ((entry) => process.stderr.write(`${formatLogEntry(entry)}\n`));

  const {
    tokens: _tokens,
    host: _host,
    port: _port,
    path: _path,
    allowedHosts: _hosts,
    allowedOrigins: _origins,
    maxRequestBodyBytes: _max,
    ...toolOptions
  } = options;
  // One tool set (and task lifecycle) per token, built up front so a bad scope or policy fails now.
  const handlers = new Map<string, { name: string; handler: McpHttpHandler }>();
  for (const [index, entry] of tokens.entries()) {
    const tools = createEpisodicTools({
      ...toolOptions,
      scope: entry.scope,
      policy: entry.policy,
      logger,
    });
    const handler = createMcpHandler(() => createEpisodicMcpServer({ tools }), {
      legacy: 'stateless',
      maxRequestBodySize: maxBody,
      onerror: (error) => logger({ level: 'warn', message: 'MCP HTTP handler error', error }),
    });
    handlers.set(digestOfEntry(entry), { name: entry.name ?? `token ${index}`, handler });
  }

  const refuse = (response: ServerResponse, status: number, reason: string, message: string) => {
    logger({ level: 'warn', message: `refused an HTTP request (${status}): ${reason}` });
    sendJson(
      response,
      status,
      message,
      status === 401 ? { 'www-authenticate': 'Bearer realm="episodic"' } : {},
    );
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const hostCheck = validateHostHeader(request.headers.host, allowedHosts);
    if (!hostCheck.ok) {
      refuse(
        response,
        403,
        `Host ${hostCheck.errorCode}`,
        'Forbidden: the Host header is not allowed.',
      );
      return;
    }
    const originCheck = validateOriginHeader(headerValue(request.headers.origin), allowedOrigins);
    if (!originCheck.ok) {
      refuse(
        response,
        403,
        `Origin ${originCheck.errorCode}`,
        'Forbidden: the Origin is not allowed.',
      );
      return;
    }
    const url = new URL(request.url ?? '/', `http://${hostCheck.hostname}`);
    if (url.pathname !== path) {
      refuse(response, 404, 'unknown path', `Not found: the MCP endpoint is ${path}.`);
      return;
    }
    const authorization = headerValue(request.headers.authorization) ?? '';
    const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(authorization);
    const entry = match === null ? undefined : handlers.get(tokenDigest(match[1] as string));
    if (entry === undefined) {
      refuse(
        response,
        401,
        match === null ? 'no bearer token' : 'unknown bearer token',
        'Unauthorized: send "Authorization: Bearer <token>" with a token this server knows.',
      );
      return;
    }
    const method = request.method ?? 'GET';
    let body: Buffer | undefined;
    if (method === 'POST') {
      const declared = Number(request.headers['content-length']);
      const read =
        Number.isFinite(declared) && declared > maxBody ? null : await readBody(request, maxBody);
      if (read === null) {
        refuse(response, 413, 'body too large', `Payload too large: at most ${maxBody} bytes.`);
        request.resume();
        return;
      }
      body = read;
    }
    // A JSON body is parsed here, with the duplicate-key and depth checks, and handed to the SDK
    // parsed; an empty body or another media type is left to the SDK (400 / 415).
    let parsedBody: unknown;
    if (
      body !== undefined &&
      body.length > 0 &&
      isJsonContentType(headerValue(request.headers['content-type']))
    ) {
      // As the stdio transport parses a line: bytes that are not UTF-8 and text that is not JSON
      // are -32700, a repeated key or nesting deeper than 512 is -32600 (the SDK would only
      // `JSON.parse` it).
      const parsed = parseJsonRpcBytes(body, 'body');
      if (!parsed.ok) {
        logger({
          level: 'warn',
          message: `refused an HTTP request (400): ${parsed.error.error.message}`,
        });
        writeJson(response, 400, parsed.error);
        return;
      }
      parsedBody = parsed.value;
    }
    const abort = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) abort.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (HOP_HEADERS.has(name)) continue;
      const joined = headerValue(value);
      if (joined !== undefined) headers.set(name, joined);
    }
    const webRequest = new Request(url, {
      method,
      headers,
      signal: abort.signal,
      ...(body === undefined ? {} : { body }),
    });
    const answer = await entry.handler.fetch(
      webRequest,
      parsedBody === undefined ? undefined : { parsedBody },
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body === null) {
      response.end();
      return;
    }
    const reader = answer.body.getReader();
    abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      response.write(value);
    }
    response.end();
  };

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      logger({ level: 'error', message: 'HTTP request failed', error });
      if (!response.headersSent) sendJson(response, 500, 'Internal server error.');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(checked.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    host: address.address,
    port: address.port,
    close() {
      closing ??= (async () => {
        await Promise.all([...handlers.values()].map(({ handler }) => handler.close()));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
