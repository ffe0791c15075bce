import * as fs from 'node:fs';
import { join } from 'node:path';
import { EpisodicError, type RunDurability } from '@episodic/core';
import {
  assertExpectedRevision,
  assertReplaceable,
  type SessionStoreAdapter,
  type StoredSessionHead,
  storedSessionRevision,
} from '@episodic/core/adapter';
import { replaceFileAtomic, sweepTempFiles } from './atomic-file.js';
import { withFileLock } from './file-lock.js';
import {
  fsyncDirectory,
  isPathId,
  isRegularFileMode,
  notRegularFileError,
  openRegularFile,
  SESSIONS_DIR,
  STATE_DIR,
  type StoreRoot,
  storeLocation,
} from './store-layout.js';

/** Options of `createFsSessionStoreAdapter`. */
export interface FsSessionStoreAdapterOptions {
  root: StoreRoot;
  durability: RunDurability;
  lockTimeoutMs: number;
  staleLockMs: number;
  now: () => Date;
}

const STATE_COMPONENTS = [SESSIONS_DIR, STATE_DIR] as const;
const BASE_SUFFIX = '.json';
const DELTAS_SUFFIX = '.deltas.jsonl';
/** Bytes read per step from a base or deltas file. */
const CHUNK = 1024 * 1024;
/** Bytes read first from the start of a base for its head; doubled per step up to `CHUNK`. */
const HEAD_BLOCK = 16 * 1024;
/** Bytes read per step backwards from the end of a deltas file. */
const TAIL_BLOCK = 64 * 1024;
const NEWLINE = 0x0a;
/** How the first line of a version 2 base ends: its episodes follow, one per line. */
const STREAMED_HEAD_END = ',"episodes":[';
/** Opened to append a delta and cut off a torn one, never through a link. */
const DELTA_FLAGS =
  fs.constants.O_RDWR |
  (fs.constants.O_NONBLOCK ?? 0) |
  fs.constants.O_APPEND |
  fs.constants.O_CREAT |
  (fs.constants.O_NOFOLLOW ?? 0);

/**
 * The lines of an open file from byte `start` (its start by default), read in chunks; closes it
 * when done or abandoned.
 */
