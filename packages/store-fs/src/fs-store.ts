import * as crypto from 'node:crypto';
import type {
  ChainOption,
  ErasureEntry,
  RunChainLine,
  RunDurability,
  RunStore,
  SessionFoldOption,
  SessionStore,
} from '@episodic/core';
import {
  type ChainWriterOptions,
  createStores,
  parseInput,
  parseRunId,
} from '@episodic/core/adapter';
import * as z from 'zod';
import { sweepTempFiles } from './atomic-file.js';
import { resolveEpisodicHome } from './episodic-home.js';
import { type FsIo, nodeFsIo } from './fs-io.js';
import { createFsRunStoreAdapter } from './fs-run-store.js';
import { createFsSessionStoreAdapter } from './fs-session-store.js';
import { createRunFileWriter } from './run-file-writer.js';
import { fsyncDirectory, openStoreRoot, TOOL_OUTPUT_DIR } from './store-layout.js';

/** Options of `createFsStore`. */
export interface FsStoreOptions {
  /** The store root. @default $EPISODIC_HOME, else ~/.episodic */
  root?: string;
  /**
   * How far an acknowledged write survives a crash: `none` (no fsync), `run` (fsync when a run
   * ends and at every snapshot), `always` (fsync every append before acknowledging it; appends
   * issued together share one fsync). @default 'run'
   */
  durability?: RunDurability;
  /** Dates run files whose `started_at` cannot be parsed, and ages lock files. @default () => new Date() */
  now?: () => Date;
  /**
   * How long a snapshot save, a compare-and-append or a redaction waits for another process
   * holding the same session's or run's lock. @default 10000
   */
  lockTimeoutMs?: number;
  /** A lock from another host older than this is treated as abandoned. @default 30000 */
  staleLockMs?: number;
  /** The file operations of the run-file writer and readers (tests count write calls with it). @default node:fs */
  io?: FsIo;
  /** How many run files the writer keeps open at most. @default 64 */
  maxOpenFiles?: number;
  /**
   * When a session's deltas are folded into a new base (`sessions/state/<id>.json`, the file seed
   * 001 readers open): on every commit while the session's files hold at most 1 MiB (so the
   * base is current), then every so often; `'always'`: on every commit at any size. @default
   * `{ currentUpToBytes: 1048576, share: 1, minBytes: 65536, deltas: 100000 }` (see
   * `SessionFoldPolicy`)
   */
  fold?: SessionFoldOption;
  /**
   * Chain run files (docs/design/verify.md, issue #34): every appended line gets a `chain` member
   * (its place `n`, a fresh salt, a SHA-256 commitment; the stream key on the first, a segment
   * head every 64th line and on `run.end`), written last in the line, so a verifier can tell an
   * edited, inserted, deleted or reordered line. `true`: a plain append checks with one `fstat`
   * that this process wrote last, else takes the run's lock and reads the chain from the file's
   * tail (two processes appending at the same instant may give two lines the same `n`, which
   * verify reports as `forked`, a warning); `'strict'`: every plain append takes the run's lock
   * (no forks, slower). Records read back never carry the member. @default false
   */
  chain?: ChainOption;
}

/** Run files and session snapshots under one root. */
export interface FsStore {
  /** The root's real path. */
  readonly root: string;
  /** The `RunStore` over `sessions/YYYY/MM/DD/<run_id>.jsonl`. */
  readonly runs: RunStore;
  /**
   * The `SessionStore` over `sessions/state/<session_id>.json` (the base) and
   * `<session_id>.deltas.jsonl` (the commits since).
   */
  readonly sessions: SessionStore;
  /** The full text of a tool output saved for an `output_ref` (`cache/tool-output/<id>.txt`), or null. */
  readToolOutput(id: string): Promise<string | null>;
  /** The path of a run's file, or null when the run does not exist. */
  locateRun(runId: string): Promise<string | null>;
  /**
   * A run's stored lines, unparsed, with their `chain` members (what a chain verifier reads:
   * `createChainVerifier(…).line(stream, text, { line })`), or null when the run does not exist.
   */
  readRunChain(runId: string): Promise<RunChainLine[] | null>;
  /**
   * The store's erasure log (`sessions/erasures.jsonl`): what chained runs' redactions and
   * deletions recorded (when, by what, which entries), in stored order, without the log's own
   * chain members: pass it as the verifier's `erasures`. Empty when nothing was recorded or the
   * store does not chain.
   */
  readErasures(): Promise<ErasureEntry[]>;
  /** The erasure log's stored lines, unparsed: itself a chained stream (kind `erasures`). */
  readErasureChain(): Promise<RunChainLine[]>;
  /** Finishes queued appends and closes open files. */
  close(): Promise<void>;
}

