import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SESSIONS_DIR, STATE_DIR } from './store-layout.js';

/** How many run files and session snapshots a file store root holds. */
export interface FsStoreContents {
  /** Run files: `sessions/YYYY/MM/DD/<run_id>.jsonl`. */
  readonly runFiles: number;
  /** Session snapshots: `sessions/state/<session_id>.json`. */
  readonly snapshots: number;
}

/** Options of `countFsStoreFiles`. */
export interface CountFsStoreFilesOptions {
  /**
   * Stop counting once run files and snapshots together reach this number (to ask whether a root
   * holds anything, pass 1). @default no limit
   */
  atMost?: number;
}

const YEAR = /^\d{4}$/;
const TWO_DIGITS = /^\d{2}$/;
const RUN_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/;
const SNAPSHOT_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json$/;

function entries(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

function directories(path: string, pattern: RegExp): string[] {
  return entries(path)
    .filter((entry) => entry.isDirectory() && pattern.test(entry.name))
    .map((entry) => entry.name);
}

/**
 * Counts the run files and snapshots under `root` without opening the store: nothing is created,
 * swept or read beyond directory listings, and a missing root holds nothing. Tools use it to tell
 * what an Episodic home holds (the CLI picks the store that has data, and says where else it saw
 * some). Symbolic links are not followed, as the store never follows them.
 */
export function countFsStoreFiles(
  root: string,
  options: CountFsStoreFilesOptions = {},
): FsStoreContents {
  const atMost = options.atMost ?? Number.POSITIVE_INFINITY;
  const sessions = join(root, SESSIONS_DIR);
  const snapshots = Math.min(
    atMost,
    entries(join(sessions, STATE_DIR)).filter(
      (entry) => entry.isFile() && SNAPSHOT_FILE.test(entry.name),
    ).length,
  );
  let runFiles = 0;
  // Newest days first, so a count cut short by `atMost` has looked at the recent runs.
  const years = snapshots >= atMost ? [] : directories(sessions, YEAR).sort().reverse();
  walk: for (const year of years) {
    for (const month of directories(join(sessions, year), TWO_DIGITS).sort().reverse()) {
      for (const day of directories(join(sessions, year, month), TWO_DIGITS)
        .sort()
        .reverse()) {
        for (const entry of entries(join(sessions, year, month, day))) {
          if (!entry.isFile() || !RUN_FILE.test(entry.name)) continue;
          runFiles++;
          if (runFiles + snapshots >= atMost) break walk;
        }
      }
    }
  }
  return { runFiles, snapshots };
}
