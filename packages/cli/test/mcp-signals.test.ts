import { describe, expect, it } from 'vitest';
import { exitOf, startEpisodic, temporaryHome, waitForOutput } from './helpers.js';

function line(message: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
}

interface Answer {
  id?: number | null;
  result?: { isError?: boolean };
  error?: { code: number };
}

describe('episodic mcp over stdio', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits with status 0 on ${signal} (it exited 13) once the calls in flight are answered`, async () => {
      const home = temporaryHome();
      const child = startEpisodic(['--home', home, 'mcp', '--scope', 'proj']);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      for (let wait = 0; wait < 400 && !stderr.includes('serving scope'); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const calls = Array.from({ length: 20 }, (_, index) =>
        line({
          id: 10 + index,
          method: 'tools/call',
          params: {
            name: index % 2 === 0 ? 'create_episode' : 'memory_episodes_query',
            arguments:
              index % 2 === 0
                ? { task_description: `task ${index}`, domain: 'cli', task_type: 'testing' }
                : {},
          },
        }),
      );
      child.stdin?.write(
        [
          line({
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'cli-test', version: '1.0.0' },
            },
          }),
          line({ method: 'notifications/initialized' }),
          ...calls,
        ].join(''),
      );
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill(signal);
      expect(await exitOf(child), stderr).toBe(0);
      const answers = text
        .split('\n')
        .filter((entry) => entry !== '')
        .map((entry) => JSON.parse(entry) as Answer);
      // Every request is answered exactly once: its result, or -32000 if it came after the signal.
      for (const id of [1, ...calls.map((_, index) => 10 + index)]) {
        const mine = answers.filter((answer) => answer.id === id);
        expect(mine, `request ${id}; stderr: ${stderr}`).toHaveLength(1);
        const [answer] = mine;
        if (answer?.error !== undefined) expect(answer.error.code).toBe(-32000);
        else expect(answer?.result?.isError).not.toBe(true);
      }
    });
  }

  it('answers a line that is not JSON with a JSON-RPC -32700 parse error', async () => {
    const home = temporaryHome();
    const child = startEpisodic(['--home', home, 'mcp', '--scope', 'proj']);
    child.stdin?.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    const stdout = await waitForOutput(child, (text) => text.includes('-32700'));
    expect(JSON.parse(stdout.trim())).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringContaining('Parse error') },
    });
    child.stdin?.end();
    expect(await exitOf(child)).toBe(0);
  });
});
