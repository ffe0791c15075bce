import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { EpisodicError } from '@episodic/core';
import { isProcessAlive, readRegularFile } from './store-layout.js';

/** Options of `withFileLock`. */
export interface FileLockOptions {
  /** How long to wait for a lock held by a live process before failing. */
  timeoutMs: number;
  /**
   * A lock older than this whose holder cannot be checked (another host) is treated as abandoned.
   * Holders on this host are checked by pid: a dead holder's lock is broken at once.
   */
  staleMs: number;
  /** The clock used for lock ages. */
  now: () => number;
}

interface LockHolder {
  pid: number;
  host: string;
  acquiredAt: number;
}

function parseHolder(text: string): LockHolder | null {
  const [pid, host, acquiredAt] = text.split('\n');
  const holder = { pid: Number(pid), host: host ?? '', acquiredAt: Number(acquiredAt) };
  return Number.isSafeInteger(holder.pid) && Number.isFinite(holder.acquiredAt) ? holder : null;
}

function readText(path: string): string | null {
  try {
    // A FIFO in place of a lock file is refused (CORRUPT_DATA), never read from.
    return readRegularFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function isAbandoned(text: string, options: FileLockOptions, modifiedAt: number): boolean {
  const holder = parseHolder(text);
  // A lock file cut short by a crash between create and write has no readable holder.
  if (holder === null) return options.now() - modifiedAt > 1000;
  if (holder.host === thisHost()) return !isProcessAlive(holder.pid);
  return options.now() - holder.acquiredAt > options.staleMs;
}

/** Creates the lock file holding `content`; its fd (kept open by the holder), or -1 when taken. */
function tryCreate(path: string, content: string): number {
  let fd: number;
  try {
    fd = fs.openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return -1;
    throw error;
  }
  try {
    fs.writeSync(fd, content);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(path, { force: true });
    throw error;
  }
  return fd;
}

/**
 * Removes the lock file this holder created, if it is still the one at `path` (an abandoned-lock
 * breaker may have replaced it), and closes it. The file is the same when its inode is: while the
 * holder keeps it open, its inode number cannot be given to another file.
 */
function release(path: string, fd: number): void {
  try {
    const held = fs.fstatSync(fd);
    const current = fs.lstatSync(path, { throwIfNoEntry: false });
    if (current !== undefined && current.ino === held.ino && current.dev === held.dev) {
      // unlink, not rmSync: rmSync stats the path twice more before it unlinks it.
      try {
        fs.unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** This host's name, read once (a lock names its holder's host). */
let host: string | undefined;
const thisHost = () => {
  host ??= hostname();
  return host;
};

/** Unique per lock taken: this process's random part, then a count. */
const processNonce = randomBytes(6).toString('hex');
let locksTaken = 0;
const lockToken = (now: number) =>
  `${process.pid}\n${thisHost()}\n${now}\n${processNonce}.${(++locksTaken).toString(36)}`;

/**
 * Removes an abandoned lock. A second lock (`.break`) makes the check-and-remove exclusive, so two
 * processes that both see the abandoned lock never remove a fresh lock the other just took.
 */
function breakAbandoned(path: string, observed: string, options: FileLockOptions): void {
  const breaker = `${path}.break`;
  const fd = tryCreate(breaker, lockToken(options.now()));
  if (fd === -1) {
    const text = readText(breaker);
    let modifiedAt = options.now();
    try {
      modifiedAt = fs.statSync(breaker).mtimeMs;
    } catch {
      return;
    }
    if (text !== null && isAbandoned(text, options, modifiedAt))
      fs.rmSync(breaker, { force: true });
    return;
  }
  try {
    if (readText(path) === observed) fs.rmSync(path, { force: true });
  } finally {
    release(breaker, fd);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `action` (synchronous or not) while holding an exclusive lock file at `path` (created with
 * `O_EXCL`), shared by every process on the machine. A lock left by a killed process is detected by pid and broken.
 */
export async function withFileLock<T>(
  path: string,
  options: FileLockOptions,
  action: () => T | Promise<T>,
): Promise<T> {
  const deadline = options.now() + options.timeoutMs;
  let delay = 2;
  let fd: number;
  for (;;) {
    fd = tryCreate(path, lockToken(options.now()));
    if (fd !== -1) break;
    const text = readText(path);
    if (text !== null) {
      let modifiedAt = options.now();
      try {
        modifiedAt = fs.statSync(path).mtimeMs;
      } catch {
        continue;
      }
      if (isAbandoned(text, options, modifiedAt)) {
        breakAbandoned(path, text, options);
        continue;
      }
      if (options.now() > deadline) {
        const holder = parseHolder(text);
        throw new EpisodicError({
          code: 'STORAGE_ERROR',
          message: `Timed out after ${options.timeoutMs} ms waiting for the lock ${path}, held by process ${holder?.pid ?? 'unknown'} on ${holder?.host ?? 'an unknown host'}. If that process is gone, delete the lock file.`,
          details: { path, holder },
        });
      }
    }
    await sleep(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 50);
  }
  try {
    // Awaited, so an asynchronous action holds the lock until it has finished.
    return await action();
  } finally {
    release(path, fd);
  }
}
