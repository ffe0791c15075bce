import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cleanEnvironment, DEMO_MAIN, temporaryHome } from './run-built-demo.js';

// `pnpm -s demo --json | head`: the reader goes away before the demo is done writing, so the
// demo's writes meet a closed pipe (EPIPE). Here the reader closes before the report is written.

describe('a reader that closes the demo output early', () => {
  it('ends the demo quietly, with no EPIPE stack', async () => {
    const child = spawn(process.execPath, [DEMO_MAIN, '--json', '--home', temporaryHome()], {
      env: cleanEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // Like `head -c 0`: the pipe is closed before the report (written at the end) comes.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(code).toBe(0);
  });
});
