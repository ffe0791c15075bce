import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { runLineExcerpt } from '@episodic/core/adapter';
import { classifyRunLine } from './classify-run-line.js';
import { fileLines } from './file-lines.js';
import { entryAt, notARegularFile } from './home-layout.js';
import type { Quarantine } from './quarantine.js';

/** One problem doctor found in a run file. */
export interface RunFileProblem {
  /** 1-based line, when the problem is a line. */
  readonly line?: number;
  readonly byteOffset?: number;
  readonly message: string;
  /** The start of the damaged line, JSON-quoted. */
  readonly excerpt?: string;
  /** Whether `--fix` can repair it without losing a readable record. */
  readonly fixable: boolean;
}

/** What doctor found in one run file. */
export interface RunFileCheck {
  readonly path: string;
  /** Readable records (salvaged ones included). */
  readonly records: number;
  readonly problems: RunFileProblem[];
  /** The file as it was read, so a repair can tell whether it changed since. */
  readonly identity: { size: number; mtimeMs: number; ino: number } | null;
}

const RUN_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/;
/** `O_NONBLOCK`: a FIFO swapped in after the `lstat` still cannot block the open (see below). */
const READ_FLAGS =
  fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads a run file line by line with core's tolerant reader and lists every problem. Anything but
 * a regular file (a FIFO, a socket, a directory, a symbolic link) is reported without being opened.
 */
