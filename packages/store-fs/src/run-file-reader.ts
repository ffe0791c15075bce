import { isUtf8 } from 'node:buffer';
import type { RunReadResult, RunTailResult } from '@episodic/core';
import {
  createRunReadCollector,
  createRunTailCollector,
  isBlankRunLine,
  type RunReadAfterResult,
  type RunReadCollector,
  runLineExcerpt,
} from '@episodic/core/adapter';
import type { FsIo } from './fs-io.js';
import { openRegularFile } from './store-layout.js';

/** Bytes read per call when reading a whole run. */
const READ_CHUNK = 1024 * 1024;
/** Bytes read per call when reading backwards for a tail. */
const TAIL_BLOCK = 64 * 1024;
/** Bytes read per call when looking for the end of the first line. */
const FIRST_LINE_CHUNK = 64 * 1024;
/** The first read of a first line: a usual header fits (and comes from Node's buffer pool). */
const FIRST_LINE_PROBE = 2 * 1024;
/** A first line longer than this is not a header anyone wrote (it is damage). */
export const MAX_HEADER_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Decodes one line. Invalid UTF-8 (a write cut in the middle of a character, or bytes of another
 * file) would silently become U+FFFD, so a line holding U+FFFD is checked and marked.
 */
function decodeLine(
  bytes: Buffer,
  start: number,
  end: number,
): { text: string; invalidUtf8: boolean } {
  const text = bytes.toString('utf8', start, end);
  if (!text.includes('\uFFFD')) return { text, invalidUtf8: false };
  return { text, invalidUtf8: !isUtf8(bytes.subarray(start, end)) };
}

/** Where a scan of a run file starts (or ended): a line boundary and what lies before it. */
export interface RunFileMark {
  /** Byte offset just after the last complete line before it (0: the start of the file). */
  offset: number;
  /** How many lines (blank ones included) lie before it. */
  line: number;
  /** How many entries (complete, non-blank lines) lie before it: the run's position there. */
  position: number;
}

/** The start of a file. */
export const FILE_START: RunFileMark = { offset: 0, line: 0, position: 0 };

/**
 * Scans a run file from `start` to its end, line by line: `onLine` gets every complete line, and
 * the last line when it has no newline yet (`complete` false). Returns the mark after the last
 * complete line. Lines are decoded only when `onLine` asks for text (`decode` true) or to tell a
 * blank line from an entry; a line starting with `{` is an entry without decoding.
 */
function scanRunFile(
  io: FsIo,
  fd: number,
  start: RunFileMark,
  onLine: (bytes: Buffer, begin: number, end: number, mark: RunFileMark, complete: boolean) => void,
): RunFileMark {
  const mark = { ...start };
  const chunk = Buffer.allocUnsafe(READ_CHUNK);
  let carry: Buffer[] = [];
  let carryLength = 0;
  let offset = start.offset;
  for (;;) {
    const read = io.readSync(fd, chunk, 0, READ_CHUNK, offset);
    if (read === 0) break;
    let position = 0;
    while (position < read) {
      const newline = chunk.indexOf(NEWLINE, position);
      if (newline === -1 || newline >= read) {
        const rest = Buffer.from(chunk.subarray(position, read));
        carry.push(rest);
        carryLength += rest.length;
        break;
      }
      if (carryLength > 0) {
        carry.push(chunk.subarray(position, newline));
        const line = Buffer.concat(carry);
        carry = [];
        carryLength = 0;
        onLine(line, 0, line.length, mark, true);
      } else {
        onLine(chunk, position, newline, mark, true);
      }
      mark.offset = offset + newline + 1;
      position = newline + 1;
    }
    offset += read;
  }
  if (carryLength > 0) {
    const line = Buffer.concat(carry);
    onLine(line, 0, line.length, mark, false);
  }
  return mark;
}

/** True when a stored line is an entry (not blank); decodes only lines not starting with `{`. */
function isEntry(bytes: Buffer, begin: number, end: number, lineNumber: number): boolean {
  if (end > begin && bytes[begin] === 0x7b) return true;
  return !isBlankRunLine(bytes.toString('utf8', begin, end), lineNumber === 1);
}

