import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { stringifyJson } from '@episodic/core/adapter';

/** Writes an export line by line, to a file (atomically) or to a stream. */
export interface LineWriter {
  /** Appends one JSON line. */
  line(value: unknown): void;
  /** Finishes: a file is synced and renamed into place. Returns the bytes and their SHA-256. */
  commit(): { bytes: number; sha256: string };
  /** Gives up: a file's temp copy is removed and the target is left as it was. */
  abort(): void;
}

const FLUSH_BYTES = 1024 * 1024;

/**
 * A writer to `path` (temp file in the same directory + fsync + rename, so a failed or interrupted
 * export never leaves a half-written file), or to `write` when `path` is undefined.
 */
export function createLineWriter(
  path: string | undefined,
  write: (text: string) => void,
): LineWriter {
  const hash = createHash('sha256');
  let bytes = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const target = path === undefined ? undefined : resolve(path);
  const temp =
    target === undefined
      ? undefined
      : join(
          dirname(target),
          `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
        );
  let fd: number | undefined;
  if (temp !== undefined) fd = fs.openSync(temp, 'wx', 0o600);
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    pendingLength = 0;
    if (fd === undefined) write(text);
    else fs.writeSync(fd, text);
  };
  return {
    line(value) {
      // A payload can hold an integer beyond 2^53 (a bigint): written with its exact digits.
      const text = `${stringifyJson(value)}\n`;
      hash.update(text);
      bytes += Buffer.byteLength(text);
      pending.push(text);
      pendingLength += text.length;
      if (pendingLength >= FLUSH_BYTES) flush();
    },
    commit() {
      flush();
      if (fd !== undefined && temp !== undefined && target !== undefined) {
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fd = undefined;
        fs.renameSync(temp, target);
      }
      return { bytes, sha256: hash.digest('hex') };
    },
    abort() {
      if (fd !== undefined) {
        fs.closeSync(fd);
        fd = undefined;
      }
      if (temp !== undefined) fs.rmSync(temp, { force: true });
    },
  };
}
