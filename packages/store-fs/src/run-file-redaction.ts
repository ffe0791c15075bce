import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { StoredRedactor } from '@episodic/core/adapter';
import { writeFileAtomic } from './atomic-file.js';
import { fsyncDirectory } from './store-layout.js';

/** Bytes read per step while scanning a run file for redaction. */
const SCAN_CHUNK = 1024 * 1024;
/** How long a last line without its newline must stay unchanged to count as torn, not in flight. */
const FRAGMENT_SETTLE_MS = 50;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const JOURNAL_SUFFIX = '.redact';
/** Opened for reading and writing in place, never through a link. */
const REWRITE_FLAGS = fs.constants.O_RDWR | (fs.constants.O_NOFOLLOW ?? 0);

/** One in-place change: `bytes` written at `offset`, exactly as long as what they replace. */
type Patch = [offset: number, bytes: Buffer];

/**
 * The journal of a redaction, written (synced) before any byte of the run file changes: the
 * patches hold only the redacted bytes, and the file's identity guards against replaying them on
 * another file that took the same name.
 */
interface Journal {
  ino: number;
  size: number;
  patches: Array<[offset: number, base64: string]>;
}

function journalPath(path: string): string {
  return join(dirname(path), `${basename(path)}${JOURNAL_SUFFIX}`);
}

function applyPatches(fd: number, patches: readonly Patch[]): void {
  for (const [offset, bytes] of patches) {
    let written = 0;
    while (written < bytes.length) {
      written += fs.writeSync(fd, bytes, written, bytes.length - written, offset + written);
    }
  }
  fs.fdatasyncSync(fd);
}

/**
 * Finishes a redaction that a crash interrupted after its journal was written: its patches are
 * applied again (they are idempotent), then the journal is removed. A journal written for another
 * file (the run was deleted and started again) is only removed.
 */
function replayJournal(path: string, fd: number): void {
  const journal = journalPath(path);
  let text: string;
  try {
    text = fs.readFileSync(journal, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  let parsed: Journal | null = null;
  try {
    parsed = JSON.parse(text) as Journal;
  } catch {
    // A journal cut short by a crash was never complete: no byte of the file was changed yet.
  }
  const stat = fs.fstatSync(fd);
  if (parsed !== null && parsed.ino === stat.ino && stat.size >= parsed.size) {
    applyPatches(
      fd,
      parsed.patches.map(([offset, base64]) => [offset, Buffer.from(base64, 'base64')]),
    );
  }
  fs.rmSync(journal, { force: true });
  fsyncDirectory(dirname(path));
}

/** The text a line becomes, as exactly `length` bytes: padded with spaces, never longer. */
function patchFor(next: string, length: number): Buffer {
  const bytes = Buffer.alloc(length, SPACE);
  const written = bytes.write(next, 0, 'utf8');
  // `redactor.line(text, length)` fits; a line that is not valid UTF-8 decodes longer than it is
  // stored, and then nothing of it is kept.
  if (Buffer.byteLength(next, 'utf8') > written) bytes.fill('*'.charCodeAt(0));
  return bytes;
}

/**
 * Redacts a run file **in place**: each changed line is overwritten with its redaction padded to
 * its own length, so the file keeps its identity, its size and every line boundary. Writers that
 * keep the file open (other processes appending with `O_APPEND`) lose nothing, and every reader's
 * position stays valid. A journal of the new bytes is synced first, so a crash leaves each line
 * either as it was or redacted, and the next redaction of the run finishes the interrupted one.
 * Lines appended after the scan started are left for the next redaction; a last line without its
 * newline is scrubbed only once it has stopped changing (a torn write, not one in flight).
 * Calls `onLine` with every line's text (the caller collects tool output ids).
 */
export async function redactRunFileInPlace(
  path: string,
  redactor: StoredRedactor,
  onLine: (text: string) => void,
): Promise<number> {
  const fd = fs.openSync(path, REWRITE_FLAGS);
  try {
    replayJournal(path, fd);
    const { size } = fs.fstatSync(fd);
    const patches: Patch[] = [];
    const consider = (bytes: Buffer, offset: number) => {
      const text = bytes.toString('utf8');
      onLine(text);
      const next = redactor.line(text, bytes.length);
      if (next !== text) patches.push([offset, patchFor(next, bytes.length)]);
    };
    const chunk = Buffer.allocUnsafe(SCAN_CHUNK);
    let carry: Buffer[] = [];
    let lineStart = 0;
    for (let offset = 0; offset < size; ) {
      const read = fs.readSync(fd, chunk, 0, Math.min(SCAN_CHUNK, size - offset), offset);
      if (read === 0) break;
      let position = 0;
      for (;;) {
        const end = chunk.indexOf(NEWLINE, position);
        if (end === -1 || end >= read) {
          carry.push(Buffer.from(chunk.subarray(position, read)));
          break;
        }
        consider(Buffer.concat([...carry, chunk.subarray(position, end)]), lineStart);
        carry = [];
        lineStart = offset + end + 1;
        position = end + 1;
      }
      offset += read;
    }
    const fragment = Buffer.concat(carry);
    if (fragment.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, FRAGMENT_SETTLE_MS));
      const again = Buffer.alloc(fragment.length);
      const read = fs.readSync(fd, again, 0, fragment.length, lineStart);
      if (fs.fstatSync(fd).size === size && read === fragment.length && again.equals(fragment)) {
        consider(fragment, lineStart);
      }
    }
    if (patches.length === 0) return 0;
    const journal: Journal = {
      ino: fs.fstatSync(fd).ino,
      size,
      patches: patches.map(([offset, bytes]) => [offset, bytes.toString('base64')]),
    };
    writeFileAtomic(dirname(path), basename(journalPath(path)), JSON.stringify(journal), true);
    applyPatches(fd, patches);
    fs.rmSync(journalPath(path), { force: true });
    fsyncDirectory(dirname(path));
    return patches.length;
  } finally {
    fs.closeSync(fd);
  }
}
