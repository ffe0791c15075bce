// End to end: the BUILT bin (dist/bin/episodic-mcp.js, run `npx tsup` first) spawned over stdio and
// driven by the official MCP client, as an MCP client application would run it.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const bin = join(packageDirectory, 'dist', 'bin', 'episodic-mcp.js');
const { version } = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')) as {
  version: string;
};

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function files(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).map((entry) => entry.toString());
}

async function spawnClient(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'episodic-e2e', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    return { isError: result.isError === true, body: JSON.parse(text) };
  };
  return { client, call, stderr: () => stderr };
}

describe('episodic-mcp over stdio (built bin)', () => {
  it('runs create → steps → complete → get against the stores under the home', async () => {
    expect(existsSync(bin), 'build the package first: npx tsup').toBe(true);
    const home = mkdtempSync(join(tmpdir(), 'episodic-e2e-'));
    directories.push(home);
    const { client, call, stderr } = await spawnClient(['--scope', 'e2e', '--store', 'fs'], {
      EPISODIC_HOME: home,
    });
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'episodic', version });
      const created = await call('create_episode', {
        task_description: 'Add rate limiting to API endpoints',
        domain: 'web-api',
        task_type: 'code_generation',
        language: 'rust',
      });
      expect(created.body.success).toBe(true);
      const id = created.body.episode_id as string;
      for (const [index, tool] of ['architect', 'code_generator', 'test_runner'].entries()) {
        const added = await call('add_episode_step', {
          episode_id: id,
          step_number: index + 1,
          tool,
          action: `${tool} step`,
          result: { type: 'success', output: 'ok' },
          latency_ms: 10,
        });
        expect(added.body).toMatchObject({ success: true, step_number: index + 1 });
      }
      const completed = await call('complete_episode', {
        episode_id: id,
        outcome_type: 'success',
        verdict: 'Rate limiting implemented and tested',
      });
      expect(completed.body.success).toBe(true);
      const episode = (await call('get_episode', { episode_id: id })).body.episode;
      expect(episode).toMatchObject({ id, outcome: { type: 'success' } });
      expect(episode.steps).toHaveLength(3);
      expect(episode.reward_score).toBeGreaterThan(0);
      const runFiles = files(join(home, 'sessions')).filter((name) => name.endsWith(`${id}.jsonl`));
      expect(runFiles).toHaveLength(1);
      expect(existsSync(join(home, 'episodic.db'))).toBe(true);
      const bad = await call('get_episode', { episode_id: '../../etc/passwd' });
      expect(bad).toMatchObject({ isError: true, body: { code: 'VALIDATION_ERROR' } });
    } finally {
      await client.close();
    }
    expect(stderr()).toContain('serving scope "e2e" over stdio');
  });
});
