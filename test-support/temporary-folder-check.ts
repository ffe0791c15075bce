import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A vitest global setup (every package's, through vitest.shared.ts): the test run gets a private
 * temporary folder (`TMPDIR`, inherited by the test workers and every process they start), and
 * the run fails if anything is left in it at the end. A test that creates a temporary folder
 * removes it (a harness's `close()`, an `afterAll`), so repeated runs never fill the system's.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const folder = mkdtempSync(join(tmpdir(), 'episodic-test-run-'));
  // Others may pass through (not list): a test server run as another user (PostgreSQL's initdb
  // as `postgres` under root) keeps its own folder in here.
  chmodSync(folder, 0o711);
  process.env.TMPDIR = folder;
  return () => {
    const left = readdirSync(folder);
    rmSync(folder, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (left.length > 0) {
      // vitest only logs an error thrown here: the exit code is what fails the run.
      process.exitCode = 1;
      throw new Error(
        `The tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temporary folder: ${left.slice(0, 10).join(', ')}${left.length > 10 ? ', …' : ''}. A test must remove what it creates there (a harness's close(), an afterAll).`,
      );
    }
  };
}
