// A home this user cannot write fails with a message that says it is read-only and what to do
// (it said only "unable to open database file", or "Check the home's permissions"). A real child
// process opens the stores from the built package; as root, which may write anything, it runs as
// the user `nobody`.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openEpisodicStores } from './open-episodic-stores.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) {
    chmodSync(join(directory, 'home'), 0o755);
    rmSync(directory, { recursive: true, force: true });
  }
});

const root = process.getuid?.() === 0;

function appendInChild(home: string): { code?: string; message?: string } {
  const module = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href;
  const script = `
    const { openEpisodicStores } = await import(${JSON.stringify(module)});
    try {
      const stores = await openEpisodicStores({ home: ${JSON.stringify(home)}, env: {} });
      await stores.close();
      console.log('{}');
    } catch (error) {
      console.log(JSON.stringify({ code: error.code, message: error.message }));
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 120_000,
    ...(root ? { uid: 65534, gid: 65534 } : {}),
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { code?: string; message?: string };
}

function home(): string {
  const parent = mkdtempSync(join(tmpdir(), 'episodic-read-only-home-'));
  directories.push(parent);
  chmodSync(parent, 0o755);
  const path = join(parent, 'home');
  mkdirSync(path);
  return path;
}

describe.skipIf(process.platform === 'win32')('a read-only home', () => {
  it('an empty read-only home: its config cannot be written, and the message says read-only', () => {
    const path = home();
    chmodSync(path, 0o555);
    const failure = appendInChild(path);
    expect(failure.code).toBe('STORAGE_ERROR');
    expect(failure.message).toContain(`The home ${path} is read-only for this user (EACCES)`);
  });

  it('a read-only home with a config and no database: the database directory is named read-only', async () => {
    const path = home();
    const made = home();
    const stores = await openEpisodicStores({ home: made, env: {} });
    await stores.close();
    copyFileSync(join(made, 'episodic-home.json'), join(path, 'episodic-home.json'));
    chmodSync(join(path, 'episodic-home.json'), 0o644);
    chmodSync(path, 0o555);
    const failure = appendInChild(path);
    expect(failure.code).toBe('STORAGE_ERROR');
    expect(failure.message).toContain(`its directory ${path} is read-only for this user (EACCES)`);
    expect(failure.message).not.toMatch(
      /^Could not open the SQLite database [^:]+: unable to open/,
    );
  });
});
