import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import {
  EpisodicError,
  type RunDurability,
  type RunHeader,
  type RunListError,
  type RunListFilter,
  type RunListPage,
  type RunListRow,
  type RunRecordEntry,
  type RunRedactStats,
  type RunStoreAdapter,
  type StoredRedactor,
} from '@episodic/core';
import {
  assertExpectedRunHeader,
  assertExpectedRunPosition,
  type ChainState,
  type ChainWriter,
  type ChainWriterOptions,
  createChainWriter,
  type ErasureBy,
  type ErasureEntry,
  genesisHead,
  newChainState,
  parseChainLine,
  planRunAppend,
  positionBeyondEnd,
  readRunHeaderLine,
  resumeChainState,
  runChainLines,
  runChainLinesOfBytes,
  runNotFound,
  safeJsonParse,
  segmentHead,
} from '@episodic/core/adapter';
import { sweepTempFiles, writeFileAtomic } from './atomic-file.js';
import { createFsErasureLog, type FsErasureLog } from './erasure-log.js';
import { type FileLockOptions, withFileLock } from './file-lock.js';
import type { FsIo } from './fs-io.js';
import {
  FILE_START,
  markRunFileEnd,
  type RunFileMark,
  readFirstLine,
  readFirstLineAt,
  readRunFile,
  readRunFileAfter,
  tailRunFile,
} from './run-file-reader.js';
import { type ChainedRedaction, redactRunFileInPlace } from './run-file-redaction.js';
import type { RunFileWriter } from './run-file-writer.js';
import {
  dayComponents,
  fsyncDirectory,
  isPathId,
  isToolOutputId,
  openRegularFile,
  readRegularFile,
  readRegularFileBytes,
  SESSIONS_DIR,
  type StoreRoot,
  TOOL_OUTPUT_DIR,
} from './store-layout.js';

/** Options of `createFsRunStoreAdapter`. */
export interface FsRunStoreAdapterOptions {
  root: StoreRoot;
  io: FsIo;
  writer: RunFileWriter;
  durability: RunDurability;
  now: () => Date;
  /** How a compare-and-append or a redaction waits for another process holding the run's lock. */
  lock: FileLockOptions;
  /**
   * Chain every appended line (docs/design/verify.md): `true` checks a plain append's kept
   * position with one `fstat`, `'strict'` takes the run's lock for every plain append. Absent or
   * `false`: no chain.
   */
  chain?: { mode: true | 'strict'; writer: ChainWriterOptions } | undefined;
}

/** The fs run store adapter, plus what only a file store can do. */
export interface FsRunStoreAdapter extends RunStoreAdapter {
  /** The path of a run's file, or null when the run does not exist. */
  locate(runId: string, verify?: boolean): string | null;
  /** The cached full text of a tool output (`cache/tool-output/<id>.txt`), or null. */
  readToolOutput(id: string): string | null;
  /** The store's erasure log (`sessions/erasures.jsonl`), on a chaining store only. */
  readonly erasureLog?: FsErasureLog;
}

/** A record without its top-level `chain` member (what a chaining store's readers return). */
function withoutChain<Value>(record: Value): Value {
  if (typeof record !== 'object' || record === null || !Object.hasOwn(record, 'chain'))
    return record;
  const { chain: _chain, ...rest } = record as Value & { chain?: unknown };
  return rest as Value;
}

/**
 * A stored line without its chain member, as text: the record's own `JSON.stringify` text (the
 * member is written last, so cutting it leaves exactly what was appended). Other lines (an
 * unchained one, whose own nested `chain` key stays) as they are.
 */
function lineWithoutChain(line: string): string {
  if (!line.includes(',"chain":{"n":')) return line;
  const bytes = Buffer.from(line, 'utf8');
  const parsed = parseChainLine(bytes);
  return parsed.kind === 'chained' ? `${bytes.subarray(0, parsed.member).toString('utf8')}}` : line;
}

/** A read result with its records (header, header line) stripped of their chain members. */
function stripChain<
  Result extends { records: unknown[]; header?: unknown; headerLine?: string | undefined },
>(result: Result): Result {
  const stripped = { ...result, records: result.records.map(withoutChain) };
  if (result.header !== undefined && result.header !== null)
    stripped.header = withoutChain(result.header);
  if (typeof result.headerLine === 'string')
    stripped.headerLine = lineWithoutChain(result.headerLine);
  return stripped;
}

/** Where a run's chain stands for this process: after its last write, at file size `size`. */
interface KeptChain {
  readonly path: string;
  readonly size: number;
  readonly state: ChainState;
}

/** Bytes of a run's tail read first when a writer resumes its chain (4 times more each retry). */
const RESUME_CHUNK = 64 * 1024;

/**
 * The chain members a writer resumes from, out of a run's tail lines (oldest first): from the
 * line with the highest `n` (the later one of a fork), a consecutive run of `n` back to the last
 * segment boundary (`n` a multiple of 64) or the first chained line (with `k`). A line with another
 * `n` is skipped: a fork (an `n` already taken), or a racing writer's line that landed late
 * (stamped before lines that now precede it, so the last line is not always the highest).
 * `complete` says the walk reached its start.
 */
