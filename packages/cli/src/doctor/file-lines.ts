import * as fs from 'node:fs';

/** One line of a file: its bytes (without the `\n`), where it starts, and whether a `\n` ended it. */
export interface FileLine {
  readonly bytes: Buffer;
  /** 1-based. */
  readonly number: number;
  readonly byteOffset: number;
  /** False only for a last line the file ends in the middle of (a torn tail, or a missing `\n`). */
  readonly terminated: boolean;
}

const CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The lines of an open file, read in 1 MiB chunks (memory stays bounded by the longest line).
 * Reads up to `size` bytes: the size the caller measured, so bytes appended meanwhile are left for
 * the next check instead of being half-read.
 */
export function* fileLines(fd: number, size: number): Generator<FileLine> {
  const chunk = Buffer.allocUnsafe(CHUNK);
  let carry: Buffer[] = [];
  let offset = 0;
  let lineStart = 0;
  let number = 0;
  while (offset < size) {
    const read = fs.readSync(fd, chunk, 0, Math.min(CHUNK, size - offset), offset);
    if (read === 0) break;
    let position = 0;
    while (position < read) {
      const newline = chunk.indexOf(NEWLINE, position);
      if (newline === -1 || newline >= read) {
        carry.push(Buffer.from(chunk.subarray(position, read)));
        break;
      }
      const piece = Buffer.from(chunk.subarray(position, newline));
      const bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
      carry = [];
      number++;
      yield { bytes, number, byteOffset: lineStart, terminated: true };
      lineStart = offset + newline + 1;
      position = newline + 1;
    }
    offset += read;
  }
  if (carry.length > 0) {
    number++;
    yield { bytes: Buffer.concat(carry), number, byteOffset: lineStart, terminated: false };
  }
}
