import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    fs.rmSync(directory, { recursive: true, force: true });
});

function lockPath(): string {
  const directory = fs.mkdtempSync(join(tmpdir(), 'episodic-lock-'));
  directories.push(directory);
  return join(directory, 'thing.lock');
}

const options = { timeoutMs: 1000, staleMs: 60_000, now: () => Date.now() };
const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe('withFileLock', () => {
  it('holds a lock file naming this process while the action runs, then removes it', async () => {
    const path = lockPath();
    const fdsBefore = openFds();
    const seen = await withFileLock(path, options, () => fs.readFileSync(path, 'utf8'));
    const [pid, , acquiredAt, nonce] = seen.split('\n');
    expect(Number(pid)).toBe(process.pid);
    expect(Number(acquiredAt)).toBeGreaterThan(0);
    expect(nonce).toMatch(/^[0-9a-f]{12}\.[0-9a-z]+$/);
    expect(fs.existsSync(path)).toBe(false);
    expect(openFds()).toBe(fdsBefore);
  });

  it('gives every lock it takes a token of its own', async () => {
    const path = lockPath();
    const tokens = new Set<string>();
    for (let index = 0; index < 20; index++) {
      tokens.add(await withFileLock(path, options, () => fs.readFileSync(path, 'utf8')));
    }
    expect(tokens.size).toBe(20);
  });

  it('leaves alone a lock file that replaced its own while it ran (another holder took over)', async () => {
    const path = lockPath();
    await withFileLock(path, options, () => {
      fs.rmSync(path);
      fs.writeFileSync(path, 'someone else');
    });
    expect(fs.readFileSync(path, 'utf8')).toBe('someone else');
  });

  it('removes its lock and closes it when the action throws', async () => {
    const path = lockPath();
    const fdsBefore = openFds();
    await expect(
      withFileLock(path, options, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(fs.existsSync(path)).toBe(false);
    expect(openFds()).toBe(fdsBefore);
  });

  it('runs the actions of one path one at a time', async () => {
    const path = lockPath();
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(path, options, async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});