export function checkRunFile(home: string, path: string): RunFileCheck {
  const name = basename(path);
  const problems: RunFileProblem[] = [];
  if (!RUN_FILE.test(name)) {
    problems.push({
      message: 'the file name is not a lowercase run id (<uuid>.jsonl), so no store reads it',
      fixable: false,
    });
  }
  const special = notARegularFile(home, path, entryAt(path));
  if (special !== null) {
    problems.push({ message: special, fixable: false });
    return { path, records: 0, problems, identity: null };
  }
  let fd: number;
  try {
    fd = fs.openSync(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push({
      message:
        code === 'ELOOP'
          ? 'it is a symbolic link, which the store refuses to follow'
          : `it cannot be read (${code ?? String(error)})`,
      fixable: false,
    });
    return { path, records: 0, problems, identity: null };
  }
  try {
    const stat = fs.fstatSync(fd);
    const identity = { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
    if (!stat.isFile()) {
      problems.push({
        message: 'it is not a regular file (it was replaced while doctor read it)',
        fixable: false,
      });
      return { path, records: 0, problems, identity: null };
    }
    if (stat.size === 0) {
      problems.push({
        message: 'the file is empty (its writer stopped before the header)',
        fixable: true,
      });
      return { path, records: 0, problems, identity };
    }
    let records = 0;
    let first = true;
    const runId = name.slice(0, -'.jsonl'.length);
    for (const line of fileLines(fd, stat.size)) {
      const verdict = classifyRunLine(line);
      if (verdict.kind === 'blank') continue;
      const excerpt = runLineExcerpt(line.bytes.toString('utf8'));
      const at = { line: line.number, byteOffset: line.byteOffset };
      if (verdict.kind === 'damaged') {
        problems.push({ ...at, message: verdict.message, excerpt, fixable: true });
        if (first)
          problems.push({
            ...at,
            message: 'the header line is damaged: the run is read without its header',
            fixable: false,
          });
        first = false;
        continue;
      }
      records++;
      if (verdict.kind === 'salvaged') {
        problems.push({
          ...at,
          message: `${verdict.message} (the record is readable and kept)`,
          excerpt,
          fixable: true,
        });
      }
      if (first) {
        if (verdict.record.type !== 'header') {
          problems.push({
            ...at,
            message: `the first record is ${verdict.record.type}, not a header: the run is read best-effort`,
            fixable: false,
          });
        } else if (RUN_FILE.test(name) && String(verdict.record.run_id).toLowerCase() !== runId) {
          problems.push({
            ...at,
            message: `the header names run ${String(verdict.record.run_id)}, not ${runId}`,
            fixable: false,
          });
        }
      }
      first = false;
      if (!line.terminated) {
        problems.push({
          ...at,
          message: 'the last record has no final newline (the next append would be glued to it)',
          fixable: true,
        });
      }
    }
    return { path, records, problems, identity };
  } finally {
    fs.closeSync(fd);
  }
}

/** What a repair did. */
export type RunFileRepair =
  | { readonly outcome: 'rewritten'; readonly kept: number; readonly quarantined: number }
  | { readonly outcome: 'quarantined' }
  | { readonly outcome: 'changed' };

function sameFile(path: string, identity: { size: number; mtimeMs: number; ino: number }): boolean {
  try {
    const stat = fs.lstatSync(path);
    return (
      stat.size === identity.size && stat.mtimeMs === identity.mtimeMs && stat.ino === identity.ino
    );
  } catch {
    return false;
  }
}

/**
 * Repairs a run file: every readable record is kept (byte for byte, or cleaned of NUL padding),
 * damaged lines are saved to the quarantine first, then the file is replaced atomically (temp
 * file + fsync + rename + directory fsync). A file with no readable record is moved to the
 * quarantine whole. If the file changed since it was checked (a writer is active), nothing is
 * touched and `changed` is returned.
 */
export function repairRunFile(check: RunFileCheck, quarantine: Quarantine): RunFileRepair {
  const { path, identity } = check;
  if (identity === null || !sameFile(path, identity)) return { outcome: 'changed' };
  if (check.records === 0) {
    quarantine.moveFile(path, check.problems.map((problem) => problem.message).join('; '));
    return { outcome: 'quarantined' };
  }
  const directory = dirname(path);
  const temp = join(
    directory,
    `.${basename(path)}.doctor-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  const fd = fs.openSync(path, READ_FLAGS);
  let out: number | undefined;
  let renamed = false;
  try {
    const stat = fs.fstatSync(fd);
    out = fs.openSync(temp, 'wx', stat.mode & 0o777);
    const fragments: {
      bytes: Buffer;
      line: number;
      byteOffset: number;
      terminated: boolean;
      message: string;
    }[] = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let kept = 0;
    const flush = () => {
      if (pendingBytes === 0) return;
      fs.writeSync(out as number, Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
    };
    const keep = (bytes: Buffer) => {
      pending.push(bytes, Buffer.from('\n'));
      pendingBytes += bytes.length + 1;
      if (pendingBytes > 1024 * 1024) flush();
      kept++;
    };
    for (const line of fileLines(fd, identity.size)) {
      const verdict = classifyRunLine(line);
      if (verdict.kind === 'blank') continue;
      if (verdict.kind === 'record') {
        keep(line.bytes);
        continue;
      }
      fragments.push({
        bytes: line.bytes,
        line: line.number,
        byteOffset: line.byteOffset,
        terminated: line.terminated,
        message: verdict.message,
      });
      if (verdict.kind === 'salvaged') keep(Buffer.from(verdict.text, 'utf8'));
    }
    flush();
    fs.fsyncSync(out);
    fs.closeSync(out);
    out = undefined;
    if (!sameFile(path, identity)) return { outcome: 'changed' };
    if (fragments.length > 0) {
      quarantine.saveFragments(
        path,
        fragments,
        'damaged lines cut from a run file by doctor --fix',
      );
    }
    // Last check before the swap: a writer that appended meanwhile would lose its record.
    if (!sameFile(path, identity)) return { outcome: 'changed' };
    fs.renameSync(temp, path);
    renamed = true;
    const directoryFd = fs.openSync(directory, fs.constants.O_RDONLY);
    try {
      fs.fsyncSync(directoryFd);
    } catch {
      // A filesystem that cannot fsync a directory: the rename itself is atomic.
    } finally {
      fs.closeSync(directoryFd);
    }
    return { outcome: 'rewritten', kept, quarantined: fragments.length };
  } finally {
    if (out !== undefined) fs.closeSync(out);
    fs.closeSync(fd);
    if (!renamed) fs.rmSync(temp, { force: true });
  }
}
