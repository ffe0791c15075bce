import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { EpisodicError } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { EpisodicMcpLogEntry } from '../logger.js';
import { parseMcpServerArguments } from './parse-arguments.js';
import { runMcpServer } from './run-mcp-server.js';

const directories: string[] = [];
function home(): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-run-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function expectInvalid(call: () => unknown, text: RegExp): void {
  try {
    call();
    expect.unreachable();
  } catch (error) {
    expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(text);
  }
}

describe('parseMcpServerArguments', () => {
  it('maps every flag to a runMcpServer option', () => {
    const parsed = parseMcpServerArguments([
      '--home',
      '/h',
      '--db',
      'x.db',
      '--store',
      'fs',
      '--scope',
      'My Project',
      '--policy',
      '{"required":{"tenant":"acme"}}',
      '--http',
      '8765',
      '--host',
      '127.0.0.1',
      '--path',
      '/rpc',
      '--tokens',
      't.json',
      '--allowed-hosts',
      'a.example, b.example',
      '--allowed-origins',
      'app.example',
    ]);
    expect(parsed).toEqual({
      help: false,
      version: false,
      options: {
        home: '/h',
        db: 'x.db',
        store: 'fs',
        scope: 'My Project',
        policy: { required: { tenant: 'acme' } },
        http: 8765,
        host: '127.0.0.1',
        path: '/rpc',
        tokensFile: 't.json',
        allowedHosts: ['a.example', 'b.example'],
        allowedOrigins: ['app.example'],
      },
    });
    expect(parseMcpServerArguments(['-h']).help).toBe(true);
    expect(parseMcpServerArguments(['-v']).version).toBe(true);
  });

  it('names the flag and the fix for bad input', () => {
    expectInvalid(
      () => parseMcpServerArguments(['--port', '1']),
      /Unknown option '--port'.*--help/,
    );
    expectInvalid(
      () => parseMcpServerArguments(['--http', 'eighty']),
      /--http "eighty".*0 to 65535/,
    );
    expectInvalid(() => parseMcpServerArguments(['--http', '70000']), /--http/);
    expectInvalid(
      () => parseMcpServerArguments(['--store', 'pg']),
      /--store "pg": use sqlite or fs/,
    );
    expectInvalid(() => parseMcpServerArguments(['--policy', '{']), /--policy/);
    expectInvalid(() => parseMcpServerArguments(['--policy', '{"required":{}}']), /--policy/);
    expectInvalid(() => parseMcpServerArguments(['extra']), /positional|Unexpected argument/i);
  });
});

/** Reads JSON-RPC lines from a stream. */
function lines(stream: PassThrough): () => Promise<Record<string, unknown>> {
  let buffer = '';
  const queue: Array<Record<string, unknown>> = [];
  const waiting: Array<(value: Record<string, unknown>) => void> = [];
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let index = buffer.indexOf('\n'); index !== -1; index = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, index)) as Record<string, unknown>;
      buffer = buffer.slice(index + 1);
      const next = waiting.shift();
      if (next === undefined) queue.push(message);
      else next(message);
    }
  });
  return () => {
    const ready = queue.shift();
    return ready === undefined
      ? new Promise((resolve) => waiting.push(resolve))
      : Promise.resolve(ready);
  };
}

describe('runMcpServer', () => {
  it('serves stdio with the stores under the home, bound to EPISODIC_SCOPE, and closes them at EOF', async () => {
    const directory = home();
    const input = new PassThrough();
    const output = new PassThrough();
    const logs: EpisodicMcpLogEntry[] = [];
    const server = await runMcpServer({
      env: { EPISODIC_HOME: directory, EPISODIC_SCOPE: 'From Env' },
      input,
      output,
      logger: (entry) => logs.push(entry),
    });
    expect(server).toMatchObject({ transport: 'stdio', scopes: ['from-env'] });
    expect(server.location.database).toBe(join(directory, 'episodic.db'));
    const next = lines(output);
    const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    expect(await next()).toMatchObject({ id: 1, result: { serverInfo: { name: 'episodic' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_runs', arguments: {} },
    });
    const listed = await next();
    const text = (listed.result as { content: Array<{ text: string }> }).content[0]?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({ success: true, scope: 'from-env', runs: [] });
    expect(existsSync(join(directory, 'episodic.db'))).toBe(true);
    input.end();
    await server.closed;
    expect(logs.some((entry) => entry.message.includes('over stdio'))).toBe(true);
  });

  it('serves HTTP with EPISODIC_MCP_TOKEN bound to the scope, and refuses HTTP without a token', async () => {
    const directory = home();
    await expect(
      runMcpServer({ env: { EPISODIC_HOME: directory }, http: 0, logger: () => {} }),
    ).rejects.toThrow(/needs at least one bearer token/);
    const server = await runMcpServer({
      env: { EPISODIC_HOME: directory, EPISODIC_MCP_TOKEN: 'a-long-enough-token-123' },
      scope: 'web',
      http: 0,
      logger: () => {},
    });
    try {
      expect(server).toMatchObject({ transport: 'http', scopes: ['web'] });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const response = await fetch(server.url as string, {
        method: 'POST',
        headers: {
          authorization: 'Bearer a-long-enough-token-123',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_runs', arguments: { scope: 'web' } },
        }),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('\\"scope\\":\\"web\\"');
    } finally {
      await server.close();
      await server.closed;
    }
  });

  it('rejects a bad EPISODIC_MCP_POLICY or scope before starting', async () => {
    await expect(
      runMcpServer({ env: { EPISODIC_HOME: home(), EPISODIC_MCP_POLICY: '{oops' } }),
    ).rejects.toThrow(/EPISODIC_MCP_POLICY: it is not JSON/);
    await expect(
      runMcpServer({ env: { EPISODIC_HOME: home(), EPISODIC_SCOPE: 'global' } }),
    ).rejects.toThrow(/EPISODIC_SCOPE "global"/);
  });
});
