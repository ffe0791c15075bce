import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Spawns the built binary: what a user runs, not the sources.
const bin = fileURLToPath(new URL('../dist/bin/episodic.js', import.meta.url));
const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

function run(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

describe('episodic binary', () => {
  it('prints the package version', () => {
    const result = run('--version');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('prints help with examples', () => {
    const result = run('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: episodic');
    expect(result.stdout).toContain('Examples:');
  });

  it('exits 2 with a hint on an unknown command', () => {
    const result = run('frobnicate');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('episodic --help');
    expect(result.stdout).toBe('');
  });
});