const optionsSchema = z
  .strictObject({
    root: z.string().min(1).optional(),
    durability: z.enum(['none', 'run', 'always']).optional(),
    now: z
      .custom<() => Date>((value) => typeof value === 'function', 'must be a function')
      .optional(),
    lockTimeoutMs: z.number().int().nonnegative().optional(),
    staleLockMs: z.number().int().positive().optional(),
    io: z
      .custom<FsIo>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as FsIo).writeSync === 'function',
        'must implement FsIo (openSync, writeSync, readSync, fstatSync, fsyncSync, fdatasyncSync, closeSync)',
      )
      .optional(),
    maxOpenFiles: z.number().int().positive().optional(),
    // Core's `chainOptionSchema` (on @episodic/core/schemas, which a store does not import).
    chain: z.union([z.boolean(), z.literal('strict')]).optional(),
    fold: z
      .union([
        z.literal('always'),
        z.strictObject({
          currentUpToBytes: z.number().int().nonnegative().optional(),
          share: z.number().positive().optional(),
          minBytes: z.number().int().nonnegative().optional(),
          deltas: z.number().int().positive().optional(),
        }),
      ])
      .optional(),
  })
  .optional();

/**
 * Opens the file store: `RunStore` and `SessionStore` over one root. Creates the root if needed
 * and sweeps temp files that crashed writers left behind.
 *
 * ```ts
 * const store = createFsStore({ root: './.episodic', durability: 'run' });
 * const recorder = createRunRecorder({ store: store.runs });
 * ```
 */
export function createFsStore(options?: FsStoreOptions): FsStore {
  const checked = parseInput(optionsSchema, options, 'fs store options') ?? {};
  const durability = checked.durability ?? 'run';
  const now = checked.now ?? (() => new Date());
  const io = checked.io ?? nodeFsIo;
  const root = openStoreRoot(
    resolveEpisodicHome(checked.root === undefined ? {} : { home: checked.root }),
    // A new directory entry survives a power loss only once its parent is synced.
    durability === 'none' ? undefined : fsyncDirectory,
  );
  const toolOutputs = root.directory(TOOL_OUTPUT_DIR, false);
  if (toolOutputs !== null) sweepTempFiles(toolOutputs);
  const writer = createRunFileWriter({ io, maxOpenFiles: checked.maxOpenFiles ?? 64 });
  const lockTimeoutMs = checked.lockTimeoutMs ?? 10_000;
  const staleLockMs = checked.staleLockMs ?? 30_000;
  const chain = checked.chain ?? false;
  const runAdapter = createFsRunStoreAdapter({
    root,
    io,
    writer,
    durability,
    now,
    lock: { timeoutMs: lockTimeoutMs, staleMs: staleLockMs, now: () => now().getTime() },
    chain: chain === false ? undefined : { mode: chain, writer: nodeChainWriter() },
  });
  const sessionAdapter = createFsSessionStoreAdapter({
    root,
    durability,
    now,
    lockTimeoutMs,
    staleLockMs,
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= writer.close();
    return closing;
  };
  // Closing the run store alone closes the writer too (`createFsRunStore`).
  const stores = createStores(
    { runs: { ...runAdapter, close }, sessions: sessionAdapter },
    { sessions: checked.fold === undefined ? undefined : { fold: checked.fold } },
  );
  return {
    root: root.path,
    ...stores,
    async readToolOutput(id) {
      return runAdapter.readToolOutput(id);
    },
    async locateRun(runId) {
      return runAdapter.locate(parseRunId(runId));
    },
    async readRunChain(runId) {
      const lines = await runAdapter.readChain?.(parseRunId(runId));
      // Plain lines with their text, as RunStore.readChain gives them (the adapter's decode lazily).
      return lines?.map(({ position, line, text }) => ({ position, line, text })) ?? null;
    },
    async readErasures() {
      return runAdapter.erasureLog?.read() ?? [];
    },
    async readErasureChain() {
      return runAdapter.erasureLog?.readChain() ?? [];
    },
  };
}

/** SHA-256 through `crypto.hash` (Node 20.12 and later), else `createHash`. */
const sha256: (bytes: Uint8Array) => Uint8Array =
  typeof crypto.hash === 'function'
    ? (bytes) => crypto.hash('sha256', bytes, 'buffer') as unknown as Uint8Array
    : (bytes) => crypto.createHash('sha256').update(bytes).digest();

/** The chain writer's Node dependencies: SHA-256, and salts drawn 4 KB of random bytes at a time. */
function nodeChainWriter(): ChainWriterOptions {
  const pool = Buffer.alloc(4096);
  let used = pool.length;
  return {
    sha256,
    randomSalt() {
      if (used + 16 > pool.length) {
        crypto.randomFillSync(pool);
        used = 0;
      }
      // A copy: the pool is refilled in place.
      const salt = new Uint8Array(pool.subarray(used, used + 16));
      used += 16;
      return salt;
    },
  };
}

/** Opens a file store and returns its `RunStore` (closing it closes the store). */
export function createFsRunStore(options?: FsStoreOptions): RunStore {
  return createFsStore(options).runs;
}

/** Opens a file store and returns its `SessionStore`. */
export function createFsSessionStore(options?: FsStoreOptions): SessionStore {
  return createFsStore(options).sessions;
}
