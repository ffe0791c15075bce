// A home this user cannot write fails with a message that says it is read-only and what to do
// (it said only "unable to open database file", or "Check the home's permissions"). A real child
// process opens the stores from the built package; as root, which may write anything, it runs as
// the user `nobody`.
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorInChild, useHomes } from '../../../test-support/read-only-home.js';
import { openEpisodicStores } from './open-episodic-stores.js';

const home = useHomes();

/** Opens the stores of `path` in a child and returns the error it reported. */
function appendInChild(path: string) {
  return errorInChild(
    join(import.meta.dirname, '..', 'dist', 'index.js'),
    ['openEpisodicStores'],
    `const stores = await openEpisodicStores({ home: ${JSON.stringify(path)}, env: {} });
      await stores.close();`,
  );
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
