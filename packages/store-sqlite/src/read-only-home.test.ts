// A home or database this user cannot write fails with a message that says so (it said only
// "unable to open database file"): which path is read-only and what to do. A real child process
// opens the database; as root, which may write anything, it runs as the user `nobody`.
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  errorInChild,
  NOBODY,
  RUNS_AS_ROOT,
  useHomes,
} from '../../../test-support/read-only-home.js';
import { openSqliteDatabase } from './open-database.js';

/** A directory the child can enter but, once the test makes it 0555, not write. */
const readOnlyDirectory = useHomes();

/** Opens `filename` in a child (as `nobody` when this runs as root) and returns its error. */
function openInChild(filename: string, readOnly: boolean) {
  return errorInChild(
    join(import.meta.dirname, '..', 'dist', 'index.js'),
    ['openSqliteDatabase'],
    `openSqliteDatabase(${JSON.stringify(filename)}, { readOnly: ${readOnly} }).close();`,
  );
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
    if (RUNS_AS_ROOT) spawnSync('chown', [String(NOBODY), filename]);
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
