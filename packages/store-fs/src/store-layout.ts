import * as fs from 'node:fs';
import { basename, join, sep } from 'node:path';
import { EpisodicError } from '@episodic/core';
import type { FsIo } from './fs-io.js';

/** `sessions/` under the root: run files by UTC date, and `state/` snapshots. */
export const SESSIONS_DIR = 'sessions';
/** `sessions/state/`: one `<session_id>.json` snapshot per session. */
export const STATE_DIR = 'state';
/** `cache/tool-output/`: the full text of tool outputs referenced by `output_ref`. */
export const TOOL_OUTPUT_DIR = ['cache', 'tool-output'] as const;

const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOOL_OUTPUT_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** True for a lowercase UUID, the only id shape that reaches a path. */
export function isPathId(id: string): boolean {
  return LOWER_UUID.test(id);
}

/** True for a valid `output_ref.id` (seed 001: `[A-Za-z0-9_-]`). */
export function isToolOutputId(id: string): boolean {
  return TOOL_OUTPUT_ID.test(id);
}

/** The `YYYY/MM/DD` components for `startedAt` in UTC; the current date when it cannot be parsed. */
export function dayComponents(startedAt: string, now: () => Date): [string, string, string] {
  const parsed = Date.parse(startedAt);
  const date = Number.isNaN(parsed) ? now() : new Date(parsed);
  return [
    String(date.getUTCFullYear()).padStart(4, '0'),
    String(date.getUTCMonth() + 1).padStart(2, '0'),
    String(date.getUTCDate()).padStart(2, '0'),
  ];
}

/**
 * Keeps every path the store touches under its root. Paths are built only from validated ids and
 * date digits, and each directory on the way is checked with `lstat`: a symbolic link anywhere
 * below the root is refused (an escape through a link is how CVE-2025-53109 happened), and files
 * are opened with `O_NOFOLLOW`.
 */
export interface StoreRoot {
  /** The root's real path. */
  readonly path: string;
  /**
   * The real directory for `components` (relative to the root), created when `create` is true.
   * Returns null when it does not exist and `create` is false. Throws on a symbolic link.
   */
  directory(components: readonly string[], create: boolean): string | null;
  /** `path` relative to the root, for messages. */
  relative(path: string): string;
}

/** The error for a path that would leave the root. */
export function outsideRootError(path: string, reason: string): EpisodicError {
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `Refusing to use ${path}: ${reason}. Every file of the store must stay under its root; replace the link with a real directory.`,
    details: { path, reason: 'path_escape' },
  });
}