function tailMembers(lines: readonly string[]): { members: unknown[]; complete: boolean } {
  const found: Array<{ n: number; k?: unknown }> = [];
  let highest = 0;
  for (const line of lines) {
    const text = line.trimEnd();
    if (!text.endsWith('}}')) continue;
    const parsed = safeJsonParse(text);
    const chain =
      parsed.success && typeof parsed.value === 'object' && parsed.value !== null
        ? (parsed.value as { chain?: { n?: unknown; k?: unknown } }).chain
        : undefined;
    if (typeof chain?.n !== 'number') continue;
    found.push(chain as { n: number; k?: unknown });
    highest = Math.max(highest, chain.n);
  }
  const members: unknown[] = [];
  let expected = highest;
  for (let index = found.length - 1; index >= 0; index--) {
    const chain = found[index] as { n: number; k?: unknown };
    if (chain.n !== expected) continue;
    members.unshift(chain);
    expected = chain.n - 1;
    if (chain.k !== undefined || chain.n % 64 === 0) return { members, complete: true };
  }
  return { members, complete: false };
}

const RUN_SUFFIX = '.jsonl';
/** `sessions/locks/`: one lock file per run, held by compare-and-appends and redactions. */
const LOCKS_DIR = [SESSIONS_DIR, 'locks'] as const;
const YEAR = /^\d{4}$/;
const TWO_DIGITS = /^\d{2}$/;
/** How long a reader waits for the header of a run file another process has just created. */
const HEADER_WAIT_MS = 2000;

const EMPTY = Symbol('empty run file');
type StoredHeader = RunHeader | null | typeof EMPTY;

/** One day directory: its components and real path. */
interface DayDirectory {
  day: string;
  path: string;
}

function realDirectories(path: string, pattern: RegExp): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // Symbolic links are not directories here: the walk never leaves the root.
  return entries
    .filter((entry) => entry.isDirectory() && pattern.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .reverse();
}

/**
 * Run files as `sessions/YYYY/MM/DD/<run_id>.jsonl` (UTC date of the header's `started_at`).
 * Appends go through the shared writer (one write per record, serialized per file); reads are
 * tolerant; listing reads only each file's first line.
 */
