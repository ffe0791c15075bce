// The BUILT bin (npx tsup first) over stdio, as a client application runs it: a signal stops the
// server with status 0 once the calls in flight are answered, and a line that is not JSON gets a
// JSON-RPC -32700 answer (the README's promise) instead of silence.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/bin/episodic-mcp.js', import.meta.url));

const directories: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

interface Message {
  id?: unknown;
  result?: { content?: Array<{ text: string }>; isError?: boolean };
  error?: { code: number; message: string };
}

/** Starts `node <script> ...args` as an MCP server over stdio with a fresh home. */
function startStdioServer(script: string, args: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'episodic-signals-'));
  directories.push(home);
  // A diagnostic report (JS stack, libuv handles) on SIGUSR2, taken when the process hangs.
  const child = spawn(
    process.execPath,
    [
      '--report-on-signal',
      '--report-signal=SIGUSR2',
      `--report-directory=${home}`,
      script,
      ...args,
    ],
    {
      env: { PATH: process.env.PATH ?? '', EPISODIC_HOME: home, HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const messages = () =>
    stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Message);
  /**
   * What the process was doing, for a failure message: its stderr, the ids answered, and a
   * diagnostic report taken now (the handles keeping it alive, the JS stack).
   */
  const diagnosis = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const reports = readdirSync(home)
      .filter((name) => name.startsWith('report.'))
      .map((name) => {
        const parsed = JSON.parse(readFileSync(join(home, name), 'utf8')) as {
          javascriptStack?: unknown;
          libuv?: Array<{ is_active: boolean; is_referenced?: boolean }>;
        };
        return {
          javascriptStack: parsed.javascriptStack,
          // What keeps the process alive.
          handles: parsed.libuv?.filter(
            (handle) => handle.is_active && handle.is_referenced !== false,
          ),
        };
      });
    const answered = messages()
      .map((message) => message.id)
      .filter((id) => typeof id === 'number');
    return `stderr: ${stderr}; answered ${answered.length} ids (last ${answered.slice(-5).join(', ')}); stdout ends: ${stdout.slice(-300)}; report: ${JSON.stringify(reports)}`;
  };
  const waitFor = async (predicate: () => boolean, what: string) => {
    for (let attempt = 0; attempt < 1200 && !predicate(); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!predicate()) expect.fail(`not seen within 60 s: ${what}; ${await diagnosis()}`);
  };
  const send = (value: unknown) =>
    child.stdin.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  const initialize = async () => {
    send(INITIALIZE);
    await waitFor(() => messages().some((message) => message.id === 0), 'initialize answered');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  };
  const call = (id: number, name: string, args: Record<string, unknown>) =>
    send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  /** The exit status, or a failure that says what the process was doing when it did not exit. */
  const exitCode = async (ms = 60_000) => {
    const timer = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), ms).unref());
    const outcome = await Promise.race([exited, timer]);
    if (outcome !== 'hung') return outcome.code;
    return expect.fail(`the server did not exit within ${ms} ms; ${await diagnosis()}`);
  };
  return {
    child,
    exited,
    exitCode,
    messages,
    waitFor,
    send,
    initialize,
    call,
    stderr: () => stderr,
  };
}

/**
 * Pipelines `count` calls, sends `signal` right behind them, and checks the shutdown: every request
 * is answered exactly once (its result, or -32000 when it arrived after the signal) and the process
 * exits with status 0.
 */
async function expectGracefulStop(
  server: ReturnType<typeof startStdioServer>,
  signal: NodeJS.Signals,
  count = 100,
) {
  await server.initialize();
  server.call(1, 'create_episode', {
    task_description: 'load',
    domain: 'signals',
    task_type: 'testing',
  });
  await server.waitFor(() => server.messages().some((message) => message.id === 1), 'created');
  for (let index = 0; index < count; index++) {
    server.call(100 + index, index % 2 === 0 ? 'list_runs' : 'memory_episodes_query', {
      limit: 50,
    });
  }
  server.child.kill(signal);
  expect(await server.exitCode(), server.stderr()).toBe(0);
  const answers = server
    .messages()
    .filter((message) => typeof message.id === 'number' && message.id >= 100);
  expect(answers.map((message) => message.id).sort((a, b) => Number(a) - Number(b))).toEqual(
    Array.from({ length: count }, (_, index) => 100 + index),
  );
  for (const answer of answers) {
    if (answer.error !== undefined) expect(answer.error.code).toBe(-32000);
    else expect(answer.result?.isError, JSON.stringify(answer)).not.toBe(true);
  }
}

