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
  planRunAppend,
  positionBeyondEnd,
  readRunHeaderLine,
  runNotFound,
  safeJsonParse,
} from '@episodic/core/adapter';
import { sweepTempFiles, writeFileAtomic } from './atomic-file.js';
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
import { redactRunFileInPlace } from './run-file-redaction.js';
import type { RunFileWriter } from './run-file-writer.js';
import {
  dayComponents,
  fsyncDirectory,
  isPathId,
  isToolOutputId,
  openRegularFile,
  readRegularFile,
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
}

/** The fs run store adapter, plus what only a file store can do. */
export interface FsRunStoreAdapter extends RunStoreAdapter {
  /** The path of a run's file, or null when the run does not exist. */
  locate(runId: string, verify?: boolean): string | null;
  /** The cached full text of a tool output (`cache/tool-output/<id>.txt`), or null. */
  readToolOutput(id: string): string | null;
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
    page.rows.push({ runId, header: head.line, location });
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
    if (complete || line !== '') return readRunHeaderLine(line);
    const deadline = Date.now() + HEADER_WAIT_MS;
    const wait = async (): Promise<StoredHeader> => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const again = readFirstLine(io, path);
        if (again.complete || again.line !== '') return readRunHeaderLine(again.line);
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
    const changedLines = await redactRunFileInPlace(path, redactor, (text) => {
      const id = outputIdOf(text);
      if (id !== undefined) outputIds.add(id);
    });
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
      return { position: end.position, fragment, headerLine: readFirstLineAt(io, fd).line };
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

  /** Writes planned entries; a number when they were written at once, else a promise of it. */
  const write = (
    runId: string,
    path: string,
    toWrite: readonly RunRecordEntry[],
  ): number | Promise<number> => {
    if (toWrite.length === 0) return 0;
    writeToolOutputs(toWrite);
    let pending: Promise<void> | undefined;
    try {
      pending = writer.append(path, toWrite.map(bufferOf), needsSync(toWrite));
    } catch (error) {
      return deletedMeanwhile(runId, error);
    }
    if (pending === undefined) return toWrite.length;
    return pending.then(
      () => toWrite.length,
      (error: unknown) => deletedMeanwhile(runId, error),
    );
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
    return write(runId, path, toWrite);
  };

  return {
    specificationVersion: 'v1',
    name: 'fs',
    capabilities: {
      crossProcessAppends: true,
      durability,
      toolOutputCache: true,
      redaction: true,
      headerLine: true,
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
        return result;
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
          return read.result;
        }
      });
    },

    tail(runId, count) {
      return readKnown(runId, (path) => tailRunFile(io, path, runId, count));
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

    delete(runId) {
      const first = locate(runId);
      if (first === null) return false;
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
