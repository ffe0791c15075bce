import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/bin/', import.meta.url));

/**
 * The end-to-end tests spawn the BUILT binary (the others run the CLI in-process). They run a snapshot of `dist/bin` taken now, so a rebuild of the
 * package while they run (another turbo build in the workspace) cannot pull it from under them.
 * The snapshot lives under this package's node_modules so it resolves better-sqlite3 like dist does.
 */
export default function setup(): () => void {
  if (!existsSync(join(built, 'episodic.js'))) {
    throw new Error(
      'dist/bin/episodic.js is missing: run `npx tsup` in packages/cli before the tests.',
    );
  }
  const snapshot = fileURLToPath(
    new URL(`../node_modules/.cache/episodic-cli-test/${process.pid}/bin/`, import.meta.url),
  );
  mkdirSync(snapshot, { recursive: true });
  cpSync(built, snapshot, { recursive: true });
  process.env.EPISODIC_TEST_BIN = join(snapshot, 'episodic.js');
  return () => rmSync(join(snapshot, '..'), { recursive: true, force: true });
}
