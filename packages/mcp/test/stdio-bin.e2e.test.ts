// End to end: the BUILT bin (dist/bin/episodic-mcp.js, run `npx tsup` first) spawned over stdio and
// driven by the official MCP client, as an MCP client application would run it.
import { spawnSync } from 'node:child_process';
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
  // Listed first, so the client checks every result's structuredContent against its outputSchema.
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    const body = JSON.parse(text);
    expect(result.structuredContent).toEqual(result.isError === true ? undefined : body);
    return { isError: result.isError === true, body };
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

  it.skipIf(process.platform !== 'linux')(
    'refuses a command-line argument that is not UTF-8 with exit 2, naming it, and creates nothing',
    () => {
      expect(existsSync(bin), 'build the package first: npx tsup').toBe(true);
      const parent = mkdtempSync(join(tmpdir(), 'episodic-argv-'));
      directories.push(parent);
      // Node encodes string arguments as UTF-8: the raw bytes go through a shell's printf (a real
      // exec, as a terminal in a Latin-1 locale would run it). "café" in Latin-1 ends with 0xe9.
      const run = (script: string, ...args: string[]) =>
        spawnSync('/bin/sh', ['-c', script, process.execPath, bin, ...args], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '' },
          timeout: 60_000,
        });
      const home = run(`exec "$0" "$1" --scope e2e --home "$2/caf$(printf '\\351')"`, parent);
      expect(home.status, home.stderr).toBe(2);
      expect(home.stderr).toContain(
        'episodic-mcp: Argument 4 (the value of --home) is not valid UTF-8: the bytes at offset',
      );
      expect(home.stderr).toContain('(0xe9)');
      expect(home.stderr).toContain('LANG=C.UTF-8');
      expect(home.stdout).toBe('');
      expect(readdirSync(parent)).toEqual([]);
      const scope = run(`exec "$0" "$1" --scope "t$(printf '\\377')am" --home "$2/home"`, parent);
      expect(scope.status, scope.stderr).toBe(2);
      expect(scope.stderr).toContain('Argument 2 (the value of --scope) is not valid UTF-8');
      expect(readdirSync(parent)).toEqual([]);
      // U+FFFD typed as UTF-8 is a character like any other.
      const typed = run('exec "$0" "$1" --scope "c\uFFFD" --version');
      expect(typed.status, typed.stderr).toBe(0);
      expect(typed.stdout).toBe(`${version}\n`);
    },
  );
});