function* fileLines(fd: number, start = 0): Generator<string, void, undefined> {
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer[] = [];
    for (let offset = start; ; ) {
      const read = fs.readSync(fd, chunk, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      let position = 0;
      for (;;) {
        const end = chunk.indexOf(NEWLINE, position);
        if (end === -1 || end >= read) {
          carry.push(Buffer.from(chunk.subarray(position, read)));
          break;
        }
        const line =
          carry.length === 0
            ? chunk.toString('utf8', position, end)
            : Buffer.concat([...carry, chunk.subarray(position, end)]).toString('utf8');
        carry = [];
        position = end + 1;
        yield line;
      }
    }
    if (carry.length > 0) yield Buffer.concat(carry).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What a base starts with, for revisions and summaries: the first line of a version 2 base (its
 * head, ending where its episodes start), or the whole file for anything else (a version 1 or seed
 * 001 snapshot, which seed 001's tools may also have pretty-printed). null when it is missing.
 * A version 2 base costs the bytes of its head only, however many episodes follow it.
 */
function baseHead(path: string): string | null {
  let fd: number;
  try {
    fd = openRegularFile(fs, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let handedOver = false;
  try {
    const parts: Buffer[] = [];
    let offset = 0;
    let newline = -1;
    for (let size = HEAD_BLOCK; newline === -1; size = Math.min(size * 2, CHUNK)) {
      const block = Buffer.allocUnsafe(size);
      const read = fs.readSync(fd, block, 0, size, offset);
      if (read === 0) break;
      const found = block.subarray(0, read).indexOf(NEWLINE);
      parts.push(block.subarray(0, found === -1 ? read : found));
      if (found !== -1) newline = offset + found;
      offset += read;
    }
    const first = Buffer.concat(parts).toString('utf8');
    if (newline === -1 || first.endsWith(STREAMED_HEAD_END)) return first;
    // Not a streamed head: the rest of the file is part of what the caller needs.
    handedOver = true;
    return [first, ...fileLines(fd, newline + 1)].join('\n');
  } finally {
    if (!handedOver) fs.closeSync(fd);
  }
}

/**
 * The last complete line of an open deltas file, read backwards, and where it ends (the offset a
 * torn line after it starts at). A file that does not end with a newline has a torn last line:
 * a commit whose writer died mid-write, never acknowledged.
 */
function lastCompleteLine(fd: number): { line: string | null; end: number; size: number } {
  const { size } = fs.fstatSync(fd);
  let end = -1;
  // The last complete line's bytes, collected backwards from its newline.
  const parts: Buffer[] = [];
  for (let position = size; position > 0; ) {
    const start = Math.max(0, position - TAIL_BLOCK);
    const block = Buffer.allocUnsafe(position - start);
    fs.readSync(fd, block, 0, block.length, start);
    let cursor = block.length;
    if (end === -1) {
      const newline = block.lastIndexOf(NEWLINE);
      if (newline === -1) {
        position = start;
        continue;
      }
      end = start + newline + 1;
      cursor = newline;
    }
    const previous = cursor === 0 ? -1 : block.lastIndexOf(NEWLINE, cursor - 1);
    if (previous !== -1) {
      parts.unshift(block.subarray(previous + 1, cursor));
      return { line: Buffer.concat(parts).toString('utf8'), end, size };
    }
    parts.unshift(block.subarray(0, cursor));
    position = start;
  }
  if (end === -1) return { line: null, end: 0, size };
  return { line: Buffer.concat(parts).toString('utf8'), end, size };
}

/** Opens (creating) a deltas file to append to; a FIFO or a directory there is refused. */
function openDeltas(path: string): number {
  let fd: number;
  try {
    fd = fs.openSync(path, DELTA_FLAGS, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR')
      throw notRegularFileError(storeLocation(path), fs.constants.S_IFDIR);
    throw error;
  }
  const { mode } = fs.fstatSync(fd);
  if (!isRegularFileMode(mode)) {
    fs.closeSync(fd);
    throw notRegularFileError(storeLocation(path), mode);
  }
  return fd;
}

/** See `known` in `createFsSessionStoreAdapter`. */
interface KnownCommit {
  /** dev, inode, size, mtime and ctime (ns) of the base, joined. */
  baseKey: string;
  baseRevision: number | null;
  deltasIno: number;
  deltasEnd: number;
  revision: number;
}

/**
 * The identity of a base file (dev, inode, size, mtime and ctime in ns): every write of a base
 * (a new file renamed into place) changes it. It is the base's `SessionCommitSizes.baseToken`.
 */
function baseKeyOf(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** How many sessions' last commits a store remembers. */
const KNOWN_COMMITS = 1024;

function baseVanished(sessionId: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `The base snapshot of session ${sessionId} disappeared while this commit held the session's lock: another program removed it without the lock. Nothing was written; load the session again.`,
    details: { sessionId },
  });
}

/**
 * Session snapshots as a base and its deltas (schema_version 2): `sessions/state/<id>.json`, a
 * complete state as of its revision (seed 001's `SessionState` as far as its readers go), replaced
 * atomically (temp + fsync + rename + directory fsync), and `sessions/state/<id>.deltas.jsonl`,
 * one line per commit since, appended with one write and synced. Commits, folds and saves of one
 * session hold its lock file (`<id>.json.lock`) across processes.
 */
export function createFsSessionStoreAdapter(
  options: FsSessionStoreAdapterOptions,
): SessionStoreAdapter {
  const { root } = options;
  const sync = options.durability !== 'none';
  const stateDirectory = (create: boolean) => root.directory(STATE_COMPONENTS, create);
  const existing = stateDirectory(false);
  if (existing !== null) sweepTempFiles(existing);

  const lockOptions = {
    timeoutMs: options.lockTimeoutMs,
    staleMs: options.staleLockMs,
    now: () => options.now().getTime(),
  };
  const paths = (directory: string, sessionId: string) => ({
    base: join(directory, `${sessionId}${BASE_SUFFIX}`),
    deltas: join(directory, `${sessionId}${DELTAS_SUFFIX}`),
    lock: join(directory, `${sessionId}${BASE_SUFFIX}.lock`),
  });

  const linkError = (sessionId: string) =>
    new EpisodicError({
      code: 'CORRUPT_DATA',
      message: `The snapshot of session ${sessionId} cannot be read: it is a symbolic link, which the store refuses to follow. Replace it with the file itself, or delete it.`,
      details: { sessionId },
    });

  const openForReading = (path: string, sessionId: string): number | null => {
    try {
      return openRegularFile(fs, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'ELOOP') throw linkError(sessionId);
      throw error;
    }
  };

  const readDeltaLines = (path: string, sessionId: string): string[] => {
    const fd = openForReading(path, sessionId);
    return fd === null ? [] : [...fileLines(fd)];
  };

  /** The session's revision under its lock (null: no base, or an unreadable one). */
  const revisionNow = (
    sessionId: string,
    basePath: string,
    lastDelta: string | null,
  ): number | null => {
    const first = baseHead(basePath);
    return first === null ? null : storedSessionRevision(sessionId, first, lastDelta);
  };

  /** Writes a base, line by line in 1 MiB batches (a base can be larger than a string may be). */
  const writeBase = (directory: string, sessionId: string, lines: readonly string[]) => {
    replaceFileAtomic(
      directory,
      `${sessionId}${BASE_SUFFIX}`,
      (write) => {
        let batch: string[] = [];
        let batchLength = 0;
        for (const line of lines) {
          batch.push(line);
          batchLength += line.length + 1;
          if (batchLength >= CHUNK) {
            write(Buffer.from(`${batch.join('\n')}\n`, 'utf8'));
            batch = [];
            batchLength = 0;
          }
        }
        if (batch.length > 0) write(Buffer.from(`${batch.join('\n')}\n`, 'utf8'));
      },
      sync,
    );
    // Under the session's lock: no other writer replaces it before this is read.
    return baseKeyOf(fs.lstatSync(paths(directory, sessionId).base, { bigint: true }));
  };

  /**
   * What this store's last commit of each session left behind (the base's identity, the deltas
   * file's inode and end, the revision): when a commit finds both files as they were, nobody wrote
   * in between and it reads neither again. Any other write changes the base's identity (a fold, a
   * save, a redaction) or the deltas file (another commit appends), and the commit reads them.
   */
  const known = new Map<string, KnownCommit>();
  const remember = (sessionId: string, commit: KnownCommit) => {
    if (known.size >= KNOWN_COMMITS) known.delete(known.keys().next().value as string);
    known.set(sessionId, commit);
  };

  const removeDeltas = (directory: string, path: string) => {
    try {
      fs.unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return;
    }
    if (sync) fsyncDirectory(directory);
  };

  return {
    specificationVersion: 'v2',
    name: 'fs',
    capabilities: { atomicSave: true, crossProcessConflicts: true },

    // One snapshot: the base is read through the descriptor opened first (a fold's rename leaves
    // it on the old file), and the deltas read beside it are checked to belong to that file. So
    // core's read-again (READ_ATTEMPTS in session-store.ts) stays a safety net fs never needs.
    load(id) {
      const sessionId = id.toLowerCase();
      const directory = stateDirectory(false);
      if (directory === null) return null;
      const { base, deltas } = paths(directory, sessionId);
      for (;;) {
        const fd = openForReading(base, sessionId);
        if (fd === null) return null;
        let lines: string[];
        try {
          lines = readDeltaLines(deltas, sessionId);
          // A fold between opening the base and reading the deltas drops deltas the old base
          // needs: then the base was replaced, and both are read again.
          const now = fs.lstatSync(base, { throwIfNoEntry: false });
          if (now === undefined || now.ino !== fs.fstatSync(fd).ino) {
            fs.closeSync(fd);
            continue;
          }
        } catch (error) {
          fs.closeSync(fd);
          throw error;
        }
        return { base: { [Symbol.iterator]: () => fileLines(fd) }, deltas: lines };
      }
    },

    async commit(id, commit) {
      const sessionId = id.toLowerCase();
      const directory = stateDirectory(true) as string;
      const path = paths(directory, sessionId);
      return withFileLock(path.lock, lockOptions, () => {
        const baseStat = fs.lstatSync(path.base, { bigint: true, throwIfNoEntry: false });
        if (baseStat === undefined) {
          known.delete(sessionId);
          assertExpectedRevision(sessionId, null, commit.expectedRevision);
          removeDeltas(directory, path.deltas);
          const baseToken = writeBase(directory, sessionId, commit.base ?? []);
          return {
            deltaCount: 0,
            deltaBytes: 0,
            baseBytes: fs.statSync(path.base).size,
            baseToken,
          };
        }
        const baseKey = baseKeyOf(baseStat);
        let fd = openDeltas(path.deltas);
        try {
          const deltas = fs.fstatSync(fd);
          const last = known.get(sessionId);
          let baseRevision: number | null;
          let current: number | null;
          let tail: { hasLine: boolean; end: number; size: number };
          if (
            last !== undefined &&
            last.baseKey === baseKey &&
            last.deltasIno === deltas.ino &&
            last.deltasEnd === deltas.size
          ) {
            // Nobody wrote to the session since this store's last commit: the same base, and the
            // deltas file ends with the line that commit wrote. Nothing to read again.
            ({ baseRevision } = last);
            current = last.revision;
            tail = { hasLine: deltas.size > 0, end: deltas.size, size: deltas.size };
          } else {
            const head = baseHead(path.base);
            if (head === null) throw baseVanished(sessionId);
            baseRevision = storedSessionRevision(sessionId, head, null);
            const found = lastCompleteLine(fd);
            current = storedSessionRevision(sessionId, head, found.line);
            tail = { hasLine: found.line !== null, end: found.end, size: found.size };
          }
          known.delete(sessionId);
          assertExpectedRevision(sessionId, current, commit.expectedRevision);
          if (tail.hasLine && current !== null && current === baseRevision) {
            // Every stored delta is one the base covers (a fold or save died before removing
            // them): they go first, by unlinking, so that a loader holding the old file still
            // reads a consistent pair. The deltas file then holds exactly the commits past the
            // base, which is what the fold policy counts below.
            fs.closeSync(fd);
            fd = -1;
            removeDeltas(directory, path.deltas);
            fd = openDeltas(path.deltas);
            tail = { hasLine: false, end: 0, size: 0 };
          }
          // A torn last line is a commit that was never acknowledged: cut it off first.
          if (tail.end < tail.size) fs.ftruncateSync(fd, tail.end);
          const bytes = Buffer.from(`${commit.delta}\n`, 'utf8');
          const written = fs.writeSync(fd, bytes, 0, bytes.length);
          if (written !== bytes.length) {
            fs.ftruncateSync(fd, tail.end);
            throw Object.assign(new Error(`short write: ${written} of ${bytes.length} bytes`), {
              code: 'ENOSPC',
            });
          }
          if (sync) {
            fs.fdatasyncSync(fd);
            // A deltas file this commit created needs its directory entry durable too.
            if (tail.size === 0) fsyncDirectory(directory);
          }
          const deltaBytes = tail.end + bytes.length;
          remember(sessionId, {
            baseKey,
            baseRevision,
            deltasIno: tail.size === 0 ? fs.fstatSync(fd).ino : deltas.ino,
            deltasEnd: deltaBytes,
            revision: commit.revision,
          });
          // Commits make consecutive revisions and the file holds only those past the base, so
          // their count is this revision minus the base's: no need to read the file.
          return {
            deltaCount: commit.revision - (baseRevision ?? 0),
            deltaBytes,
            baseBytes: Number(baseStat.size),
            baseToken: baseKey,
          };
        } finally {
          if (fd !== -1) fs.closeSync(fd);
        }
      });
    },

    async replace(id, lines, revision, expectedRevision) {
      const sessionId = id.toLowerCase();
      const directory = stateDirectory(true) as string;
      const path = paths(directory, sessionId);
      return withFileLock(path.lock, lockOptions, () => {
        let current: number | null;
        try {
          const fd = openForReading(path.deltas, sessionId);
          let last: string | null = null;
          if (fd !== null) {
            try {
              last = lastCompleteLine(fd).line;
            } finally {
              fs.closeSync(fd);
            }
          }
          current = revisionNow(sessionId, path.base, last);
        } catch (error) {
          if (!EpisodicError.hasCode(error, 'CORRUPT_DATA')) throw error;
          current = null;
        }
        if (current === null && baseHead(path.base) !== null && expectedRevision !== undefined) {
          throw new EpisodicError({
            code: 'CONFLICT',
            message: `Session ${sessionId} has an unreadable snapshot, so expected revision ${String(expectedRevision)} cannot be checked. Save without expectedRevision to replace it.`,
            details: { sessionId, expectedRevision },
          });
        }
        assertReplaceable(sessionId, current, revision, expectedRevision);
        // The new base first: a crash before the deltas go leaves deltas the base covers, which
        // every loader skips.
        const baseToken = writeBase(directory, sessionId, lines);
        removeDeltas(directory, path.deltas);
        return baseToken;
      });
    },

    sessionIdsWithPrefix(prefix: string, limit: number) {
      // The state directory's listing only: no snapshot is opened.
      const directory = stateDirectory(false);
      if (directory === null) return [];
      return fs
        .readdirSync(directory)
        .filter((name) => name.startsWith(prefix) && name.endsWith(BASE_SUFFIX))
        .map((name) => name.slice(0, -BASE_SUFFIX.length))
        .filter(isPathId)
        .sort()
        .slice(0, limit);
    },

    list() {
      const directory = stateDirectory(false);
      if (directory === null) return [];
      const heads: StoredSessionHead[] = [];
      for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
        if (!entry.isFile() || !entry.name.endsWith(BASE_SUFFIX)) continue;
        const sessionId = entry.name.slice(0, -BASE_SUFFIX.length);
        if (!isPathId(sessionId)) continue;
        const { base, deltas } = paths(directory, sessionId);
        let head: string | null;
        let lastDelta: string | null = null;
        try {
          head = baseHead(base);
          const fd = openForReading(deltas, sessionId);
          if (fd !== null) {
            try {
              lastDelta = lastCompleteLine(fd).line;
            } finally {
              fs.closeSync(fd);
            }
          }
        } catch {
          continue;
        }
        if (head !== null) heads.push({ sessionId, base: head, lastDelta });
      }
      return heads;
    },

    async delete(id) {
      const sessionId = id.toLowerCase();
      const directory = stateDirectory(false);
      if (directory === null) return false;
      const path = paths(directory, sessionId);
      return withFileLock(path.lock, lockOptions, () => {
        try {
          fs.unlinkSync(path.base);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
          throw error;
        }
        removeDeltas(directory, path.deltas);
        return true;
      });
    },
  };
}
