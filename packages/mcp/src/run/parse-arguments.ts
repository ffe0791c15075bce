import { parseArgs } from 'node:util';
import { type AccessPolicy, EpisodicError } from '@episodic/core';
import { parseInput, safeJsonParse } from '@episodic/core/adapter';
import { accessPolicySchema } from '@episodic/core/schemas';
import type { RunMcpServerOptions } from './run-mcp-server.js';

/** The `episodic-mcp --help` text (also what `episodic mcp --help` can show). */
export const MCP_SERVER_USAGE = `Usage: episodic-mcp [options]

Serves Episodic's task episode and history tools to MCP clients, over stdio by
default or over Streamable HTTP with --http. Logs go to stderr.

Options:
  --home DIR             Episodic home (default: $EPISODIC_HOME, else ~/.episodic)
  --db FILE|URL          SQLite file or postgres:// URL (default: $EPISODIC_DB, else <home>/episodic.db)
  --store sqlite|fs      where runs and sessions live (default: $EPISODIC_STORE, else sqlite)
  --scope NAME           the scope this server is bound to (default: $EPISODIC_SCOPE, else default)
  --policy JSON          access policy, e.g. '{"required":{"tenant":"acme"}}' ($EPISODIC_MCP_POLICY)
  --http PORT            serve Streamable HTTP on PORT (0: any free port) instead of stdio
  --host ADDRESS         HTTP listen address (default: 127.0.0.1)
  --path PATH            HTTP endpoint path (default: /mcp)
  --tokens FILE          HTTP bearer tokens file ($EPISODIC_MCP_TOKENS_FILE);
                         or set EPISODIC_MCP_TOKEN for one token bound to --scope
  --allowed-hosts LIST   HTTP: comma-separated Host names to accept (default: localhost names)
  --allowed-origins LIST HTTP: comma-separated browser Origin host names to accept
  -v, --version          print the version
  -h, --help             print this help

Examples:
  episodic-mcp --scope my-project
  EPISODIC_MCP_TOKEN=$(openssl rand -hex 24) episodic-mcp --http 8765 --scope my-project
`;

/** What the command line asks for. */
export interface ParsedMcpServerArguments {
  /** `--help` was given. */
  help: boolean;
  /** `--version` was given. */
  version: boolean;
  /** The server options the flags set (the environment fills in the rest). */
  options: RunMcpServerOptions;
}

function invalid(flag: string, value: string, fix: string): EpisodicError {
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `Invalid ${flag} ${JSON.stringify(value)}: ${fix}. Run episodic-mcp --help for the options.`,
    details: { field: flag, value },
  });
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Parses `episodic-mcp` flags (the CLI's `episodic mcp` takes the same). Unknown flags and bad
 * values are a `VALIDATION_ERROR` whose message names the flag and the fix.
 */
export function parseMcpServerArguments(argv: readonly string[]): ParsedMcpServerArguments {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        home: { type: 'string' },
        db: { type: 'string' },
        store: { type: 'string' },
        scope: { type: 'string' },
        policy: { type: 'string' },
        http: { type: 'string' },
        host: { type: 'string' },
        path: { type: 'string' },
        tokens: { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'allowed-origins': { type: 'string' },
        version: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `${(error as Error).message}. Run episodic-mcp --help for the options.`,
      details: { field: 'arguments' },
    });
  }
  const text = (name: string) => values[name] as string | undefined;
  const options: RunMcpServerOptions = {};
  if (text('home') !== undefined) options.home = text('home');
  if (text('db') !== undefined) options.db = text('db');
  if (text('store') !== undefined) {
    const store = text('store') as string;
    if (store !== 'sqlite' && store !== 'fs') throw invalid('--store', store, 'use sqlite or fs');
    options.store = store;
  }
  if (text('scope') !== undefined) options.scope = text('scope');
  if (text('policy') !== undefined) {
    const parsed = safeJsonParse(text('policy') as string);
    if (!parsed.success) {
      throw invalid(
        '--policy',
        text('policy') as string,
        'give JSON such as {"required":{"tenant":"acme"}}',
      );
    }
    options.policy = parseInput(accessPolicySchema, parsed.value, '--policy') as AccessPolicy;
  }
  if (text('http') !== undefined) {
    const port = text('http') as string;
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) {
      throw invalid('--http', port, 'give a port number from 0 to 65535');
    }
    options.http = Number(port);
  }
  if (text('host') !== undefined) options.host = text('host');
  if (text('path') !== undefined) options.path = text('path');
  if (text('tokens') !== undefined) options.tokensFile = text('tokens');
  const hosts = list(text('allowed-hosts'));
  if (hosts !== undefined) options.allowedHosts = hosts;
  const origins = list(text('allowed-origins'));
  if (origins !== undefined) options.allowedOrigins = origins;
  return { help: values.help === true, version: values.version === true, options };
}
