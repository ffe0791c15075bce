import * as fs from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { FileProblem } from './file-problem.js';

/** What is at a path, seen with `lstat` (a symbolic link is never followed). */
type EntryKind = 'missing' | 'file' | 'directory' | 'symlink' | 'other';

/** An entry of the home as doctor sees it. */
interface Entry {
  readonly kind: EntryKind;
  /** For messages: `a FIFO (named pipe)`, `a directory`, … */
  readonly type: string;
}

function typeName(stat: fs.Stats): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/** What is at `path`, without following a final symbolic link and without opening it. */
export function entryAt(path: string): Entry {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(path);
  } catch {
    return { kind: 'missing', type: 'nothing' };
  }
  const kind: EntryKind = stat.isFile()
    ? 'file'
    : stat.isDirectory()
      ? 'directory'
      : stat.isSymbolicLink()
        ? 'symlink'
        : 'other';
  return { kind, type: typeName(stat) };
}

/** True when `path` is `home` or inside it. */
function inside(home: string, path: string): boolean {
  const rel = relative(home, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** Where a symbolic link points, for messages: inside or outside the home. */
function describeLink(home: string, path: string): string {
  let target: string;
  try {
    target = resolve(dirname(path), fs.readlinkSync(path));
  } catch {
    return 'a symbolic link';
  }
  let realHome = home;
  try {
    realHome = fs.realpathSync(home);
  } catch {
    // The home itself is checked by the caller.
  }
  let realTarget = target;
  try {
    realTarget = fs.realpathSync(target);
  } catch {
    // A dangling link: judged by where it points.
  }
  return inside(realHome, realTarget) || inside(home, target)
    ? 'a symbolic link'
    : 'a symbolic link that leaves the home';
}

/**
 * The problem with an entry that must be a regular file (a run file, a snapshot, a lock), or null
 * when it is one. Nothing is opened: a FIFO is never read, so doctor cannot block on it.
 */
export function notARegularFile(home: string, path: string, entry: Entry): string | null {
  if (entry.kind === 'file' || entry.kind === 'missing') return null;
  const what = entry.kind === 'symlink' ? describeLink(home, path) : entry.type;
  return `it is ${what} where a regular file is expected: the stores refuse to read it, and doctor does not open or move it. Move it out of the home (or replace it with the file itself)`;
}

/** The store directories doctor walks: each one is a real directory of the home, or skipped. */
export interface HomeLayout {
  readonly problems: FileProblem[];
  /** `<home>/sessions` is a real directory (run files and snapshots are walked). */
  readonly sessions: boolean;
  /** `<home>/sessions/state` is a real directory (snapshots are checked). */
  readonly state: boolean;
  /** `<home>/cache/tool-output` is a real directory. */
  readonly toolOutput: boolean;
  /** `<home>/quarantine` is missing or a real directory (`--fix` may write there). */
  readonly quarantine: boolean;
}

const DIRECTORY_USE: Record<string, string> = {
  sessions: 'every command that reads runs or sessions fails or sees nothing',
  'sessions/state': 'every command that reads or commits sessions fails',
  'sessions/locks': 'compare-and-appends and redactions of runs fail',
  cache: 'tool outputs cannot be stored or read',
  'cache/tool-output': 'tool outputs cannot be stored or read',
  quarantine: 'doctor --fix cannot quarantine anything, so it repairs nothing',
};

/** Files of the home that must be regular files when they exist. */
const HOME_FILES = ['episodic-home.json'];

/**
 * Checks the shape of the home: each store directory is a real directory (not a file, a FIFO or a
 * symbolic link, which the stores refuse to follow), each file doctor knows is a regular file, and
 * each `sessions/YYYY/MM/DD` level is a directory. Returns the problems and which directories may
 * be walked; nothing is opened, created or changed.
 */
export function checkHomeLayout(home: string, databasePaths: readonly string[]): HomeLayout {
  const problems: FileProblem[] = [];
  const homeEntry = entryAt(home);
  let homeKind = homeEntry.kind;
  if (homeKind === 'symlink') {
    // The home itself may be a link (e.g. ~/.episodic to another disk): it is what the user named.
    try {
      homeKind = fs.statSync(home).isDirectory() ? 'directory' : 'other';
    } catch {
      homeKind = 'missing';
    }
  }
  if (homeKind === 'missing') {
    return { problems, sessions: false, state: false, toolOutput: false, quarantine: true };
  }
  if (homeKind !== 'directory') {
    problems.push({
      area: 'file',
      path: home,
      message: `the home is ${homeEntry.type}, not a directory: no store can use it. Point --home at a directory`,
      fixable: false,
    });
    return { problems, sessions: false, state: false, toolOutput: false, quarantine: false };
  }
  const directory = (name: string): boolean => {
    const path = join(home, name);
    const entry = entryAt(path);
    if (entry.kind === 'missing' || entry.kind === 'directory') return true;
    const what = entry.kind === 'symlink' ? describeLink(home, path) : entry.type;
    problems.push({
      area: 'file',
      path,
      message: `it is ${what} where a directory is expected (the stores refuse to follow links or use anything else): ${DIRECTORY_USE[name]}. Move it out of the home and let the store create the directory`,
      fixable: false,
    });
    return false;
  };
  const sessions = directory('sessions');
  const state = sessions && directory('sessions/state');
  if (sessions) directory('sessions/locks');
  const cache = directory('cache');
  const toolOutput = cache && directory('cache/tool-output');
  const quarantine = directory('quarantine');

  for (const path of [...HOME_FILES.map((name) => join(home, name)), ...databasePaths]) {
    const entry = entryAt(path);
    // A database or config file may be a link the user made on purpose; its target must be a file.
    let kind = entry.kind;
    let type = entry.type;
    if (kind === 'symlink') {
      try {
        const target = fs.statSync(path);
        kind = target.isFile() ? 'file' : 'other';
        type = `a symbolic link to ${typeName(target)}`;
      } catch {
        kind = 'other';
        type = 'a dangling symbolic link';
      }
    }
    if (kind === 'missing' || kind === 'file') continue;
    problems.push({
      area: 'file',
      path,
      message: `it is ${type} where a regular file is expected: doctor does not open it, and the commands that need it fail. Move it out of the home`,
      fixable: false,
    });
  }

  if (sessions) problems.push(...checkDayDirectories(join(home, 'sessions')));
  return { problems, sessions, state, toolOutput, quarantine };
}

const DAY_PARTS = [/^\d{4}$/, /^\d{2}$/, /^\d{2}$/] as const;

/** `sessions/YYYY/MM/DD` entries that look like a date level but are not directories. */
function checkDayDirectories(sessions: string): FileProblem[] {
  const problems: FileProblem[] = [];
  const walk = (path: string, level: number) => {
    const pattern = DAY_PARTS[level];
    if (pattern === undefined) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!pattern.test(entry.name)) continue;
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        walk(child, level + 1);
        continue;
      }
      const what = entry.isSymbolicLink()
        ? describeLink(dirname(sessions), child)
        : entryAt(child).type;
      problems.push({
        area: 'file',
        path: child,
        message: `it is ${what} where a date directory is expected: the stores do not follow it, so the runs under it are never read. Move its contents into a real directory`,
        fixable: false,
      });
    }
  };
  walk(sessions, 0);
  return problems;
}
