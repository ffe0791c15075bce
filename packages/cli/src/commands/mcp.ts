import type { AccessPolicy } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import { accessPolicySchema } from '@episodic/core/schemas';
import { type RunMcpServerOptions, runMcpServer } from '@episodic/mcp/run';
import type { CommandHandler } from '../command-spec.js';
import { jsonArgument, optionalInteger, optionalString } from '../option-values.js';
import { UsageError } from '../usage-error.js';

function listOf(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
}

/**
 * `mcp`: starts the MCP server of `@episodic/mcp` (the same as the `episodic-mcp` bin) and runs
 * until the client disconnects (stdio) or the process is interrupted. Nothing but JSON-RPC is
 * written to stdout.
 */
export const mcp: CommandHandler = async (context) => {
  const { options, globals } = context;
  const http = optionalInteger(options, 'http', { min: 0, max: 65_535 });
  const httpOnly = ['host', 'path', 'tokens', 'allowed-hosts', 'allowed-origins'].filter(
    (name) => options[name] !== undefined,
  );
  if (http === undefined && httpOnly.length > 0) {
    throw new UsageError(`--${httpOnly[0]} applies to --http only.`);
  }
  const policy = await jsonArgument(context, 'policy');
  const scope = optionalString(options, 'scope');
  const host = optionalString(options, 'host');
  const path = optionalString(options, 'path');
  const tokensFile = optionalString(options, 'tokens');
  const allowedHosts = listOf(optionalString(options, 'allowed-hosts'));
  const allowedOrigins = listOf(optionalString(options, 'allowed-origins'));
  const serverOptions: RunMcpServerOptions = {
    env: { ...context.env },
    ...(globals.home === undefined ? {} : { home: globals.home }),
    ...(globals.db === undefined ? {} : { db: globals.db }),
    ...(globals.store === undefined ? {} : { store: globals.store }),
    ...(scope === undefined ? {} : { scope }),
    ...(policy === undefined
      ? {}
      : { policy: parseInput(accessPolicySchema, policy.value, '--policy') as AccessPolicy }),
    ...(http === undefined ? {} : { http }),
    ...(host === undefined ? {} : { host }),
    ...(path === undefined ? {} : { path }),
    ...(tokensFile === undefined ? {} : { tokensFile }),
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
  };
  // Listen for SIGINT/SIGTERM before starting: a signal while the server starts (or right after
  // it says it is serving) must stop it gracefully too.
  const signal = context.io.interruptSignal?.();
  const server = await runMcpServer(serverOptions);
  if (signal?.aborted === true) void server.close();
  else signal?.addEventListener('abort', () => void server.close(), { once: true });
  await server.closed;
  return {};
};
