import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// runCli is what the binary runs, and what a program (or a test) calls in its own process: it must
// act only through the IO it is given and leave the process as it found it.

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function capture(env: Record<string, string>) {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: (text: string) => {
      out.stdout += text;
    },
    stderr: (text: string) => {
      out.stderr += text;
    },
    env,
  };
  return { io, out };
}

describe('runCli', () => {
  it("writes the default home under the given environment's HOME, and leaves the process as it was", async () => {
    const user = mkdtempSync(join(tmpdir(), 'episodic-run-cli-'));
    made.push(user);
    const before = {
      exitCode: process.exitCode,
      cwd: process.cwd(),
      env: { ...process.env },
      listeners: ['SIGINT', 'SIGTERM', 'exit'].map((name) => process.listenerCount(name)),
    };
    const { io, out } = capture({ HOME: user, TZ: 'UTC' });
    const args = ['episodes', 'append', '--scope', 'p', '--session-id', 's', '--agent-id', 'a'];
    const code = await runCli([...args, '--type', 'tool.call', '--summary', 'hi', '--json'], io);
    expect(code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true });
    expect(existsSync(join(user, '.episodic', 'episodic.db'))).toBe(true);
    const failed = capture({ HOME: user });
    expect(await runCli(['runs', '--limt', '3', 'list'], failed.io)).toBe(2);
    expect(failed.out.stderr).toContain('Did you mean --limit?');
    expect({
      exitCode: process.exitCode,
      cwd: process.cwd(),
      env: { ...process.env },
      listeners: ['SIGINT', 'SIGTERM', 'exit'].map((name) => process.listenerCount(name)),
    }).toEqual(before);
  });
});
