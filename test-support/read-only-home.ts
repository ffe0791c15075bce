// What the read-only home tests of @episodic/home and store-sqlite share: a home directory the
// child may enter but (once the test makes it 0555) not write, and a real child process that runs
// as the user `nobody` when the tests run as root (root may write anything), importing a built
// package and reporting the error its code threw.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect } from 'vitest';

/** True when the tests run as root: the children then run as `nobody`. */
export const RUNS_AS_ROOT = process.getuid?.() === 0;
/** The uid and gid of `nobody`. */
export const NOBODY = 65534;

/** The error a child reported: empty when its code threw nothing. */
export interface ChildError {
  readonly code?: string;
  readonly message?: string;
}

/**
 * Registers the cleanup (after each test, homes made writable again and removed) and returns the
 * function that makes a new home: `<temporary parent>/home`, writable until the test chmods it.
 */
export function useHomes(): () => string {
  const parents: string[] = [];
  afterEach(() => {
    for (const parent of parents.splice(0)) {
      chmodSync(join(parent, 'home'), 0o755);
      rmSync(parent, { recursive: true, force: true });
    }
  });
  return () => {
    const parent = mkdtempSync(join(tmpdir(), 'episodic-read-only-home-'));
    parents.push(parent);
    chmodSync(parent, 0o755);
    const home = join(parent, 'home');
    mkdirSync(home);
    return home;
  };
}

/**
 * Runs `body` (module code, awaited) in a child process, as `nobody` under root, with `names`
 * imported from the built module `modulePath`, and returns the `code` and `message` of what it
 * threw (`{}` when nothing).
 */
export function errorInChild(
  modulePath: string,
  names: readonly string[],
  body: string,
): ChildError {
  const script = `
    const { ${names.join(', ')} } = await import(${JSON.stringify(pathToFileURL(modulePath).href)});
    try {
      ${body}
      console.log('{}');
    } catch (error) {
      console.log(JSON.stringify({ code: error.code, message: error.message }));
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 120_000,
    ...(RUNS_AS_ROOT ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ChildError;
}
