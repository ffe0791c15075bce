import { describe, expect, it } from 'vitest';
import {
  episodicJson,
  exitOf,
  expectError,
  startEpisodic,
  temporaryHome,
  waitForOutput,
} from './helpers.js';

function request(id: number, method: string, params: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
}

describe('episodic mcp', () => {
  it('serves the MCP tools over stdio, writing only JSON-RPC to stdout, and exits when the client leaves', async () => {
    const home = temporaryHome();
    const child = startEpisodic(['--home', home, 'mcp', '--scope', 'proj']);
    child.stdin?.write(
      request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'cli-test', version: '1.0.0' },
      }),
    );
    await waitForOutput(child, (stdout) => stdout.includes('"id":1'));
    child.stdin?.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    child.stdin?.write(request(2, 'tools/list'));
    child.stdin?.write(
      request(3, 'tools/call', {
        name: 'create_episode',
        arguments: { task_description: 'Tracked over MCP', domain: 'cli', task_type: 'testing' },
      }),
    );
    child.stdin?.write(
      request(4, 'tools/call', { name: 'get_episode', arguments: { episode_id: 'not-a-uuid' } }),
    );
    // Answers may come in any order (a tool call waits for the stores to open).
    const stdout = await waitForOutput(child, (text) =>
      ['"id":2', '"id":3', '"id":4'].every((id) => text.includes(id)),
    );
    child.stdin?.end();
    expect(await exitOf(child)).toBe(0);
    const messages = stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { jsonrpc: string; id: number; result?: Record<string, unknown> },
      );
    expect(messages.every((message) => message.jsonrpc === '2.0')).toBe(true);
    const byId = new Map(messages.map((message) => [message.id, message.result]));
    const tools = ((byId.get(2)?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name);
    expect(tools).toEqual(
      expect.arrayContaining([
        'create_episode',
        'add_episode_step',
        'complete_episode',
        'memory_episodes_query',
      ]),
    );
    const created = byId.get(3) as { isError?: boolean; content: Array<{ text: string }> };
    expect(created.isError).not.toBe(true);
    const failed = byId.get(4) as { isError?: boolean; content: Array<{ text: string }> };
    expect(failed.isError).toBe(true);
    expect(JSON.parse(failed.content[0]?.text as string)).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    // The task the server created is in the home's stores.
    const runs = (await episodicJson(['--home', home, 'runs', 'list'])).receipt.runs as unknown[];
    expect(runs).toHaveLength(1);
  });

  it('serves Streamable HTTP with a bearer token until interrupted', async () => {
    const home = temporaryHome();
    const token = 'cli-test-token-0123456789abcdef';
    const child = startEpisodic(['--home', home, 'mcp', '--scope', 'proj', '--http', '0'], {
      EPISODIC_MCP_TOKEN: token,
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${stderr}`)), 90_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match !== null) {
          clearTimeout(timer);
          resolve(match[1] as string);
        }
      });
    });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'cli-test', version: '1.0.0' },
      },
    });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const denied = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer wrong-token-0000000000' },
      body: initialize,
    });
    expect(denied.status).toBe(401);
    const allowed = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: initialize,
    });
    expect(allowed.status).toBe(200);
    await allowed.text();
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('refuses bad options with exit 2 before serving', async () => {
    const home = temporaryHome();
    expect(
      expectError(
        await episodicJson(['--home', home, 'mcp', '--host', '0.0.0.0']),
        2,
        'USAGE_ERROR',
      ),
    ).toContain('--http');
    expect(
      expectError(
        await episodicJson(['--home', home, 'mcp', '--http', '70000']),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('--http');
    expect(
      expectError(
        await episodicJson(['--home', home, 'mcp', '--http', '0']),
        2,
        'VALIDATION_ERROR',
      ),
    ).toContain('token');
    expectError(
      await episodicJson(['--home', home, 'mcp', '--policy', '{"required":']),
      2,
      'VALIDATION_ERROR',
    );
    expectError(
      await episodicJson(['--home', home, 'mcp', '--scope', 'global']),
      2,
      'VALIDATION_ERROR',
    );
  });
});