/** Feeds one line to a collector, reporting a line that is not valid UTF-8 as damaged. */
function feedLine(
  collector: RunReadCollector,
  bytes: Buffer,
  begin: number,
  end: number,
  lineNumber: number,
  byteOffset: number,
  complete: boolean,
): void {
  const { text, invalidUtf8 } = decodeLine(bytes, begin, end);
  if (invalidUtf8) {
    collector.error(
      {
        line: lineNumber,
        byteOffset,
        message: 'the line is not valid UTF-8',
        excerpt: runLineExcerpt(text),
      },
      complete,
    );
    return;
  }
  collector.line(text, lineNumber, byteOffset, complete);
}

/**
 * Reads a whole run file tolerantly, in 1 MiB chunks, decoding line by line. Returns the result
 * and the mark after its last complete line (where a later `readRunFileAfter` can start).
 */
export function readRunFile(
  io: FsIo,
  path: string,
  runId: string,
): { result: RunReadResult; end: RunFileMark; ino: number | undefined } {
  const collector = createRunReadCollector(runId);
  const fd = openRegularFile(io, path);
  try {
    const { ino } = io.fstatSync(fd);
    const end = scanRunFile(io, fd, FILE_START, (bytes, begin, stop, mark, complete) => {
      const lineNumber = mark.line + 1;
      feedLine(collector, bytes, begin, stop, lineNumber, mark.offset, complete);
      if (complete) {
        mark.line = lineNumber;
        mark.position = collector.position;
      }
    });
    return { result: collector.result(), end, ino };
  } finally {
    io.closeSync(fd);
  }
}

/**
 * Reads what follows entry `position` of a run file. `from` is a known mark at or before it (the
 * file start, or where an earlier read ended): the lines between are only counted, never parsed.
 * Returns null when the file holds fewer than `position` entries; otherwise the result (an
 * incomplete last line is left for a later read) and the mark after the last complete line.
 */
export function readRunFileAfter(
  io: FsIo,
  path: string,
  runId: string,
  from: RunFileMark,
  position: number,
):
  | { result: RunReadAfterResult; end: RunFileMark; ino: number | undefined }
  | { entries: number; ino: number | undefined } {
  const collector = createRunReadCollector(runId, position);
  const fd = openRegularFile(io, path);
  try {
    const { ino } = io.fstatSync(fd);
    const end = scanRunFile(io, fd, from, (bytes, begin, stop, mark, complete) => {
      const lineNumber = mark.line + 1;
      if (mark.position < position) {
        if (!complete) return;
        mark.line = lineNumber;
        if (isEntry(bytes, begin, stop, lineNumber)) mark.position++;
        return;
      }
      feedLine(collector, bytes, begin, stop, lineNumber, mark.offset, complete);
      if (complete) {
        mark.line = lineNumber;
        mark.position = collector.position;
      }
    });
    if (end.position < position) return { entries: end.position, ino };
    // The header as this very file holds it: one small read, so a caller can tell the run's
    // scope without opening it again.
    const { line } = readFirstLineAt(io, fd);
    return { result: { ...collector.resultAfter(), headerLine: line }, end, ino };
  } finally {
    io.closeSync(fd);
  }
}

/**
 * Counts the entries of an open run file from `from` to its end. Returns the mark after the last
 * complete line and whether an incomplete last line that is not blank follows it (an append will
 * terminate it, making it one more entry).
 */
export function markRunFileEnd(
  io: FsIo,
  fd: number,
  from: RunFileMark,
): { end: RunFileMark; fragment: boolean } {
  let fragment = false;
  const end = scanRunFile(io, fd, from, (bytes, begin, stop, mark, complete) => {
    const lineNumber = mark.line + 1;
    const entry = isEntry(bytes, begin, stop, lineNumber);
    if (!complete) {
      fragment = entry;
      return;
    }
    mark.line = lineNumber;
    if (entry) mark.position++;
  });
  return { end, fragment };
}

