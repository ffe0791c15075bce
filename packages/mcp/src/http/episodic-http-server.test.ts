// Guarantee (QUALITY.md, "MCP over HTTP"; research/reliability.md T35, MCP transports spec
// "Servers MUST validate the Origin header … respond with HTTP 403", GHSA-w48q-cv73-mx4w): a bad
// Host or Origin gets 403 with 0 tool executions; the default bind is 127.0.0.1; a request without
// Origin and with a good Host is served. Bearer tokens: none or unknown → 401, each token bound to
// its scope. Tested against a real server listening on 127.0.0.1 on a random port.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { CREATE_ARGUMENTS, countingStores } from '../__fixtures__/mcp-harness.js';
import { readTokensFile, tokenDigest } from './bearer-tokens.js';
import { type EpisodicHttpServer, startEpisodicHttpServer } from './episodic-http-server.js';

const TOKEN_A = 'token-a-0123456789abcdef';
const TOKEN_B = 'token-b-0123456789abcdef';

const servers: EpisodicHttpServer[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

async function start(extra: Partial<Parameters<typeof startEpisodicHttpServer>[0]> = {}) {
  const counting = countingStores();
  const server = await startEpisodicHttpServer({
    stores: counting.stores,
    tokens: [
      { name: 'a', token: TOKEN_A, scope: 'team-a' },
      { name: 'b', token_sha256: tokenDigest(TOKEN_B), scope: 'team-b' },
    ],
    logger: () => {},
    ...extra,
  });
  servers.push(server);
  return { server, counting };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST with exactly the headers given (Host included), through node:http. */
function post(url: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        setHost: false,
        headers: {
          host: `127.0.0.1:${target.port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const createCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'create_episode', arguments: CREATE_ARGUMENTS },
});
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the HTTP server', () => {
  it('listens on 127.0.0.1 by default and serves the official client with a token', async () => {
    const { server } = await start();
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const connectAs = async (token: string) => {
      const client = new Client({ name: 'http-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: auth(token) },
        }),
      );
      return client;
    };
    const teamA = await connectAs(TOKEN_A);
    const teamB = await connectAs(TOKEN_B);
    try {
      const { tools } = await teamA.listTools();
      expect(tools).toHaveLength(13);
      expect(tools.filter((tool) => tool.outputSchema?.type !== 'object')).toEqual([]);
      // The client has the output schemas now and checks each result's structuredContent.
      const created = await teamA.callTool({ name: 'create_episode', arguments: CREATE_ARGUMENTS });
      const createdBody = JSON.parse((created.content as Array<{ text: string }>)[0]?.text ?? '');
      expect(created.structuredContent).toEqual(createdBody);
      const id = createdBody.episode_id;
      const mine = await teamA.callTool({ name: 'get_episode', arguments: { episode_id: id } });
      expect(mine.isError).toBeFalsy();
      expect(mine.structuredContent).toMatchObject({ success: true, episode: { id } });
      const theirs = await teamB.callTool({ name: 'get_episode', arguments: { episode_id: id } });
      expect(theirs.isError).toBe(true);
      expect(JSON.parse((theirs.content as Array<{ text: string }>)[0]?.text ?? '').code).toBe(
        'NOT_FOUND',
      );
    } finally {
      await teamA.close();
      await teamB.close();
    }
  });

  it('answers a bad Host or Origin with 403 and executes no tool', async () => {
    const { server, counting } = await start();
    const port = new URL(server.url).port;
    const refused: Array<Record<string, string>> = [
      { host: 'evil.example' },
      { host: `evil.example:${port}` },
      { host: `127.0.0.1.evil.example:${port}` },
      { host: '' },
      { origin: 'http://evil.example' },
      { origin: `http://evil.example:${port}` },
      { origin: 'null' },
      { origin: 'http://localhost.evil.example' },
    ];
    for (const headers of refused) {
      const response = await post(server.url, { ...auth(TOKEN_A), ...headers }, createCall);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    expect(counting.total()).toBe(0);

    // The same call with a good Host (and no Origin, as non-browser clients send) executes.
    const served = await post(server.url, auth(TOKEN_A), createCall);
    expect(served.status).toBe(200);
    expect(served.body).toContain('Episode created successfully');
    const fromLocalPage = await post(
      server.url,
      { ...auth(TOKEN_A), origin: `http://localhost:${port}`, host: `localhost:${port}` },
      createCall,
    );
    expect(fromLocalPage.status).toBe(200);
    expect(counting.calls.get('runs.appendAt')).toBe(2);
  });

  it('answers a missing or unknown token with 401 and executes no tool', async () => {
    const { server, counting } = await start();
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer not-a-known-token-123456' },
      { authorization: `Basic ${Buffer.from(`user:${TOKEN_A}`).toString('base64')}` },
      { authorization: `Bearer ${TOKEN_A} extra` },
      { authorization: TOKEN_A },
    ];
    for (const headers of attempts) {
      const response = await post(server.url, headers, createCall);
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="episodic"');
    }
    expect(counting.total()).toBe(0);
  });

  it('refuses oversized bodies (413) and unknown paths (404) before any tool runs', async () => {
    const { server, counting } = await start({ maxRequestBodyBytes: 4_096 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'create_episode',
        arguments: { ...CREATE_ARGUMENTS, task_description: 'x'.repeat(8_000) },
      },
    });
    expect((await post(server.url, auth(TOKEN_A), big)).status).toBe(413);
    const chunked = await post(
      server.url,
      { ...auth(TOKEN_A), 'transfer-encoding': 'chunked' },
      big,
    );
    expect(chunked.status).toBe(413);
    expect(
      (await post(server.url.replace('/mcp', '/admin'), auth(TOKEN_A), createCall)).status,
    ).toBe(404);
    expect(counting.total()).toBe(0);
  });

  it('refuses a body with a key given twice or nested too deep, naming it, and stores nothing', async () => {
    const { server, counting } = await start();
    const send = (body: string, headers: Record<string, string> = {}) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          ...auth(TOKEN_A),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    // The second "task_description" would win under JSON.parse.
    const twice = createCall.replace(
      '"task_description":',
      '"task_description":"first","task_description":',
    );
    expect(twice).not.toBe(createCall);
    const duplicate = await send(twice);
    expect(duplicate.status).toBe(400);
    expect(await duplicate.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32600,
        message: expect.stringContaining(
          'the key "task_description" appears twice in the object at $.params.arguments',
        ),
      },
    });
    const escaped = await send(
      createCall.replace('"jsonrpc":', '"\\u006asonrpc":"2.0","jsonrpc":'),
    );
    expect(escaped.status).toBe(400);
    expect(((await escaped.json()) as { error: { message: string } }).error.message).toContain(
      '"jsonrpc" appears twice',
    );
    const deep = await send(
      createCall.replace(
        '"arguments":',
        `"extra":${'['.repeat(8000)}${']'.repeat(8000)},"arguments":`,
      ),
    );
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ id: 1, error: { code: -32600 } });
    const notJson = await send('{"jsonrpc":"2.0",');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    // A Latin-1 "é" inside a string: a decoder that is not strict would store U+FFFD.
    const latin1 = Buffer.from(createCall.replace('JWT', 'J\u00e9T'), 'latin1');
    const notUtf8 = await fetch(server.url, {
      method: 'POST',
      headers: {
        ...auth(TOKEN_A),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: latin1,
    });
    expect(notUtf8.status).toBe(400);
    expect(await notUtf8.json()).toMatchObject({
      id: null,
      error: { code: -32700, message: expect.stringContaining('not valid UTF-8') },
    });
    expect(counting.total()).toBe(0);

    // The same call without the repeated key is served.
    const served = await send(createCall);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('Episode created successfully');
    expect(counting.calls.get('runs.appendAt')).toBe(1);
  });

  it('refuses unsafe or ambiguous configurations at start', async () => {
    const { stores } = countingStores();
    const expectInvalid = async (
      options: Parameters<typeof startEpisodicHttpServer>[0],
      text: RegExp,
    ) => {
      const error = await startEpisodicHttpServer(options).catch((caught: unknown) => caught);
      expect(EpisodicError.hasCode(error, 'VALIDATION_ERROR')).toBe(true);
      expect((error as Error).message).toMatch(text);
    };
    await expectInvalid(
      { stores, tokens: [{ token: TOKEN_A, scope: 'a' }], host: '0.0.0.0', logger: () => {} },
      /needs allowedHosts/,
    );
    await expectInvalid({ stores, tokens: [{ token: 'short', scope: 'a' }] }, /at least 16/);
    await expectInvalid(
      {
        stores,
        tokens: [
          { token: TOKEN_A, scope: 'a' },
          { token_sha256: tokenDigest(TOKEN_A), scope: 'b' },
        ],
      },
      /repeats a token/,
    );
    await expectInvalid({ stores, tokens: [{ token: TOKEN_A, scope: 'global' }] }, /reserved/);
    await expectInvalid({ stores, tokens: [] }, /tokens/);
  });

  it('reads a tokens file with plain and hashed tokens and policies', () => {
    const directory = mkdtempSync(join(tmpdir(), 'episodic-tokens-'));
    directories.push(directory);
    const file = join(directory, 'tokens.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { name: 'laptop', token: TOKEN_A, scope: 'my-project' },
          {
            name: 'ci',
            token_sha256: tokenDigest(TOKEN_B),
            scope: 'acme',
            policy: { required: { tenant: 'acme' } },
          },
        ],
      }),
    );
    expect(readTokensFile(file)).toHaveLength(2);
    writeFileSync(file, '{"tokens": [');
    expect(() => readTokensFile(file)).toThrow(/not valid JSON/);
    writeFileSync(file, JSON.stringify({ tokens: [{ scope: 'x' }] }));
    expect(() => readTokensFile(file)).toThrow(/exactly one of token and token_sha256/);
    expect(() => readTokensFile(join(directory, 'missing.json'))).toThrow(/Could not read/);
  });
});