// Long enough for the 60 s waits above to fail with their diagnosis before the test times out.
describe('episodic-mcp over stdio (built bin)', { timeout: 180_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits 0 on ${signal} once the calls in flight are answered`, async () => {
      const server = startStdioServer(bin, ['--scope', 'signals', '--store', 'fs']);
      await expectGracefulStop(server, signal);
    });
  }

  it('answers a call that is still waiting for the stores to open when SIGTERM arrives, then exits 0', async () => {
    const server = startStdioServer(bin, ['--scope', 'signals']);
    await server.waitFor(() => server.stderr().includes('serving scope'), 'listening');
    // initialize, initialized and a call in one write, and the signal right behind them: the call
    // waits for the stores, which open only after initialize, so it is in flight at the signal.
    server.send(
      [
        INITIALIZE,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'create_episode',
            arguments: { task_description: 'late', domain: 'signals', task_type: 'testing' },
          },
        },
      ]
        .map((message) => JSON.stringify(message))
        .join('\n'),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    expect(await server.exitCode(), server.stderr()).toBe(0);
    // Normally the call was read and is answered with its result (stderr then says "answering the
    // 1 call(s) in flight first"); on a slow machine the signal can come before the lines were
    // read, and then each request is answered with -32000 instead. Never silence.
    for (const id of [0, 1]) {
      const answers = server.messages().filter((message) => message.id === id);
      expect(answers, server.stderr()).toHaveLength(1);
      const [answer] = answers;
      if (answer?.error !== undefined) expect(answer.error.code).toBe(-32000);
      else if (id === 1) {
        expect(JSON.parse(answer?.result?.content?.[0]?.text ?? '{}')).toMatchObject({
          success: true,
        });
      }
    }
  });

  it('answers a line that is not JSON with -32700 and JSON that is not JSON-RPC with -32600, then goes on', async () => {
    const server = startStdioServer(bin, ['--scope', 'signals']);
    await server.initialize();
    server.send('{"jsonrpc": "2.0", "id": 7, "method": "tools/list"');
    server.send('not json at all');
    server.send({ id: 8, hello: 'world' });
    server.send('');
    server.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    await server.waitFor(
      () => server.messages().some((message) => message.id === 9),
      'tools/list answered',
    );
    const errors = server.messages().filter((message) => message.error !== undefined);
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringContaining('Parse error') },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringContaining('Parse error') },
      },
      {
        jsonrpc: '2.0',
        id: 8,
        error: { code: -32600, message: expect.stringContaining('Invalid Request') },
      },
    ]);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });

  it('refuses a line that is not UTF-8 with -32700 (it reached the server with U+FFFD), and keeps a character split across writes', async () => {
    const server = startStdioServer(bin, ['--scope', 'signals']);
    await server.initialize();
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })}\n`;
    const create = (id: number) =>
      call(id, 'create_episode', {
        task_description: 'Fix the caf\u00e9 menu',
        domain: 'd',
        task_type: 'debugging',
      });
    // A Latin-1 "é": a lenient decoder would pass U+FFFD on, and the episode would keep it.
    server.child.stdin.write(Buffer.from(create(11), 'latin1'));
    // The same call in UTF-8, the character's two bytes written apart (a pipe may cut anywhere).
    const utf8 = Buffer.from(create(12), 'utf8');
    const cut = utf8.indexOf(0xc3) + 1;
    server.child.stdin.write(utf8.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.child.stdin.write(utf8.subarray(cut));
    await server.waitFor(
      () => server.messages().some((message) => message.id === 12),
      'the UTF-8 call answered',
    );
    const created = server.messages().find((message) => message.id === 12);
    const { episode_id } = JSON.parse(created?.result?.content?.[0]?.text ?? '{}') as {
      episode_id?: string;
    };
    server.child.stdin.write(call(13, 'get_episode', { episode_id }));
    await server.waitFor(
      () => server.messages().some((message) => message.id === 13),
      'get_episode answered',
    );
    const errors = server.messages().filter((message) => message.error !== undefined);
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringContaining('the line is not valid UTF-8') },
      },
    ]);
    const episode = server.messages().find((message) => message.id === 13);
    expect(episode?.result?.content?.[0]?.text).toContain('Fix the caf\u00e9 menu');
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });

  it('answers a 60 MB line exactly once (it answered 5 times), then reads the next line', async () => {
    const server = startStdioServer(bin, ['--scope', 'signals']);
    await server.initialize();
    // Written in pieces, as a pipe delivers it: the filter sees many chunks of one line.
    const piece = `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"pad":"${'x'.repeat(1024 * 1024)}`;
    for (let index = 0; index < 60; index++) {
      if (!server.child.stdin.write(index === 0 ? piece : 'x'.repeat(1024 * 1024))) {
        await new Promise((resolve) => server.child.stdin.once('drain', resolve));
      }
    }
    server.send('"}}');
    server.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    await server.waitFor(
      () => server.messages().some((message) => message.id === 4),
      'tools/list answered after the long line',
    );
    const errors = server.messages().filter((message) => message.error !== undefined);
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('larger than 10 MiB') },
      },
    ]);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });

  it('refuses a message with a key given twice or nested 8000 deep, naming it, and runs nothing', async () => {
    const server = startStdioServer(bin, ['--scope', 'signals']);
    await server.initialize();
    server.send(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_episode","arguments":{"task_description":"a","task_description":"b","domain":"d","task_type":"t"}}}',
    );
    server.send(
      `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"create_episode","arguments":{"task_description":${'['.repeat(8000)}${']'.repeat(8000)}}}}`,
    );
    server.send({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    await server.waitFor(
      () => server.messages().some((message) => message.id === 7),
      'tools/list answered',
    );
    const errors = server.messages().filter((message) => message.error !== undefined);
    expect(errors).toEqual([
      {
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: -32600,
          message: expect.stringContaining(
            'the key "task_description" appears twice in the object at $.params.arguments',
          ),
        },
      },
      {
        jsonrpc: '2.0',
        id: 6,
        error: {
          code: -32600,
          message: expect.stringContaining(
            'nested more than 512 arrays and objects deep at $.params.arguments.task_description[0]',
          ),
        },
      },
    ]);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });
});