/** Opens (creating when needed) the root and returns its guard. */
export function openStoreRoot(
  root: string,
  onCreateDirectory?: (parent: string) => void,
): StoreRoot {
  fs.mkdirSync(root, { recursive: true });
  const realRoot = fs.realpathSync(root);
  return {
    path: realRoot,
    directory(components, create) {
      let current = realRoot;
      for (const component of components) {
        if (
          component === '' ||
          component === '.' ||
          component === '..' ||
          component.includes(sep)
        ) {
          throw outsideRootError(
            join(current, component),
            'the path component is not a plain name',
          );
        }
        const next = join(current, component);
        let stat: fs.Stats | undefined;
        try {
          stat = fs.lstatSync(next);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        if (stat === undefined) {
          if (!create) return null;
          try {
            fs.mkdirSync(next);
            onCreateDirectory?.(current);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          }
          stat = fs.lstatSync(next);
        }
        if (stat.isSymbolicLink()) throw outsideRootError(next, 'it is a symbolic link');
        if (!stat.isDirectory()) throw outsideRootError(next, 'it is not a directory');
        current = next;
      }
      return current;
    },
    relative(path) {
      return path.startsWith(realRoot + sep) ? path.slice(realRoot.length + 1) : path;
    },
  };
}

/**
 * Flags for opening a file for reading without following a final symbolic link. `O_NONBLOCK`
 * keeps the open of a FIFO from waiting for a writer (it has no effect on a regular file); the
 * type is then checked on the open descriptor (`openRegularFile`), so no read ever waits on one.
 */
export const READ_FLAGS =
  fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** True for the mode of a regular file. */
export function isRegularFileMode(mode: number): boolean {
  return (mode & fs.constants.S_IFMT) === fs.constants.S_IFREG;
}

/** What a file of this mode is, for messages: `a directory`, `a FIFO (named pipe)`, … */
function fileTypeName(mode: number): string {
  switch (mode & fs.constants.S_IFMT) {
    case fs.constants.S_IFREG:
      return 'a regular file';
    case fs.constants.S_IFDIR:
      return 'a directory';
    case fs.constants.S_IFIFO:
      return 'a FIFO (named pipe)';
    case fs.constants.S_IFSOCK:
      return 'a socket';
    case fs.constants.S_IFCHR:
      return 'a character device';
    case fs.constants.S_IFBLK:
      return 'a block device';
    case fs.constants.S_IFLNK:
      return 'a symbolic link';
    default:
      return 'not a regular file';
  }
}

/** `path` from its `sessions/` or `cache/` folder on, for messages (no absolute paths). */
export function storeLocation(path: string): string {
  for (const folder of [SESSIONS_DIR, TOOL_OUTPUT_DIR[0]]) {
    const at = path.lastIndexOf(`${sep}${folder}${sep}`);
    if (at !== -1) return path.slice(at + 1);
  }
  return basename(path);
}

/** The error for a store file that is something else than a regular file (a FIFO, a directory…). */
export function notRegularFileError(location: string, mode: number): EpisodicError {
  const type = fileTypeName(mode);
  return new EpisodicError({
    code: 'CORRUPT_DATA',
    message: `${location} cannot be read: it is ${type}, not a regular file. Nothing was read from it; run "episodic doctor" to list such entries, then move it out of the store.`,
    details: { path: location, reason: 'not_regular_file', type },
  });
}

/**
 * Opens a store file for reading (see `READ_FLAGS`) and checks on the open descriptor that it is
 * a regular file; anything else is closed again and refused with `CORRUPT_DATA`, so a FIFO, a
 * socket or a directory in place of a store file is reported instead of blocking or failing later.
 */
export function openRegularFile(
  io: Pick<FsIo, 'openSync' | 'fstatSync' | 'closeSync'>,
  path: string,
  location: string = storeLocation(path),
): number {
  const fd = io.openSync(path, READ_FLAGS);
  let mode: number | undefined;
  try {
    ({ mode } = io.fstatSync(fd));
  } catch (error) {
    io.closeSync(fd);
    throw error;
  }
  if (mode !== undefined && !isRegularFileMode(mode)) {
    io.closeSync(fd);
    throw notRegularFileError(location, mode);
  }
  return fd;
}

/** The whole text of a store file opened with `openRegularFile`. */
export function readRegularFile(path: string, location: string = storeLocation(path)): string {
  const fd = openRegularFile(fs, path, location);
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** `readRegularFile` as bytes: one Buffer, not decoded (what a chain verifier hashes). */
export function readRegularFileBytes(path: string, location: string = storeLocation(path)): Buffer {
  const fd = openRegularFile(fs, path, location);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Flags for appending to an existing run file (read access lets the writer check its last byte). */
export const APPEND_FLAGS =
  fs.constants.O_RDWR | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0);

/** Flags for creating a new run file; fails when it already exists. */
export const CREATE_FLAGS = APPEND_FLAGS | fs.constants.O_CREAT | fs.constants.O_EXCL;

/** Fsyncs a directory so a created, renamed or deleted entry survives a power loss. */
export function fsyncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY);
    fs.fsyncSync(fd);
  } catch (error) {
    // Some filesystems refuse to fsync a directory (EINVAL, EISDIR on a few platforms); the
    // rename itself already happened, so there is nothing better to do.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** True when a process with this pid exists on this machine. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