export function createFsRunStoreAdapter(options: FsRunStoreAdapterOptions): FsRunStoreAdapter {
  const { root, io, writer, durability, now, lock } = options;
  const chainMode = options.chain?.mode;
  const chainWriter: ChainWriter | undefined =
    options.chain === undefined ? undefined : createChainWriter(options.chain.writer);
  /** Per run: where its chain stood after this process's last write to it. */
  const chains = new Map<string, KeptChain>();
  /** Per run: a plain append waiting for the run's lock; later plain appends queue behind it. */
  const inflight = new Map<string, Promise<number>>();
  const erasures: FsErasureLog | undefined =
    chainWriter === undefined
      ? undefined
      : createFsErasureLog({ root, chain: chainWriter, lock, sync: durability !== 'none' });
  const sha256 = options.chain?.writer.sha256;
  /** How a chained run's redaction records itself (docs/design/verify.md 1.5). */
  const chainedRedaction = (mode: string, by?: ErasureBy): ChainedRedaction | undefined =>
    chainWriter === undefined || erasures === undefined || sha256 === undefined
      ? undefined
      : {
          sha256,
          newId: () => chainWriter.randomId(),
          entry: (id, stream, entries, altered) => ({
            op: 'redact',
            at: now().toISOString(),
            by: by ?? { api: 'RunStore.redact' },
            id,
            stream,
            mode,
            ...(altered ? { was: 'altered' as const } : {}),
            entries,
          }),
          append: (entry) => erasures.append(entry),
        };
  const fsyncDirectories = durability !== 'none';
  const paths = new Map<string, string>();
  /**
   * Where the last read of each run ended (a line boundary and the position there), tied to the
   * file's identity: a later `readAfter` or compare-and-append reads on from there instead of
   * from the start. Lines never move (appends go at the end, redaction rewrites in place).
   */
  const marks = new Map<string, { ino: number; mark: RunFileMark }>();
  const remember = (runId: string, ino: number | undefined, mark: RunFileMark) => {
    if (ino === undefined) return;
    if (marks.size >= 4096 && !marks.has(runId)) marks.delete(marks.keys().next().value as string);
    marks.set(runId, { ino, mark });
  };
  /** The remembered mark of a run at or before `position`, when it is of this very file. */
  const markFor = (runId: string, ino: number | undefined, position: number): RunFileMark => {
    const known = marks.get(runId);
    return known !== undefined && known.ino === ino && known.mark.position <= position
      ? known.mark
      : FILE_START;
  };
  /** The header line `list` gives: without its chain member on a chaining store. */
  const listedHeader = (line: string): string =>
    chainWriter === undefined ? line : lineWithoutChain(line);
  const lockPath = (runId: string) =>
    join(root.directory(LOCKS_DIR, true) as string, `${runId}.lock`);

  /** Day directories, newest first, optionally limited to `[fromDay, toDay]` (YYYY/MM/DD). */
  const dayDirectories = (fromDay?: string, toDay?: string): DayDirectory[] => {
    const sessions = root.directory([SESSIONS_DIR], false);
    if (sessions === null) return [];
    const days: DayDirectory[] = [];
    for (const year of realDirectories(sessions, YEAR)) {
      if (fromDay !== undefined && year < fromDay.slice(0, 4)) continue;
      if (toDay !== undefined && year > toDay.slice(0, 4)) continue;
      for (const month of realDirectories(join(sessions, year), TWO_DIGITS)) {
        for (const dayOfMonth of realDirectories(join(sessions, year, month), TWO_DIGITS)) {
          const day = `${year}/${month}/${dayOfMonth}`;
          if (fromDay !== undefined && day < fromDay) continue;
          if (toDay !== undefined && day > toDay) continue;
          days.push({ day, path: join(sessions, year, month, dayOfMonth) });
        }
      }
    }
    return days;
  };

  /**
   * Adds run file `path` (of `runId`) to a list page: a row with its first line, or an error
   * when its name is no run id, it is not a regular file or it cannot be read. Nothing when it
   * vanished meanwhile.
   */
  const listRunFile = (
    runId: string,
    path: string,
    entry: { isFile(): boolean; isSymbolicLink(): boolean },
    page: { rows: RunListRow[]; errors: RunListError[] },
  ): void => {
    const location = root.relative(path);
    const fail = (message: string) =>
      page.errors.push({ ...(isPathId(runId) ? { runId } : {}), location, message });
    if (!isPathId(runId)) {
      fail('the file name is not a lowercase run id (UUID)');
      return;
    }
    if (!entry.isFile()) {
      fail(
        entry.isSymbolicLink()
          ? 'it is a symbolic link, which the store refuses to follow'
          : 'it is not a regular file',
      );
      return;
    }
    let head: { line: string; complete: boolean };
    try {
      head = readFirstLine(io, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') fail(`it cannot be read (${code ?? String(error)})`);
      return;
    }
    paths.set(runId, path);
    page.rows.push({ runId, header: listedHeader(head.line), location });
  };

  /**
   * The runs of `days` as list rows, one page per day directory (newest first, so later pages hold
   * older runs): each file's first line only. A run is listed once, from its newest day; another
   * file of it is reported as a copy.
   */
  function* listDays(days: DayDirectory[]): Generator<RunListPage> {
    const listed = new Map<string, string>();
    for (const { path: directory } of days) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(directory, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const page = { rows: [] as RunListRow[], errors: [] as RunListError[] };
      for (const entry of entries) {
        if (!entry.name.endsWith(RUN_SUFFIX)) continue;
        const path = join(directory, entry.name);
        const runId = entry.name.slice(0, -RUN_SUFFIX.length);
        const first = listed.get(runId);
        if (first !== undefined) {
          page.errors.push({
            ...(isPathId(runId) ? { runId } : {}),
            location: root.relative(path),
            message: `it is a second copy of run ${runId}, already listed from ${first}: it is not listed again. Keep one of the files (redaction and deletion reach both).`,
          });
          continue;
        }
        listed.set(runId, root.relative(path));
        listRunFile(runId, path, entry, page);
      }
      yield page;
    }
  }

  /**
   * The given runs as list rows, each found by its file name: its known path first, else the day
   * directories newest first (one `lstat` per day, no directory listed). The cost grows with the
   * ids, not with the store: a scoped store checks a run's header this way on every call.
   */
  const listRunIds = (runIds: ReadonlySet<string>): RunListPage => {
    const page = { rows: [] as RunListRow[], errors: [] as RunListError[] };
    const statOf = (path: string): fs.Stats | null => {
      try {
        return fs.lstatSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    };
    let days: DayDirectory[] | undefined;
    for (const runId of runIds) {
      const known = paths.get(runId);
      let found = known === undefined ? null : statOf(known);
      let path = known;
      if (found === null) {
        days ??= dayDirectories();
        for (const day of days) {
          path = join(day.path, `${runId}${RUN_SUFFIX}`);
          found = statOf(path);
          if (found !== null) break;
        }
      }
      if (found !== null && path !== undefined) listRunFile(runId, path, found, page);
    }
    return page;
  };

  /**
   * The run's file. A known path is trusted without a stat on the append path (`verify` false):
   * appends keep the descriptor open anyway, and a stat per record would cost a third of an append.
   */
  const locate = (runId: string, verify = true): string | null => {
    const cached = paths.get(runId);
    if (cached !== undefined) {
      if (!verify || fs.existsSync(cached)) return cached;
      paths.delete(runId);
    }
    for (const { path } of dayDirectories()) {
      const candidate = join(path, `${runId}${RUN_SUFFIX}`);
      if (fs.existsSync(candidate)) {
        paths.set(runId, candidate);
        return candidate;
      }
    }
    return null;
  };

  /**
   * Every file of the run, newest day first (the first is the one `locate` uses). A run file
   * copied into another day directory (by hand, by a restore) is a second copy of its records:
   * redaction and deletion reach every copy.
   */
  const locateAll = (runId: string): string[] => {
    const found: string[] = [];
    for (const { path } of dayDirectories()) {
      const candidate = join(path, `${runId}${RUN_SUFFIX}`);
      if (fs.existsSync(candidate)) found.push(candidate);
    }
    return found;
  };

  /**
   * The stored header: `null` when unreadable, `EMPTY` when the file is still empty. A file that
   * another writer has created but not yet given its header is waited for briefly, without
   * blocking (the creator may be this process); otherwise the answer is synchronous, so appends
   * keep their call order. A file that stays empty (its creator failed before writing the header)
   * can be given one.
   */
  const storedHeader = (path: string): StoredHeader | Promise<StoredHeader> => {
    const { line, complete } = readFirstLine(io, path);
    if (complete || line !== '') return withoutChain(readRunHeaderLine(line));
    const deadline = Date.now() + HEADER_WAIT_MS;
    const wait = async (): Promise<StoredHeader> => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const again = readFirstLine(io, path);
        if (again.complete || again.line !== '') return withoutChain(readRunHeaderLine(again.line));
        if (Date.now() > deadline) return EMPTY;
      }
    };
    return wait();
  };

  /** `planRunAppend` for an existing file; synchronous unless the header is still being written. */
  const plan = (
    runId: string,
    path: string,
    entries: readonly RunRecordEntry[],
  ): readonly RunRecordEntry[] | Promise<readonly RunRecordEntry[]> => {
    const decide = (stored: StoredHeader) =>
      planRunAppend(runId, stored === EMPTY ? undefined : stored, entries);
    const pending = storedHeader(path);
    return pending instanceof Promise ? pending.then(decide) : decide(pending);
  };

  const hasCachedOutput = (entry: RunRecordEntry) =>
    entry.record.type === 'tool.output' && entry.record.output_ref !== undefined;
  const toolOutputsOf = (entries: readonly RunRecordEntry[]) =>
    entries.some(hasCachedOutput) ? entries.filter(hasCachedOutput) : [];

  /** Output ids become file names: checked before anything is stored. */
  const checkToolOutputIds = (entries: readonly RunRecordEntry[]) => {
    for (const { record } of toolOutputsOf(entries)) {
      const id = (record.output_ref as { id?: unknown }).id;
      if (typeof id !== 'string' || !isToolOutputId(id)) {
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `Invalid run record: output_ref.id ${JSON.stringify(id)} must be 1–200 characters of [A-Za-z0-9_-] (seed 001: the tool_call_id with other characters replaced by _). Nothing was written.`,
          details: {
            subject: 'run record',
            issues: [
              {
                field: 'output_ref.id',
                message: 'must match [A-Za-z0-9_-]{1,200}',
                value: String(id),
              },
            ],
          },
        });
      }
    }
  };

  /** The full outputs go to the cache before the records that reference them. */
  const writeToolOutputs = (entries: readonly RunRecordEntry[]) => {
    const outputs = toolOutputsOf(entries);
    if (outputs.length === 0) return;
    const directory = root.directory(TOOL_OUTPUT_DIR, true) as string;
    for (const { record } of outputs) {
      const id = (record.output_ref as { id: string }).id;
      writeFileAtomic(directory, `${id}.txt`, String(record.result_raw), durability === 'always');
    }
  };

  // One allocation per record, the JSON encoded straight into it: `Buffer.from(json + '\n')`
  // would first flatten the concatenation into a second copy of the line.
  const bufferOf = (entry: RunRecordEntry) => {
    const { json } = entry;
    const length = Buffer.byteLength(json, 'utf8');
    const buffer = Buffer.allocUnsafe(length + 1);
    buffer.write(json, 0, length, 'utf8');
    buffer[length] = 0x0a;
    return buffer;
  };
  const needsSync = (entries: readonly RunRecordEntry[]) =>
    durability === 'always' ||
    (durability === 'run' && entries.some((entry) => entry.record.type === 'run.end'));

  const createRun = (runId: string, header: RunHeader): string | null => {
    const directory = root.directory(
      [SESSIONS_DIR, ...dayComponents(header.started_at, now)],
      true,
    ) as string;
    const path = join(directory, `${runId}${RUN_SUFFIX}`);
    try {
      writer.create(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw error;
    }
    paths.set(runId, path);
    if (fsyncDirectories) fsyncDirectory(directory);
    return path;
  };

  /** The `output_ref.id` of a stored line, when it is a `tool.output` that has one. */
  const outputIdOf = (text: string): string | undefined => {
    if (!text.includes('"output_ref"')) return undefined;
    const parsed = safeJsonParse(text.replace(/^\0+|\0+$/g, ''));
    if (!parsed.success) return undefined;
    const record = parsed.value as { type?: unknown; output_ref?: { id?: unknown } } | null;
    const id = record?.type === 'tool.output' ? record.output_ref?.id : undefined;
    return typeof id === 'string' && isToolOutputId(id) ? id : undefined;
  };

  /**
   * Redacts a run in place (see `redactRunFileInPlace`), then the cached full text of each of its
   * tool outputs, replaced atomically.
   */
  const redactRun = async (path: string, redactor: StoredRedactor): Promise<RunRedactStats> => {
    // Temp files of journals that died before their rename; they hold only redacted bytes.
    sweepTempFiles(dirname(path));
    const outputIds = new Set<string>();
    const changedLines = await redactRunFileInPlace(
      path,
      redactor,
      (text) => {
        const id = outputIdOf(text);
        if (id !== undefined) outputIds.add(id);
      },
      chainedRedaction(redactor.mode, redactor.by),
    );
    const stats: RunRedactStats = { changedLines, changedToolOutputs: 0 };
    const outputs = outputIds.size === 0 ? null : root.directory(TOOL_OUTPUT_DIR, false);
    if (outputs !== null) {
      sweepTempFiles(outputs);
      for (const id of outputIds) {
        let text: string;
        try {
          text = readRegularFile(join(outputs, `${id}.txt`));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw error;
        }
        const next = redactor.text(text);
        if (next === text) continue;
        writeFileAtomic(outputs, `${id}.txt`, next, true);
        stats.changedToolOutputs++;
      }
    }
    return stats;
  };

  /**
   * The run's position now: the remembered mark moved on to the file's end. Also says whether a
   * last line without its newline follows (an append will terminate it: one more entry).
   */
  const measure = (
    runId: string,
    path: string,
    withHeader: boolean,
  ): { position: number; fragment: boolean; headerLine?: string } => {
    const fd = openRegularFile(io, path, root.relative(path));
    try {
      const { ino } = io.fstatSync(fd);
      const { end, fragment } = markRunFileEnd(
        io,
        fd,
        markFor(runId, ino, Number.MAX_SAFE_INTEGER),
      );
      remember(runId, ino, end);
      if (!withHeader) return { position: end.position, fragment };
      // From the file just measured: the header of the run the position is of.
      return {
        position: end.position,
        fragment,
        headerLine: listedHeader(readFirstLineAt(io, fd).line),
      };
    } finally {
      io.closeSync(fd);
    }
  };

  /**
   * Reads run `runId` with `read`, trying its known path first without a stat (the open tells
   * whether it is still there); when that file is gone, the run is located again. Null when the
   * run does not exist.
   */
  const readKnown = <Result>(runId: string, read: (path: string) => Result): Result | null => {
    const attempt = (path: string): { result: Result } | null => {
      try {
        return { result: read(path) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    };
    const known = locate(runId, false);
    if (known === null) return null;
    const first = attempt(known);
    if (first !== null) return first.result;
    paths.delete(runId);
    const path = locate(runId);
    return path === null ? null : (attempt(path)?.result ?? null);
  };

  /** The file was deleted (by another process) since its path was cached. */
  const deletedMeanwhile = (runId: string, error: unknown): never => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      paths.delete(runId);
      if (locate(runId) === null) throw runNotFound(runId);
    }
    throw error;
  };

  /**
   * The stored lines of `toWrite` stamped with their chain members from `kept` (every line first:
   * a refused record, one carrying its own `chain`, writes nothing), and the chain after them.
   */
  const stamp = (
    chainer: ChainWriter,
    kept: KeptChain,
    toWrite: readonly RunRecordEntry[],
  ): { buffers: Buffer[]; after: KeptChain } => {
    let state = kept.state;
    let size = kept.size;
    const buffers: Buffer[] = [];
    for (const entry of toWrite) {
      // The last line a writer writes before a run ends stores the head (section 1.4).
      const stamped = chainer.stampLine(state, entry.json, {
        head: entry.record.type === 'run.end',
      });
      const buffer = bufferOf({ json: stamped.line } as RunRecordEntry);
      buffers.push(buffer);
      size += buffer.length;
      state = stamped.state;
    }
    return { buffers, after: { path: kept.path, size, state } };
  };

  /**
   * Writes planned entries (stamped from `kept` on a chaining store); a number when they were
   * written at once, else a promise of it.
   */
  const write = (
    runId: string,
    path: string,
    toWrite: readonly RunRecordEntry[],
    kept?: KeptChain,
  ): number | Promise<number> => {
    if (toWrite.length === 0) return 0;
    let buffers: Buffer[];
    if (chainWriter !== undefined && kept !== undefined) {
      const stamped = stamp(chainWriter, kept, toWrite);
      buffers = stamped.buffers;
      // Kept before the write: the next append of this process continues from it at once, even
      // while this one is queued for a sync.
      chains.set(runId, stamped.after);
    } else buffers = toWrite.map(bufferOf);
    writeToolOutputs(toWrite);
    let pending: Promise<void> | undefined;
    try {
      pending = writer.append(path, buffers, needsSync(toWrite));
    } catch (error) {
      chains.delete(runId);
      return deletedMeanwhile(runId, error);
    }
    if (pending === undefined) return toWrite.length;
    return pending.then(
      () => toWrite.length,
      (error: unknown) => {
        chains.delete(runId);
        return deletedMeanwhile(runId, error);
      },
    );
  };

  /**
   * The kept chain of a run when it still holds: this process wrote last (one `fstat` says the
   * file has the size it left), or its own appends are still queued. Undefined otherwise.
   */
  const keptChain = (runId: string, path: string): KeptChain | undefined => {
    const kept = chains.get(runId);
    if (kept === undefined || kept.path !== path) return undefined;
    if (!writer.idle(path)) return kept;
    try {
      return writer.size(path) === kept.size ? kept : undefined;
    } catch {
      return undefined;
    }
  };

  /**
   * The chain of a run as its file holds it now, read from its tail (the slow path of section 3:
   * another process appended). Called under the run's lock, with this process's appends drained.
   */
  const resumeChain = (runId: string, path: string): KeptChain => {
    const fd = openRegularFile(io, path, root.relative(path));
    try {
      const { size } = io.fstatSync(fd);
      let members: unknown[] = [];
      // The tail, read backwards in growing windows until it holds the members since the last
      // segment boundary (or the first chained line), at most 63 lines and some forks.
      for (let window = RESUME_CHUNK; ; window *= 4) {
        const start = Math.max(0, size - window);
        const bytes = Buffer.alloc(size - start);
        io.readSync(fd, bytes, 0, bytes.length, start);
        const lines = bytes.toString('utf8').split('\n');
        if (start > 0) lines.shift();
        const found = tailMembers(lines);
        members = found.members;
        if (found.complete || start === 0) break;
      }
      // A torn fragment gets its newline from the writer before the next line (one byte more).
      const fragment = size > 0 && lastByte(fd, size) !== 0x0a;
      let state: ChainState | undefined;
      if (members.length > 0) {
        try {
          const first = members[0] as { k?: unknown };
          state = resumeChainState(
            members,
            typeof first.k === 'string' ? first.k : streamKey(fd, path),
          );
        } catch {
          state = undefined;
        }
      }
      if (state === undefined) {
        // No chained line (a run written before chaining) or a tail that does not resume (a
        // damaged one): the chain starts after the entries the file holds.
        const { position, fragment: torn } = measure(runId, path, false);
        state = newChainState(position + (torn ? 1 : 0));
      }
      return { path, size: size + (fragment ? 1 : 0), state };
    } finally {
      io.closeSync(fd);
    }
  };

  /**
   * The run's stream key: on its first chained line, the header's in a run chained from its
   * start; else (a run begun before chaining) the first line that carries one.
   */
  const streamKey = (fd: number, path: string): string | null => {
    const keyOf = (line: string): string | null => {
      const parsed = safeJsonParse(line.trimEnd());
      const chain =
        parsed.success && typeof parsed.value === 'object' && parsed.value !== null
          ? (parsed.value as { chain?: { k?: unknown } }).chain
          : undefined;
      return typeof chain?.k === 'string' ? chain.k : null;
    };
    const fromHeader = keyOf(readFirstLineAt(io, fd).line);
    if (fromHeader !== null) return fromHeader;
    for (const { text } of runChainLines(readRegularFile(path, root.relative(path)))) {
      if (!text.includes('"k":"')) continue;
      const key = keyOf(text);
      if (key !== null) return key;
    }
    return null;
  };

  const lastByte = (fd: number, size: number): number => {
    const probe = Buffer.alloc(1);
    io.readSync(fd, probe, 0, 1, size - 1);
    return probe[0] as number;
  };

  /** The chain to stamp from, under the run's lock: the kept one, else resumed from the tail. */
  const chainUnderLock = (runId: string, path: string): KeptChain | undefined => {
    if (chainWriter === undefined) return undefined;
    return keptChain(runId, path) ?? resumeChain(runId, path);
  };

  /** An append that creates the run or carries a header (both may wait for another writer). */
  const appendSlowly = async (
    runId: string,
    known: string | null,
    entries: readonly RunRecordEntry[],
  ): Promise<number> => {
    let path = known;
    let toWrite: readonly RunRecordEntry[];
    if (path === null) {
      toWrite = planRunAppend(runId, undefined, entries);
      path = createRun(runId, toWrite[0]?.record as RunHeader);
      if (path === null) {
        // Another process created the run between our lookup and our create.
        path = locate(runId) as string;
        const planned = plan(runId, path, entries);
        toWrite = planned instanceof Promise ? await planned : planned;
      }
    } else {
      const planned = plan(runId, path, entries);
      toWrite = planned instanceof Promise ? await planned : planned;
    }
    return write(runId, path, toWrite, chainUnderLock(runId, path));
  };

  /**
   * A plain append on a chaining store. The common case (a known run this process wrote last, no
   * header, not `strict`) stamps from the kept chain and writes at once; anything else takes the
   * run's lock and resumes the chain from the file's tail. Appends of this process to one run
   * keep their call order: while one waits for the lock, later ones wait behind it.
   */
  const appendChained = (
    runId: string,
    entries: readonly RunRecordEntry[],
  ): number | Promise<number> => {
    const waiting = inflight.get(runId);
    if (waiting !== undefined) {
      const next = () => appendChained(runId, entries);
      return waiting.then(next, next);
    }
    const known = locate(runId, false);
    if (chainMode !== 'strict' && known !== null && entries[0]?.record.type !== 'header') {
      const kept = keptChain(runId, known);
      if (kept !== undefined) return write(runId, known, planRunAppend(runId, null, entries), kept);
    }
    const done: Promise<number> = withFileLock(lockPath(runId), lock, async () => {
      const path = known === null ? null : locate(runId);
      if (path !== null) await writer.drain(path);
      return appendSlowly(runId, path, entries);
    }).finally(() => {
      if (inflight.get(runId) === done) inflight.delete(runId);
    });
    inflight.set(runId, done);
    return done;
  };

  /** Deletes every file of the run. */
  const deleteFiles = (runId: string, first: string): boolean => {
    chains.delete(runId);
    paths.delete(runId);
    marks.delete(runId);
    let deleted = false;
    for (const path of new Set([first, ...locateAll(runId)])) {
      writer.forget(path);
      try {
        fs.unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      deleted = true;
      if (fsyncDirectories) {
        fsyncDirectory(path.slice(0, path.length - runId.length - RUN_SUFFIX.length - 1));
      }
    }
    return deleted;
  };

  /**
   * A chained run's deletion (`runs gc`, `runs delete`): a `collect` entry naming its stream key,
   * its last `n` and `head(n)` goes to the erasure log first, then the files (section 6), so an
   * anchor that names the stream verifies as collected, not deleted.
   */
  const collectThenDelete = (runId: string, first: string, by?: ErasureBy): Promise<boolean> =>
    withFileLock(lockPath(runId), lock, async () => {
      await writer.drain(first);
      const { state } = resumeChain(runId, first);
      if (state.key !== null && erasures !== undefined && sha256 !== undefined) {
        const previous = state.head ?? genesisHead(sha256, state.key);
        const h =
          state.open.length === 0 ? previous : segmentHead(sha256, previous, state.n, state.open);
        const entry: ErasureEntry = {
          op: 'collect',
          at: now().toISOString(),
          by: by ?? { api: 'RunStore.delete' },
          id: (chainWriter as ChainWriter).randomId(),
          stream: state.key,
          reason: 'deletion',
          through: { n: state.n, h },
        };
        await erasures.append(entry);
      }
      return deleteFiles(runId, first);
    });

  return {
    specificationVersion: 'v1',
    name: 'fs',
    capabilities: {
      crossProcessAppends: true,
      durability,
      toolOutputCache: true,
      redaction: true,
      headerLine: true,
      ...(chainWriter === undefined ? {} : { chain: true }),
    },

    async appendAt(runId, entries, expectedPosition, expectedHeaderLine) {
      checkToolOutputIds(entries);
      // Every compare-and-append of this run, in any process, holds its lock: the check and the
      // write are one step. Plain appends do not take it; they only ever add at the end.
      return withFileLock(lockPath(runId), lock, async () => {
        const path = locate(runId);
        let position = 0;
        let fragment = false;
        let headerLine: string | undefined;
        if (path !== null) {
          await writer.drain(path);
          ({ position, fragment, headerLine } = measure(
            runId,
            path,
            expectedHeaderLine !== undefined,
          ));
        }
        assertExpectedRunHeader(runId, headerLine, expectedHeaderLine);
        assertExpectedRunPosition(runId, position, expectedPosition);
        const appended = await appendSlowly(runId, path, entries);
        return { appended, position: position + appended + (fragment && appended > 0 ? 1 : 0) };
      });
    },

    append(runId, entries) {
      checkToolOutputIds(entries);
      if (chainWriter !== undefined) return appendChained(runId, entries);
      const path = locate(runId, false);
      // The common append (a known run, no header) is planned and written synchronously: no
      // promise per record unless the writer queues it (a sync, or other appends queued).
      if (path !== null && entries[0]?.record.type !== 'header') {
        return write(runId, path, planRunAppend(runId, null, entries));
      }
      return appendSlowly(runId, path, entries);
    },

    read(runId) {
      const path = locate(runId);
      if (path === null) return null;
      try {
        const { result, end, ino } = readRunFile(io, path, runId);
        remember(runId, ino, end);
        return chainWriter === undefined ? result : stripChain(result);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },

    readAfter(runId, position) {
      return readKnown(runId, (path) => {
        for (let attempt = 0; ; attempt++) {
          const known = marks.get(runId);
          // A remembered mark is tried first; if the file turns out to be another one (deleted and
          // started again), the read is repeated from the start.
          const from = attempt === 0 ? markFor(runId, known?.ino, position) : FILE_START;
          const read = readRunFileAfter(io, path, runId, from, position);
          if (from !== FILE_START && (read.ino !== known?.ino || 'entries' in read)) continue;
          if ('entries' in read) throw positionBeyondEnd(runId, position, read.entries);
          remember(runId, read.ino, read.end);
          return chainWriter === undefined ? read.result : stripChain(read.result);
        }
      });
    },

    tail(runId, count) {
      return readKnown(runId, (path) => {
        const result = tailRunFile(io, path, runId, count);
        return chainWriter === undefined ? result : stripChain(result);
      });
    },

    readChain(runId) {
      // Bytes, not text: the verifier hashes each line where it lies in the read buffer (no decode).
      return readKnown(runId, (path) =>
        runChainLinesOfBytes(readRegularFileBytes(path, root.relative(path))),
      );
    },

    runIdsWithPrefix(prefix: string, limit: number) {
      // The day directories' listings only: no run file is opened.
      const found = new Set<string>();
      for (const { path: directory } of dayDirectories()) {
        let names: string[];
        try {
          names = fs.readdirSync(directory);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw error;
        }
        for (const name of names) {
          if (!name.startsWith(prefix) || !name.endsWith(RUN_SUFFIX)) continue;
          const runId = name.slice(0, -RUN_SUFFIX.length);
          if (isPathId(runId)) found.add(runId);
        }
      }
      return [...found].sort().slice(0, limit);
    },

    list(filter: RunListFilter) {
      const dayOf = (ms: number | undefined) =>
        ms === undefined ? undefined : dayComponents(new Date(ms).toISOString(), now).join('/');
      if (filter.runIds !== undefined) return listRunIds(filter.runIds);
      return listDays(dayDirectories(dayOf(filter.fromMs), dayOf(filter.toMs)));
    },

    delete(runId, options) {
      const first = locate(runId);
      if (first === null) return false;
      if (chainWriter !== undefined) return collectThenDelete(runId, first, options?.by);
      return deleteFiles(runId, first);
    },

    redact(runId, redactor) {
      const first = locate(runId);
      if (first === null) return null;
      // The run's lock keeps compare-and-appends out while lines are rewritten; plain appends go on.
      return withFileLock(lockPath(runId), lock, async () => {
        const total: RunRedactStats = { changedLines: 0, changedToolOutputs: 0 };
        // Every copy of the run: a second file in another day directory holds the same records.
        for (const path of new Set([first, ...locateAll(runId)])) {
          await writer.drain(path);
          const stats = await redactRun(path, redactor);
          total.changedLines += stats.changedLines;
          total.changedToolOutputs += stats.changedToolOutputs;
        }
        return total;
      });
    },

    locate,
    ...(erasures === undefined
      ? {}
      : {
          erasureLog: erasures,
          erasures: () => erasures.read(),
          erasureChain: () => ({
            location: `${SESSIONS_DIR}/erasures.jsonl`,
            lines: erasures.readChain(),
          }),
          chainLocation(runId: string) {
            const path = locate(runId);
            return path === null ? null : root.relative(path);
          },
          importChained(runId: string, entries: readonly RunRecordEntry[]) {
            checkToolOutputIds(entries);
            const exists = () =>
              new EpisodicError({
                code: 'CONFLICT',
                message: `Run ${runId} exists already: an import with proofs writes new runs only, byte for byte. Import into another home, or delete the run first.`,
                details: { runId },
              });
            return withFileLock(lockPath(runId), lock, async () => {
              if (locate(runId) !== null) throw exists();
              const toWrite = planRunAppend(runId, undefined, entries);
              const path = createRun(runId, toWrite[0]?.record as RunHeader);
              if (path === null) throw exists();
              // The lines carry their chain members: written as they are, never stamped again;
              // the next append resumes the chain from the file's tail.
              chains.delete(runId);
              return write(runId, path, toWrite);
            });
          },
          async importErasures(entries: readonly ErasureEntry[]) {
            for (const entry of entries) await erasures.append(entry);
          },
        }),

    readToolOutput(id) {
      if (!isToolOutputId(id)) {
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `Invalid tool output id ${JSON.stringify(id)}: use the output_ref.id of a tool.output record (1–200 characters of [A-Za-z0-9_-]).`,
          details: { field: 'id', value: id },
        });
      }
      const directory = root.directory(TOOL_OUTPUT_DIR, false);
      if (directory === null) return null;
      try {
        return readRegularFile(join(directory, `${id}.txt`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
  };
}
