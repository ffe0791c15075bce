import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  type ErasureEntry,
  lineCommitment,
  parseChainLine,
  type Sha256,
  type StoredRedactor,
} from '@episodic/core/adapter';
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
  /** The erasure entry of a chained run's redaction: appended to the erasure log before the patches. */
  erasure?: ErasureEntry;
}

/**
 * What redacting a chained run needs (docs/design/verify.md 1.5): each changed line keeps its `n`
 * and `c`, its salt slot `"s":"…"` becomes `"r":"<erasure id>"` (the same length), and one erasure
 * entry lists the lines (`n`, `c`, the hash of the new bytes) before any line changes.
 */
export interface ChainedRedaction {
  readonly sha256: Sha256;
  /** A fresh erasure id (16 random bytes, base64url). */
  newId(): string;
  /** The erasure entry of this redaction (the caller adds when, by what, the mode). */
  entry(
    id: string,
    stream: string,
    entries: Array<{ n: number; c: string; after: string }>,
    altered: boolean,
  ): ErasureEntry;
  /** Appends the entry to the erasure log, synced, unless one with its id is there already. */
  append(entry: ErasureEntry): Promise<void>;
}

/** A chained line a redaction changes, held until the erasure id is drawn. */
interface ChainedChange {
  readonly offset: number;
  readonly bytes: Buffer;
  readonly member: Extract<ReturnType<typeof parseChainLine>, { kind: 'chained' }>;
  /** The record's redacted JSON text (without the member). */
  readonly record: string;
}

const SLOT = /,"[sr]":"[A-Za-z0-9_-]{22}"/;
const CLOSE_BRACE = Buffer.from('}');

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
async function replayJournal(
  path: string,
  fd: number,
  chained: ChainedRedaction | undefined,
): Promise<void> {
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
    // The order of the first run: the erasure entry (once), then the lines.
    if (parsed.erasure !== undefined && chained !== undefined) await chained.append(parsed.erasure);
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
  chained?: ChainedRedaction,
): Promise<number> {
  const fd = fs.openSync(path, REWRITE_FLAGS);
  try {
    await replayJournal(path, fd, chained);
    const { size } = fs.fstatSync(fd);
    const patches: Patch[] = [];
    const changes: ChainedChange[] = [];
    let streamKey: string | undefined;
    const consider = (bytes: Buffer, offset: number) => {
      const text = bytes.toString('utf8');
      onLine(text);
      if (chained !== undefined) {
        const member = parseChainLine(bytes);
        if (member.kind === 'chained') {
          if (member.k !== undefined) streamKey ??= member.k;
          // Only the record is redacted, never its member: a changed record keeps `n` and `c`.
          const recordBytes = Buffer.concat([bytes.subarray(0, member.member), CLOSE_BRACE]);
          const record = recordBytes.toString('utf8');
          const next = redactor.line(record, recordBytes.length);
          if (next !== record)
            changes.push({ offset, bytes: Buffer.from(bytes), member, record: next });
          return;
        }
      }
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
    let erasure: ErasureEntry | undefined;
    if (chained !== undefined && changes.length > 0) {
      const id = chained.newId();
      const entries: Array<{ n: number; c: string; after: string }> = [];
      let altered = false;
      for (const { offset, bytes, member, record } of changes) {
        // Checked first: a line whose salt no longer gives its c is redacted anyway (erasure
        // comes first), and the erasure entry says it was altered.
        if (
          member.s !== undefined &&
          lineCommitment(chained.sha256, bytes, member.hashedEnd) !== member.c
        )
          altered = true;
        const memberText = bytes.subarray(member.member, member.contentEnd).toString('latin1');
        const line = `${record.slice(0, -1)}${memberText.replace(SLOT, `,"r":"${id}"`)}`;
        const lineBytes = Buffer.from(line, 'utf8');
        entries.push({
          n: member.n,
          c: member.c,
          after: lineCommitment(chained.sha256, lineBytes, lineBytes.length),
        });
        patches.push([offset, patchFor(line, bytes.length)]);
      }
      if (streamKey !== undefined) erasure = chained.entry(id, streamKey, entries, altered);
    }
    if (patches.length === 0) return 0;
    const journal: Journal = {
      ino: fs.fstatSync(fd).ino,
      size,
      patches: patches.map(([offset, bytes]) => [offset, bytes.toString('base64')]),
      ...(erasure === undefined ? {} : { erasure }),
    };
    writeFileAtomic(dirname(path), basename(journalPath(path)), JSON.stringify(journal), true);
    // Section 6's order: journal synced, erasure entry appended, lines patched, journal removed.
    if (erasure !== undefined) await (chained as ChainedRedaction).append(erasure);
    applyPatches(fd, patches);
    fs.rmSync(journalPath(path), { force: true });
    fsyncDirectory(dirname(path));
    return patches.length;
  } finally {
    fs.closeSync(fd);
  }
}
