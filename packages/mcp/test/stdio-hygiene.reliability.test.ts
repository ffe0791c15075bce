// Guarantee (QUALITY.md, "MCP stdio hygiene: 1,000 mixed calls"; research/reliability.md T36, MCP
// stdio transport spec): over stdio, every line the server writes to stdout is a JSON-RPC message
// and every log line goes to stderr, through successes, bad arguments, unknown tools, unknown
// methods, unparsable input lines and logged storage warnings. Drives the BUILT bin (npx tsup).
// Reduced count by default; RELIABILITY_FULL=1 sends the full 1,000 mixed calls.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const FULL = process.env.RELIABILITY_FULL === '1';
const CALLS = FULL ? 1_000 : 300;
const bin = fileURLToPath(new URL('../dist/bin/episodic-mcp.js', import.meta.url));

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

/** The i-th mixed message: tool calls that succeed and fail, plus protocol-level mistakes. */
function mixed(index: number, episodeIds: string[]): { line: string; expectsAnswer: boolean } {
  const id = 100 + index;
  const request = (method: string, params: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const tool = (name: string, args: unknown) => request('tools/call', { name, arguments: args });
  const episode = episodeIds[index % Math.max(1, episodeIds.length)];
  switch (index % 12) {
    case 0:
      return {
        line: tool('create_episode', {
          task_description: `task ${index} \u001b[31mred\u202e`,
          domain: 'hygiene',
          task_type: 'testing',
        }),
        expectsAnswer: true,
      };
    case 1:
      return {
        line: tool('add_episode_step', {
          episode_id: episode,
          step_number: index,
          tool: 'runner',
          action: `step ${index}\nwith a newline`,
          result: {
            type: index % 2 === 0 ? 'success' : 'error',
            ...(index % 2 === 0 ? { output: 'ok' } : { message: 'boom' }),
          },
        }),
        expectsAnswer: true,
      };
    case 2:
      return { line: tool('get_episode', { episode_id: episode }), expectsAnswer: true };
    case 3:
      return {
        line: tool('get_episode_timeline', { episode_id: '../../etc/passwd' }),
        expectsAnswer: true,
      };
    case 4:
      return { line: tool('list_runs', { limit: 5 }), expectsAnswer: true };
    case 5:
      return {
        line: tool('memory_episodes_query', { limit: 3, scope: 'someone-else' }),
        expectsAnswer: true,
      };
    case 6:
      return { line: tool('search_patterns', { domain: 'hygiene' }), expectsAnswer: true };
    case 7:
      return { line: tool('no_such_tool', {}), expectsAnswer: true };
    case 8:
      return { line: request('resources/explode', {}), expectsAnswer: true };
    case 9:
      return {
        line: tool('create_episode', { task_description: 'x'.repeat(20_000) }),
        expectsAnswer: true,
      };
    case 10:
      return {
        line: `{"jsonrpc": "2.0", "id": ${id}, "method": "tools/call", "params": {`,
        expectsAnswer: false,
      };
    default:
      return { line: tool('delete_episode', { episode_id: episode }), expectsAnswer: true };
  }
}

describe('stdio hygiene (T36)', () => {
  it(`keeps stdout pure JSON-RPC through ${CALLS} mixed calls, with logs on stderr`, async () => {
    const home = mkdtempSync(join(tmpdir(), 'episodic-hygiene-'));
    directories.push(home);
    // A damaged run file: listing runs logs a warning about it (on stderr).
    const day = join(home, 'sessions', '2026', '01', '01');
    mkdirSync(day, { recursive: true });
    writeFileSync(
      join(day, '0f0e0d0c-0b0a-4909-8807-060504030201.jsonl'),
      '\u0000\u0000garbage{{{\n',
    );

    const child = spawn(process.execPath, [bin, '--store', 'fs', '--scope', 'hygiene'], {
      env: { PATH: process.env.PATH ?? '', EPISODIC_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const answered = () =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { id?: unknown; result?: unknown });
    const waitFor = async (predicate: () => boolean) => {
      for (let attempt = 0; attempt < 600 && !predicate(); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(predicate()).toBe(true);
    };
    const send = (line: string) => child.stdin.write(`${line}\n`);

    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'h', version: '1' },
        },
      }),
    );
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    // Two episodes first, so step and read calls have real targets.
    for (const id of [2, 3]) {
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'create_episode',
            arguments: { task_description: 'seed', domain: 'hygiene', task_type: 'testing' },
          },
        }),
      );
    }
    await waitFor(
      () => answered().filter((message) => message.id === 2 || message.id === 3).length === 2,
    );
    const episodeIds = answered()
      .filter((message) => message.id === 2 || message.id === 3)
      .map(
        (message) =>
          JSON.parse(
            (message.result as { content: Array<{ text: string }> }).content[0]?.text ?? '',
          ).episode_id as string,
      );

    const expected = new Set<number>([1, 2, 3]);
    for (let index = 0; index < CALLS; index++) {
      const { line, expectsAnswer } = mixed(index, episodeIds);
      send(line);
      if (expectsAnswer) expected.add(100 + index);
    }
    await waitFor(
      () =>
        answered().filter((message) => typeof message.id === 'number' && expected.has(message.id))
          .length === expected.size,
    );
    child.stdin.end();
    expect(await exited).toBe(0);

    const stdoutLines = stdout.split('\n');
    expect(stdoutLines.at(-1)).toBe('');
    for (const line of stdoutLines.slice(0, -1)) {
      const message = JSON.parse(line) as Record<string, unknown>;
      expect(message.jsonrpc).toBe('2.0');
      const isResponse = 'id' in message && ('result' in message || 'error' in message);
      const isNotification = typeof message.method === 'string';
      expect(isResponse || isNotification, line.slice(0, 200)).toBe(true);
    }
    const ids = answered()
      .map((message) => message.id)
      .filter((id): id is number => typeof id === 'number');
    expect(new Set(ids)).toEqual(expected);
    expect(ids).toHaveLength(expected.size);

    const stderrLines = stderr.split('\n').filter((line) => line !== '');
    expect(stderrLines.some((line) => line.includes('serving scope "hygiene" over stdio'))).toBe(
      true,
    );
    expect(stderrLines.some((line) => line.includes('skipped unreadable run'))).toBe(true);
    for (const line of stderrLines) expect(line.startsWith('{"jsonrpc"')).toBe(false);
  }, 300_000);
});
