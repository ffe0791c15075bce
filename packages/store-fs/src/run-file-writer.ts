import { EpisodicError } from '@episodic/core';
import type { FsIo } from './fs-io.js';
import {
  APPEND_FLAGS,
  CREATE_FLAGS,
  isRegularFileMode,
  notRegularFileError,
  storeLocation,
} from './store-layout.js';

interface PendingAppend {
  readonly buffers: readonly Buffer[];
  readonly sync: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

interface OpenRunFile {
  readonly fd: number;
  queue: PendingAppend[];
  scheduled: boolean;
  /**
   * The file size after this writer's last write, or undefined when unknown (just opened, or a
   * write failed). When the size differs at the next flush, someone else wrote (or tore) the
   * end, so the last byte is checked.
   */
  knownSize: number | undefined;
  closeWhenIdle: boolean;
  lastUsed: number;
}

/** Appends records to run files: one write call per record, serialized per file, group-committed. */
export interface RunFileWriter {
  /** Creates a new, empty run file; throws `EEXIST` when it already exists. */
  create(path: string): void;
  /**
   * Writes `buffers` (one complete record each, ending with its only `\n`) to the file, and syncs
   * them when `sync` is true. Appends to one file are written in call order; appends queued in the
   * same tick share one sync (group commit).
   *
   * Returns `undefined` when the records were written before returning: an append that needs no
   * sync to a file with nothing queued is written at once (group commit has nothing to share, and
   * a queue turn would only add a promise and a microtask per record). Otherwise it returns a
   * promise that settles once they are written (and synced). Errors of an immediate write are
   * thrown.
   */
  append(path: string, buffers: readonly Buffer[], sync: boolean): Promise<void> | undefined;
  /** Closes the file's descriptor once its queue is empty (the file is being deleted). */
  forget(path: string): void;
  /** The file's size now: one `fstat` of the kept descriptor (opened when needed). */
  size(path: string): number;
  /** True when nothing is queued for the file (every append to it so far is written). */
  idle(path: string): boolean;
  /** Resolves once every append to the file queued so far is written (the descriptor stays open). */
  drain(path: string): Promise<void>;
  /** Waits for queued appends, then closes every descriptor. */
  close(): Promise<void>;
}

const NEWLINE = Buffer.from('\n');

/** Options of `createRunFileWriter`. */
export interface RunFileWriterOptions {
  io: FsIo;
  /** Descriptors kept open at most; the least recently used idle one is closed first. @default 64 */
  maxOpenFiles?: number;
}

/** Creates the writer that owns the open run files of one store. */
export function createRunFileWriter({
  io,
  maxOpenFiles = 64,
}: RunFileWriterOptions): RunFileWriter {
  const files = new Map<string, OpenRunFile>();
  const probe = Buffer.alloc(2);
  let clock = 0;
  let closed = false;

  const register = (path: string, fd: number, knownSize: number | undefined): OpenRunFile => {
    const file: OpenRunFile = {
      fd,
      queue: [],
      scheduled: false,
      knownSize,
      closeWhenIdle: false,
      lastUsed: ++clock,
    };
    files.set(path, file);
    if (files.size > maxOpenFiles) evictIdle(path);
    return file;
  };

  const evictIdle = (keep: string) => {
    let oldest: [string, OpenRunFile] | undefined;
    for (const entry of files) {
      const [path, file] = entry;
      if (path === keep || file.scheduled || file.queue.length > 0) continue;
      if (oldest === undefined || file.lastUsed < oldest[1].lastUsed) oldest = entry;
    }
    if (oldest !== undefined) closeFile(oldest[0], oldest[1]);
  };

  const closeFile = (path: string, file: OpenRunFile) => {
    files.delete(path);
    io.closeSync(file.fd);
  };

  /**
   * A torn fragment at the end (left by a crashed writer, ours or another process's) stays one bad
   * line instead of swallowing the next record. Cheap in the common case: one 2-byte read at the
   * end this writer left; it returns exactly its own final `\n` unless someone else changed the
   * file, and only then is the size looked up and the real last byte checked.
   */
  const repairTail = (file: OpenRunFile) => {
    if (file.knownSize !== undefined && file.knownSize > 0) {
      const read = io.readSync(file.fd, probe, 0, 2, file.knownSize - 1);
      if (read === 1 && probe[0] === 0x0a) return;
    } else if (file.knownSize === 0) {
      if (io.readSync(file.fd, probe, 0, 1, 0) === 0) return;
    }
    const { size } = io.fstatSync(file.fd);
    file.knownSize = size;
    if (size === 0) return;
    io.readSync(file.fd, probe, 0, 1, size - 1);
    if (probe[0] !== 0x0a) writeAll(file, NEWLINE);
  };

  const writeAll = (file: OpenRunFile, buffer: Buffer) => {
    // Exactly one write call per record: a short write is reported, never completed by a second
    // call, because two calls can interleave with another process's record.
    const written = io.writeSync(file.fd, buffer, 0, buffer.length);
    if (file.knownSize !== undefined) file.knownSize += written;
    if (written !== buffer.length) {
      throw Object.assign(
        new Error(
          `short write: ${written} of ${buffer.length} bytes reached the file (is the disk full?)`,
        ),
        { code: 'ENOSPC' },
      );
    }
  };

  const flush = (path: string, file: OpenRunFile) => {
    file.scheduled = false;
    const batch = file.queue;
    file.queue = [];
    const written: PendingAppend[] = [];
    let checked = false;
    for (const item of batch) {
      try {
        if (!checked) {
          repairTail(file);
          checked = true;
        }
        for (const buffer of item.buffers) writeAll(file, buffer);
        written.push(item);
      } catch (error) {
        file.knownSize = undefined;
        checked = false;
        item.reject(error);
      }
    }
    let syncError: unknown;
    if (written.some((item) => item.sync)) {
      try {
        io.fdatasyncSync(file.fd);
      } catch (error) {
        syncError = error;
      }
    }
    for (const item of written) {
      if (syncError !== undefined && item.sync) item.reject(syncError);
      else item.resolve();
    }
    if (file.closeWhenIdle && file.queue.length === 0) closeFile(path, file);
  };

  const fileFor = (path: string): OpenRunFile => {
    const open = files.get(path);
    if (open !== undefined) return open;
    const fd = io.openSync(path, APPEND_FLAGS);
    // A FIFO or a directory in place of a run file is refused before anything is written to it.
    const { mode } = io.fstatSync(fd);
    if (mode !== undefined && !isRegularFileMode(mode)) {
      io.closeSync(fd);
      throw notRegularFileError(storeLocation(path), mode);
    }
    return register(path, fd, undefined);
  };

  const drain = async (path: string): Promise<void> => {
    for (;;) {
      const file = files.get(path);
      if (file === undefined || (file.queue.length === 0 && !file.scheduled)) return;
      // An empty item resolves once everything queued before it is written.
      await new Promise<void>((resolve, reject) => {
        file.queue.push({ buffers: [], sync: false, resolve, reject });
      }).catch(() => undefined);
    }
  };

  return {
    create(path) {
      if (files.has(path)) {
        throw Object.assign(new Error(`EEXIST: run file already open: ${path}`), {
          code: 'EEXIST',
        });
      }
      register(path, io.openSync(path, CREATE_FLAGS, 0o644), 0);
    },
    append(path, buffers, sync) {
      if (closed) {
        return Promise.reject(
          new EpisodicError({
            code: 'STORAGE_ERROR',
            message: 'The fs store is closed; open a new store to append.',
          }),
        );
      }
      let file: OpenRunFile;
      try {
        file = fileFor(path);
      } catch (error) {
        return Promise.reject(error);
      }
      file.lastUsed = ++clock;
      file.closeWhenIdle = false;
      if (!sync && !file.scheduled && file.queue.length === 0) {
        // Nothing queued for this file: written now, in call order, with the same tail check and
        // one write call per record as a queued flush.
        try {
          repairTail(file);
          for (const buffer of buffers) writeAll(file, buffer);
        } catch (error) {
          file.knownSize = undefined;
          throw error;
        }
        return undefined;
      }
      return new Promise<void>((resolve, reject) => {
        file.queue.push({ buffers, sync, resolve, reject });
        if (!file.scheduled) {
          file.scheduled = true;
          queueMicrotask(() => flush(path, file));
        }
      });
    },
    forget(path) {
      const file = files.get(path);
      if (file === undefined) return;
      if (file.queue.length === 0 && !file.scheduled) closeFile(path, file);
      else file.closeWhenIdle = true;
    },
    size(path) {
      return io.fstatSync(fileFor(path).fd).size;
    },
    idle(path) {
      const file = files.get(path);
      return file === undefined || (file.queue.length === 0 && !file.scheduled);
    },
    drain,
    async close() {
      closed = true;
      // Queued flushes run as microtasks; let them finish before closing descriptors.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const [path, file] of [...files]) {
        if (file.queue.length > 0) flush(path, file);
        closeFile(path, file);
      }
    },
  };
}
