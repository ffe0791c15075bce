#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { EpisodicError } from '@episodic/core';
import { assertArgumentsAreUtf8, rawProcessArguments } from '@episodic/home';
import { MCP_SERVER_USAGE, parseMcpServerArguments } from '../run/parse-arguments.js';
import { runMcpServer } from '../run/run-mcp-server.js';
import { VERSION } from '../version.js';

// stdout belongs to JSON-RPC: anything that would print there by accident goes to stderr instead.
const toStderr = (...parts: unknown[]) => {
  process.stderr.write(`${parts.map(String).join(' ')}\n`);
};
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // Node read the arguments with U+FFFD for bytes that are not UTF-8: refused, as `episodic` does.
  assertArgumentsAreUtf8(argv, () =>
    rawProcessArguments(argv.length, () => readFileSync('/proc/self/cmdline')),
  );
  const { help, version, options } = parseMcpServerArguments(argv);
  if (help) {
    process.stderr.write(MCP_SERVER_USAGE);
    return;
  }
  if (version) {
    // The one deliberate stdout write: a version query is not an MCP session.
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  // The handlers go in before the server starts: a signal that arrives while it starts (or right
  // after it says it is serving) must stop it gracefully too, not kill the process outright.
  let server: Awaited<ReturnType<typeof runMcpServer>> | undefined;
  let stopRequested = false;
  const stop = () => {
    if (stopRequested) return;
    stopRequested = true;
    server?.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  server = await runMcpServer(options);
  if (stopRequested) {
    await server.close().finally(() => process.exit(0));
    return;
  }
  await server.closed;
}

main().catch((error: unknown) => {
  const message = EpisodicError.isInstance(error)
    ? error.message
    : `unexpected failure: ${(error as Error)?.stack ?? String(error)}`;
  process.stderr.write(`episodic-mcp: ${message}\n`);
  process.exitCode = EpisodicError.hasCode(error, 'VALIDATION_ERROR') ? 2 : 1;
});
