import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './usage-error.js';

/** The file that marks a folder as a demo home, so the demo may recreate it. */
export const DEMO_HOME_MARKER = '.episodic-demo-home';

/**
 * The demo's default home: `.episodic-demo/` inside the demo app's folder, found from this
 * module's location (`src/` or `dist/`), never from the working directory. It is git-ignored,
 * and it keeps the demo away from the user's own `~/.episodic`.
 */
export function defaultDemoHome(moduleUrl: string = import.meta.url): string {
  const appFolder = dirname(dirname(fileURLToPath(moduleUrl)));
  return join(appFolder, '.episodic-demo');
}

/** Where a demo home keeps its pieces. */
export interface DemoHomeLayout {
  readonly home: string;
  /** The sample workspace the agent's tools work in. */
  readonly workspace: string;
  /** The SQLite database: the ledger and the artifacts (patterns, reflections, summaries). */
  readonly database: string;
  /** Run files: `sessions/YYYY/MM/DD/<run_id>.jsonl`. */
  readonly runs: string;
  /** State snapshots: `sessions/state/<session_id>.json`. */
  readonly snapshots: string;
  /** Full tool outputs: `cache/tool-output/<id>.txt`. */
  readonly toolOutputs: string;
  /** The report of the last demo run (`pnpm demo verify` checks it again). */
  readonly report: string;
}

export function demoHomeLayout(home: string): DemoHomeLayout {
  return {
    home,
    workspace: join(home, 'workspace'),
    database: join(home, 'episodic.db'),
    runs: join(home, 'sessions'),
    snapshots: join(home, 'sessions', 'state'),
    toolOutputs: join(home, 'cache', 'tool-output'),
    report: join(home, 'demo-report.json'),
  };
}

/** The snapshot (base) file of a session (store-fs layout). */
export function snapshotPath(layout: DemoHomeLayout, sessionId: string): string {
  return join(layout.snapshots, `${sessionId.toLowerCase()}.json`);
}

/** The file of a session's commits since its base (store-fs layout; absent right after a fold). */
export function deltasPath(layout: DemoHomeLayout, sessionId: string): string {
  return join(layout.snapshots, `${sessionId.toLowerCase()}.deltas.jsonl`);
}

/**
 * Empties `home` and marks it as a demo home. Only a folder that does not exist, is empty, is the
 * default demo home or carries the marker file is touched: a `--home` pointing at anything else
 * (such as a real `~/.episodic`) is refused with a `UsageError` and nothing is deleted.
 */
export async function recreateDemoHome(
  home: string,
  options: { isDefault: boolean },
): Promise<DemoHomeLayout> {
  const target = resolve(home);
  if (existsSync(target)) {
    const stat = lstatSync(target);
    if (!stat.isDirectory() || stat.isSymbolicLink()) {
      throw new UsageError(`--home ${target} is not a folder. Pass a new or empty folder.`);
    }
    const entries = readdirSync(target);
    if (entries.length > 0 && !options.isDefault && !entries.includes(DEMO_HOME_MARKER)) {
      throw new UsageError(
        `--home ${target} is not empty and was not created by the demo (no ${DEMO_HOME_MARKER} file), so the demo will not delete it. Pass a new or empty folder.`,
      );
    }
    await rm(target, { recursive: true, force: true });
  }
  await mkdir(target, { recursive: true, mode: 0o700 });
  await writeFile(
    join(target, DEMO_HOME_MARKER),
    'Created by the Episodic demo (apps/demo). The demo deletes and recreates this folder on each run.\n',
  );
  return demoHomeLayout(target);
}

/** Checks that `home` holds a demo run (for `resume` and `verify`), without changing it. */
export function existingDemoHome(home: string): DemoHomeLayout {
  const target = resolve(home);
  if (!existsSync(join(target, DEMO_HOME_MARKER))) {
    throw new UsageError(
      `${target} is not a demo home (no ${DEMO_HOME_MARKER} file). Run "pnpm demo" first, with the same --home.`,
    );
  }
  return demoHomeLayout(target);
}
