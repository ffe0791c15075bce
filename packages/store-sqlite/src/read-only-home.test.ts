// A home or database this user cannot write fails with a message that says so (it said only
// "unable to open database file"): which path is read-only and what to do. A real child process
// opens the database; as root, which may write anything, it runs as the user `nobody`.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from './open-database.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) {
    chmodSync(directory, 0o755);
    rmSync(directory, { recursive: true, force: true });
  }
});

const root = process.getuid?.() === 0;
const NOBODY = 65534;

/** Opens `filename` in a child (as `nobody` when this runs as root) and returns its error. */
function openInChild(filename: string, readOnly: boolean): { code?: string; message?: string } {
  const module = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href;
  const script = `
    const { openSqliteDatabase } = await import(${JSON.stringify(module)});
    try {
      openSqliteDatabase(${JSON.stringify(filename)}, { readOnly: ${readOnly} }).close();
      console.log('{}');
    } catch (error) {
      console.log(JSON.stringify({ code: error.code, message: error.message }));
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 120_000,
    ...(root ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { code?: string; message?: string };
}

/** A directory the child can enter but not write (mode 0555). */
function readOnlyDirectory(): string {
  const parent = mkdtempSync(join(tmpdir(), 'episodic-read-only-home-'));
  directories.push(parent);
  chmodSync(parent, 0o755);
  const home = join(parent, 'home');
  mkdirSync(home);
  return home;
}

describe.skipIf(process.platform === 'win32')('a read-only home', () => {
  it('a new database in a directory this user cannot write: named read-only, with the fix', () => {
    const home = readOnlyDirectory();
    chmodSync(home, 0o555);
    const failure = openInChild(join(home, 'episodic.db'), false);
    expect(failure.code).toBe('STORAGE_ERROR');
    expect(failure.message).toContain(`its directory ${home} is read-only for this user (EACCES)`);
    expect(failure.message).toContain('chmod u+w');
    expect(failure.message).toContain('--home / --db');
  });

  it('an existing database whose directory is read-only: writing and reading both say so', () => {
    const home = readOnlyDirectory();
    const filename = join(home, 'episodic.db');
    openSqliteDatabase(filename).close();
    // The child's user owns the file (so the file is writable) but not the directory.
    if (root) spawnSync('chown', [String(NOBODY), filename]);
    chmodSync(filename, 0o644);
    chmodSync(home, 0o555);
    const writing = openInChild(filename, false);
    expect(writing.code).toBe('STORAGE_ERROR');
    expect(writing.message).toContain(`its directory ${home} is read-only for this user (EACCES)`);
    const reading = openInChild(filename, true);
    expect(reading.code).toBe('STORAGE_ERROR');
    expect(reading.message).toContain('even reading a database in WAL mode needs episodic.db-shm');
    expect(reading.message).toContain('copy the database to a writable directory');
  });
});
