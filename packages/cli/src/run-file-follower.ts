import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunReadError, RunRecord, RunTailResult } from '@episodic/core';
import { readRunLine, runLineExcerpt } from '@episodic/core/adapter';
import { nodeFsIo, tailRunFileAt } from '@episodic/store-fs';

const NEWLINE = 0x0a;
const BLOCK = 64 * 1024;
const DAY_PARTS = [/^\d{4}$/, /^\d{2}$/, /^\d{2}$/] as const;

function directories(path: string, pattern: RegExp): string[] {
  try {
    return fs
      .readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && pattern.test(entry.name))
      .map((entry) => entry.name)
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

/**
 * Every run file under `<home>/sessions/YYYY/MM/DD/`, newest day first. Symbolic links are not
 * followed (they are not directories here), so the walk never leaves the home.
 */
export function listRunFiles(home: string): { day: string; path: string; name: string }[] {
  const sessions = join(home, 'sessions');
  const files: { day: string; path: string; name: string }[] = [];
  for (const year of directories(sessions, DAY_PARTS[0])) {
    for (const month of directories(join(sessions, year), DAY_PARTS[1])) {
      for (const day of directories(join(sessions, year, month), DAY_PARTS[2])) {
        const directory = join(sessions, year, month, day);
        let entries: fs.Dirent[];
        try {
          entries = fs.readdirSync(directory, { withFileTypes: true });
        } catch {
          continue;
        }
        for (const entry of entries.sort((left, right) => (left.name < right.name ? -1 : 1))) {
          if (entry.name.endsWith('.jsonl')) {
            files.push({
              day: `${year}/${month}/${day}`,
              path: join(directory, entry.name),
              name: entry.name,
            });
          }
        }
      }
    }
  }
  return files;
}

/** The run file of `runId` under the home, or null. */
export function findRunFile(home: string, runId: string): string | null {
  const name = `${runId}.jsonl`;
  return listRunFiles(home).find((file) => file.name === name)?.path ?? null;
}

function readAt(fd: number, buffer: Buffer, position: number): number {
  let filled = 0;
  while (filled < buffer.length) {
    const read = fs.readSync(fd, buffer, filled, buffer.length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}

function decode(bytes: Buffer): { text: string; valid: boolean } {
  const text = bytes.toString('utf8');
  return { text, valid: !text.includes('\uFFFD') || isUtf8(bytes) };
}

/** What one poll found. */
export interface FollowBatch {
  records: RunRecord[];
  errors: RunReadError[];
  /** The file shrank or was replaced (e.g. repaired by `doctor --fix`): following restarts at its end. */
  replaced: boolean;
}

/**
 * Follows a run file by byte offset: the first call reads the last records (from the end, like
 * `tail`), each poll reads only what was appended since. Only complete lines are read; a line
 * still being written is read once its `\n` arrives.
 */
export interface RunFileFollower {
  /** The last `count` records up to the last complete line; following starts after it. */
  start(count: number): RunTailResult;
  /** Records appended since the previous call. Throws ENOENT when the file was deleted. */
  poll(): FollowBatch;
}

export function createRunFileFollower(path: string, runId: string): RunFileFollower {
  let offset = 0;
  let identity = '';
  const open = () => {
    const fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const stat = fs.fstatSync(fd);
    return { fd, size: stat.size, id: `${stat.dev}:${stat.ino}` };
  };

  /** The end of the last complete line at or before `size`. */
  const completeEnd = (fd: number, size: number): number => {
    let position = size;
    while (position > 0) {
      const start = Math.max(0, position - BLOCK);
      const block = Buffer.allocUnsafe(position - start);
      const filled = readAt(fd, block, start);
      const newline = block.subarray(0, filled).lastIndexOf(NEWLINE);
      if (newline !== -1) return start + newline + 1;
      position = start;
    }
    return 0;
  };

  return {
    start(count) {
      const { fd, size, id } = open();
      try {
        identity = id;
        const end = completeEnd(fd, size);
        offset = end;
        return tailRunFileAt(nodeFsIo, fd, end, runId, count);
      } finally {
        fs.closeSync(fd);
      }
    },

    poll() {
      const { fd, size, id } = open();
      try {
        const batch: FollowBatch = { records: [], errors: [], replaced: false };
        if (id !== identity || size < offset) {
          identity = id;
          offset = completeEnd(fd, size);
          batch.replaced = true;
          return batch;
        }
        if (size === offset) return batch;
        const bytes = Buffer.allocUnsafe(size - offset);
        const filled = readAt(fd, bytes, offset);
        let lineStart = 0;
        for (;;) {
          const newline = bytes.subarray(0, filled).indexOf(NEWLINE, lineStart);
          if (newline === -1) break;
          const byteOffset = offset + lineStart;
          const { text, valid } = decode(bytes.subarray(lineStart, newline));
          if (!valid) {
            batch.errors.push({
              byteOffset,
              message: 'the line is not valid UTF-8',
              excerpt: runLineExcerpt(text),
            });
          } else {
            const read = readRunLine(text, byteOffset === 0);
            if (read.kind === 'record') {
              if (read.damage !== undefined) {
                batch.errors.push({
                  byteOffset,
                  message: read.damage,
                  excerpt: runLineExcerpt(text),
                });
              }
              batch.records.push(read.record);
            } else if (read.kind === 'damaged') {
              batch.errors.push({
                byteOffset,
                message: read.message,
                excerpt: runLineExcerpt(text),
              });
            }
          }
          lineStart = newline + 1;
        }
        offset += lineStart;
        return batch;
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}
