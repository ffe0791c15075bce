import { randomInt } from 'node:crypto';
import { EpisodicError } from '@episodic/core';

/**
 * A session's base in `episodic_session_base_chunks`: its lines in order, grouped into rows of
 * about a mebibyte, each row whole lines and each line ending in `\n` (the base's text is the
 * rows joined in `chunk` order). A load reads the rows of its first 16 MiB with the deltas, in one
 * snapshot, and any others one at a time as core decodes them, so a base of hundreds of megabytes
 * is never held whole. Every row
 * carries the `generation` drawn anew for the write that made it (a fold keeps rows of the base
 * before it, with theirs): a row read later must still have the generation the load listed, or
 * the base was rewritten meanwhile (a fold or a save) and the load starts again, never mixing two
 * bases.
 */

/** A new write's generation: random, so rows written after a delete never reuse one. */
export function newBaseGeneration(): number {
  return randomInt(2 ** 47);
}

/** About how many characters a chunk row holds (a longer line makes a longer row). */
const BASE_CHUNK_CHARS = 1 << 20;

const NEWLINE = 0x0a;

/** The chunk rows' texts of a base given as its lines (without newlines). */
export function baseChunks(lines: readonly string[], chunkChars = BASE_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let start = 0;
  let chars = 0;
  for (let index = 0; index < lines.length; index++) {
    chars += (lines[index] as string).length + 1;
    if (chars >= chunkChars || index === lines.length - 1) {
      chunks.push(`${lines.slice(start, index + 1).join('\n')}\n`);
      start = index + 1;
      chars = 0;
    }
  }
  return chunks;
}

/**
 * Where the rows of a base a fold wrote are numbered, section by section: its first line alone,
 * its episodes (a row at `episodes + i` begins with episode `i`), the line opening its messages
 * alone, its messages (a row at `messages + j` begins with message `j`), and its last line alone.
 * A base stored otherwise (a save, or before schema 11) numbers its rows 0, 1, 2, …; either way
 * its text is the rows in `chunk` order.
 */
export const SECTION_ROWS = {
  head: 0,
  episodes: 1,
  messagesOpen: 2 ** 40,
  messages: 2 ** 40 + 1,
  close: 2 ** 41,
} as const;

/**
 * The rows of lines `from` to `to` (exclusive) of one section: each as its first line's index
 * and its text (whole lines, each ending in a newline). A row begins at `from`, at every index
 * in `cuts`, and once the one before holds about `chunkChars` characters.
 */
export function sectionRows(
  line: (index: number) => string,
  from: number,
  to: number,
  cuts: readonly number[],
  chunkChars = BASE_CHUNK_CHARS,
): Array<[first: number, text: string]> {
  const rows: Array<[number, string]> = [];
  let first = from;
  let text = '';
  for (let index = from; index < to; index++) {
    if (index > first && (text.length >= chunkChars || cuts.includes(index))) {
      rows.push([first, text]);
      first = index;
      text = '';
    }
    text += `${line(index)}\n`;
  }
  if (text !== '') rows.push([first, text]);
  return rows;
}

/**
 * A stored base text (its bytes as they are) cut into chunk rows after a newline, at about
 * `chunkBytes` each: every row but the last ends with a newline, and the rows joined give the
 * bytes back exactly.
 */
export function splitBaseBytes(bytes: Buffer, chunkBytes = BASE_CHUNK_CHARS): Buffer[] {
  const chunks: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = start + chunkBytes;
    if (end >= bytes.length) end = bytes.length;
    else {
      const newline = bytes.indexOf(NEWLINE, end - 1);
      end = newline === -1 ? bytes.length : newline + 1;
    }
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

/** Reads row `chunk` of the base of `generation`; undefined when that base is gone. */
export type ReadChunk = (chunk: number) => Buffer | undefined;

/**
 * The lines of a base of `count` chunk rows, decoded one at a time: `first` (read with the
 * deltas, in one snapshot) and then each later row through `readChunk` when the previous one is
 * used up (from the snapshot, or read then for a row past it). A row that is gone means the base was replaced while it was read: `CONFLICT`, which
 * core's store answers by loading the session again.
 */
export function chunkLines(
  sessionId: string,
  first: Buffer,
  count: number,
  readChunk: ReadChunk,
): Iterable<string> {
  return { [Symbol.iterator]: () => new ChunkLineIterator(sessionId, first, count, readChunk) };
}

/**
 * A plain iterator rather than a generator: a million-line base is read line by line, and a
 * generator's resume per line cost about an eighth of the iteration here. A line never spans two
 * rows: a row's bytes after its last newline are a line of their own.
 */
class ChunkLineIterator implements Iterator<string> {
  private chunk = 0;
  private start = 0;

  constructor(
    private readonly sessionId: string,
    private bytes: Buffer,
    private readonly count: number,
    private readonly readChunk: ReadChunk,
  ) {}

  next(): IteratorResult<string> {
    while (this.start >= this.bytes.length) {
      if (this.chunk + 1 >= this.count) return { value: undefined, done: true };
      this.chunk += 1;
      this.start = 0;
      this.bytes = this.nextChunk();
    }
    const { bytes, start } = this;
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    this.start = end + 1;
    return { value: bytes.toString('utf8', start, end), done: false };
  }

  private nextChunk(): Buffer {
    const bytes = this.readChunk(this.chunk);
    if (bytes !== undefined) return bytes;
    throw new EpisodicError({
      code: 'CONFLICT',
      message: `The base of session ${this.sessionId} was replaced (by a fold or a save) while it was being read. Load the session again.`,
      details: { sessionId: this.sessionId },
    });
  }
}