/**
 * Reads the last `count` records of a run file by reading backwards in 64 KiB blocks: the cost
 * depends on the size of those records, not on the size of the file.
 */
export function tailRunFile(io: FsIo, path: string, runId: string, count: number): RunTailResult {
  const fd = openRegularFile(io, path);
  try {
    const result = tailRunFileAt(io, fd, io.fstatSync(fd).size, runId, count);
    return { ...result, headerLine: readFirstLineAt(io, fd).line };
  } finally {
    io.closeSync(fd);
  }
}

/**
 * `tailRunFile` over an open run file, counting only the bytes before `end` (a follower passes
 * the end of the last complete line, so a record still being written is read later). Reads
 * backwards in 64 KiB blocks; leaves `fd` open.
 */
export function tailRunFileAt(
  io: Pick<FsIo, 'readSync'>,
  fd: number,
  end: number,
  runId: string,
  count: number,
): RunTailResult {
  const collector = createRunTailCollector(runId, count);
  let position = end;
  // The bytes of the line being assembled (it started before the block just read), in file order.
  let partial: Buffer[] = [];
  let done = false;
  const emit = (bytes: Buffer, byteOffset: number, isFirstLine: boolean): boolean => {
    const { text, invalidUtf8 } = decodeLine(bytes, 0, bytes.length);
    if (invalidUtf8) {
      collector.errorFromEnd({
        byteOffset,
        message: 'the line is not valid UTF-8',
        excerpt: runLineExcerpt(text),
      });
      return false;
    }
    return collector.lineFromEnd(text, isFirstLine, { byteOffset });
  };
  while (position > 0 && !done) {
    const start = Math.max(0, position - TAIL_BLOCK);
    const block = Buffer.allocUnsafe(position - start);
    let filled = 0;
    while (filled < block.length) {
      const read = io.readSync(fd, block, filled, block.length - filled, start + filled);
      if (read === 0) break;
      filled += read;
    }
    let cursor = filled - 1;
    while (cursor >= -1) {
      const newline = cursor < 0 ? -1 : block.lastIndexOf(NEWLINE, cursor);
      if (newline === -1) {
        partial.unshift(block.subarray(0, cursor + 1));
        break;
      }
      const line = Buffer.concat([block.subarray(newline + 1, cursor + 1), ...partial]);
      partial = [];
      if (emit(line, start + newline + 1, false)) {
        done = true;
        break;
      }
      cursor = newline - 1;
    }
    position = start;
  }
  if (!done && position === 0) emit(Buffer.concat(partial), 0, true);
  return collector.result();
}

/**
 * The first line of a file (without its `\n`), read in 64 KiB steps so headers of any size up to
 * `MAX_HEADER_BYTES` work. Returns `{ line, complete }`; `complete` is false when the file ends (or
 * the cap is reached) before a newline.
 */
export function readFirstLine(io: FsIo, path: string): { line: string; complete: boolean } {
  const fd = openRegularFile(io, path);
  try {
    return readFirstLineAt(io, fd);
  } finally {
    io.closeSync(fd);
  }
}

/**
 * `readFirstLine` over an open file (leaves `fd` open): a first small read, which holds a usual
 * header whole, then 64 KiB steps.
 */
export function readFirstLineAt(
  io: Pick<FsIo, 'readSync'>,
  fd: number,
): { line: string; complete: boolean } {
  const chunks: Buffer[] = [];
  let offset = 0;
  let size = FIRST_LINE_PROBE;
  while (offset < MAX_HEADER_BYTES) {
    const chunk = Buffer.allocUnsafe(size);
    const read = io.readSync(fd, chunk, 0, size, offset);
    if (read === 0) break;
    const newline = chunk.indexOf(NEWLINE);
    if (newline !== -1 && newline < read) {
      chunks.push(chunk.subarray(0, newline));
      return { line: Buffer.concat(chunks).toString('utf8'), complete: true };
    }
    chunks.push(chunk.subarray(0, read));
    offset += read;
    size = FIRST_LINE_CHUNK;
  }
  return { line: Buffer.concat(chunks).toString('utf8'), complete: false };
}
