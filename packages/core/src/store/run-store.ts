import * as z from 'zod';
import type { Sha256 } from '../chain/formulas.js';
import {
  type AnchorFile,
  type ChainMember,
  type ChainReport,
  chainMemberSchema,
  type ErasureBy,
  type ErasureEntry,
  erasureBySchema,
  erasureEntrySchema,
} from '../chain/schemas.js';
import { type ChainStreamSummary, createChainVerifier } from '../chain/verifier.js';
import { EpisodicError } from '../errors/episodic-error.js';
import {
  CUSTOM_RUN_RECORD_TYPE_PATTERN,
  checkRunRecord,
  customRunRecordSchema,
  isKnownRunRecordType,
  isSupportedRunSchemaVersion,
  LATER_RUN_RECORD_TYPE_PATTERN,
  laterRunRecordSchema,
  nearKnownRunRecordType,
  RUN_RECORD_SCHEMA_VERSION,
  type RunHeader,
  type RunModelInfo,
  type RunRecord,
  type RuntimeInfo,
  runRecordSchemaFor,
  runTimestampSchema,
} from '../schema/run-record.js';
import { UUID_PATTERN, uuidSchema } from '../schema/session-state.js';
import {
  decodeRunSearchCursor,
  encodeRunSearchCursor,
  type RunSearchAfter,
  type RunSearchHit,
  type RunSearchPage,
  type RunSearchQuery,
  runSearchQuerySchema,
} from '../search/run-search-query.js';
import { parseSearchText, type SearchMatch } from '../search/search-match.js';
import { safeJsonParse } from '../util/json.js';
import { jsonEqual } from '../util/json-equal.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { describeValue } from '../validation/describe-value.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { ID_PREFIX_CANDIDATE_LIMIT, parseIdReference, resolveIdPrefix } from './id-prefix.js';
import type { MaybePromise } from './maybe-promise.js';
import { callAdapter, toStorageError } from './storage-error.js';
import {
  createStoredRedactor,
  parseStoredRedactionOptions,
  type StoredRedactionMode,
  type StoredRedactionOptions,
  type StoredRedactor,
} from './stored-redaction.js';

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

/**
 * How far an acknowledged append survives a crash:
 * - `none`: nothing is forced to disk (the OS writes it back eventually; a process crash loses
 *   nothing already written, a power loss may).
 * - `run`: the run file is synced when a terminal record (`run.end`) is appended.
 * - `always`: every append is synced before it is acknowledged.
 */
export type RunDurability = 'none' | 'run' | 'always';

/** What a run store backend can promise, declared as data. */
export interface RunStoreCapabilities {
  /** Several processes may append to the same run at once without tearing, merging or losing records. */
  readonly crossProcessAppends: boolean;
  /** How far an acknowledged append survives a crash. */
  readonly durability: RunDurability;
  /**
   * `tool.output` records that carry an `output_ref` also get `result_raw` saved under that id
   * (`cache/tool-output/<id>.txt` on disk), so a run recorder should set `output_ref`.
   */
  readonly toolOutputCache: boolean;
  /**
   * `redact()` works: the backend rewrites a run in place (and its cached tool outputs), leaving no
   * copy of the replaced bytes in its files. Absent means false.
   */
  readonly redaction?: boolean;
  /**
   * `readAfter` reports the run's stored first line (`headerLine`; `tail` may too), and a
   * compare-and-append honors `expectedHeaderLine`: a scoped store (`scopeRunStore`) then checks
   * a run's scope from that line instead of listing the run on every call. Absent means false.
   */
  readonly headerLine?: boolean;
  /**
   * The store chains its runs (docs/design/verify.md): it stamps every line it appends with a
   * `chain` member (the line's place, a salt, a commitment) through core's chain writer, strips the
   * member from the records `read`, `readAfter` and `tail` return, refuses a record a caller gives
   * with a top-level `chain` (`VALIDATION_ERROR`), and ignores the member when it compares a
   * repeated header. No store declares it yet: issue #34 turns it on store by store, behind the
   * store's `chain` option (`false` by default). Absent means false.
   */
  readonly chain?: boolean;
  /**
   * `search` works: the backend keeps a full-text index of its run records
   * (`searchTextOfRunLine` of each stored line), changed by `redact` and `delete`. Absent means
   * false.
   */
  readonly search?: boolean;
}

/**
 * Which records a run search reads: the stored lines where every phrase of `match` occurs in the
 * line's search text (`searchFieldsOfRunLine`), within the filters, best first (score
 * descending, then run id, then position ascending). The filters are part of the engine's
 * query: no line outside them is returned.
 */
export interface RunSearchPlan {
  /** The parsed search: render it with `renderFts5Match` (or the engine's own renderer). */
  readonly match: SearchMatch;
  /** Only lines of this run (lowercase). */
  readonly runId?: string;
  /** Distinct record types in sorted order; absent means every type. */
  readonly types?: readonly string[];
  /** Only runs whose header's scope (`runHeaderScope`) is this. */
  readonly scope?: string;
  /** Only runs whose header's `session_id` is this, compared lowercase. */
  readonly sessionId?: string;
  /** Inclusive bounds on the record's `ts`, epoch ms (a line without a `ts` is then left out). */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** Only lines after this point of the order (`isAfterRunSearchPoint`). */
  readonly after?: RunSearchAfter;
  /** The most lines to return. */
  readonly limit: number;
}

/** One stored line a run search found, as the adapter returns it (numbers may come back as text). */
export interface RunSearchRow {
  readonly run_id: string;
  /** The line's position in its run (1-based, as `RunSearchHit.position`). */
  readonly position: number | string | bigint;
  /** The record's type, `''` for a damaged line. */
  readonly type: string;
  /** The record's `ts` in epoch ms, or null. */
  readonly ts_ms: number | string | bigint | null;
  /** Higher is better (SQLite: `-bm25()`). */
  readonly score: number;
  /** The excerpt, matches between `SNIPPET_MATCH_START` and `SNIPPET_MATCH_END`. */
  readonly snippet: string;
}

/** One damaged line (or unreadable stored record) met while reading a run. */
export interface RunReadError {
  /** 1-based line of the run's stored form; absent when only the byte offset is known (a tail read). */
  line?: number;
  /** Byte offset of the damaged line in the run file, when the backend knows it. */
  byteOffset?: number;
  /** What is wrong with the line, e.g. `not valid JSON (…)` or `a run of 512 NUL bytes`. */
  message: string;
  /** The start of the damaged line, JSON-quoted so control characters stay visible. */
  excerpt: string;
}

/** A whole run, read tolerantly: every readable record, and one error per damaged line. */
export interface RunReadResult {
  /** The run id (lowercase). */
  runId: string;
  /** The header, or null when the first line is missing or damaged (the run is then read best-effort). */
  header: RunHeader | null;
  /** Every readable record in stored order, the header included. */
  records: RunRecord[];
  /** One entry per damaged line, in stored order. A read never stops at a damaged line. */
  errors: RunReadError[];
  /**
   * True when the run is read in best-effort mode: its header is unreadable or declares a
   * `schema_version` this version does not know (unknown fields and record types are then ignored
   * by consumers that do not understand them).
   */
  bestEffort: boolean;
  /** Why the run is read best-effort; absent when it is not. */
  bestEffortReason?: string;
  /** True when a `run.end` record was read (a crashed run has none). */
  ended: boolean;
  /**
   * The run's position: how many entries it holds (readable records and damaged lines, counting
   * only complete lines: a torn last line without its newline is reported in `errors` but counted
   * only once a later append has terminated it). Pass it to `readAfter` to read only what comes
   * next, or to `append` as `expectedPosition` to append only if nothing else was appended since.
   */
  position: number;
}

/** What `readAfter()` returns: the entries that follow a known position. */
export interface RunReadAfterResult {
  /** The run id (lowercase). */
  runId: string;
  /** The readable records after the position, in stored order (no header unless at position 0). */
  records: RunRecord[];
  /** One entry per damaged line after the position, in stored order. */
  errors: RunReadError[];
  /** The run's position after these entries: pass it to the next `readAfter` or `append`. */
  position: number;
  /**
   * The run's first stored line (its header as stored, without its newline; `''` when it has
   * none), read with these entries from the same incarnation of the run: a run deleted and
   * created again under another header reports another line. Optional: a backend that reports
   * it lets `scopeRunStore` tell the run's scope from it instead of listing the run on every
   * call. It may be absent; a backend must never report a line of another run.
   */
  headerLine?: string;
}

/** The last records of a run, read from the end. */
export interface RunTailResult {
  /** The run id (lowercase). */
  runId: string;
  /** Up to `count` readable records, oldest first. */
  records: RunRecord[];
  /** One entry per damaged line met between those records, oldest first. */
  errors: RunReadError[];
  /**
   * The run's first stored line (its header as stored, without its newline; `''` when it has
   * none), read with these entries from the same incarnation of the run: a run deleted and
   * created again under another header reports another line. Optional: a backend that reports
   * it lets `scopeRunStore` tell the run's scope from it instead of listing the run on every
   * call. It may be absent; a backend must never report a line of another run.
   */
  headerLine?: string;
}

/** What `list()` reports for one run: read from its header alone. */
export interface RunSummary {
  /** The run id (lowercase). */
  runId: string;
  /** The header's `session_id`, when it has one. */
  sessionId?: string;
  /** The header's `started_at`, as stored. */
  startedAt: string;
  /** The header's `schema_version`. */
  schemaVersion: number;
  /** True when the header's `schema_version` is not one this version reads fully. */
  bestEffort: boolean;
  /** The header's model, when it names one. */
  model?: RunModelInfo;
  /** The header's runtime environment, when it records one. */
  runtime?: RuntimeInfo;
}

/** A run that `list()` could not summarize. Other runs are listed regardless. */
export interface RunListError {
  /** The run id, when the backend can tell it (e.g. from the file name). */
  runId?: string;
  /** Where the bad run is, e.g. a path relative to the store root, or `run <id>`. */
  location: string;
  /** What is wrong with it. */
  message: string;
}

/** The result of `list()`. */
export interface RunListResult {
  /** Matching runs, newest `startedAt` first, then by run id. */
  runs: RunSummary[];
  /** One entry per run that could not be summarized; it never hides the others. */
  errors: RunListError[];
}

/** Which runs `list()` returns. Every field narrows the result. */
export interface RunListQuery {
  /** Only runs whose header names this session. */
  sessionId?: string;
  /**
   * Only these runs (case-insensitive; at most 10,000). A backend reads only their headers, so
   * the cost grows with this list, not with the store: e.g. the runs a session's commits name.
   * Ids that match no run are left out.
   */
  runIds?: readonly string[];
  /**
   * Only runs of this scope: runs whose header's `scope` field is this text. A run whose header
   * names no scope (or an empty one) belongs to the default scope, `default` (`DEFAULT_RUN_SCOPE`).
   */
  scope?: string;
  /** Only runs that started at or after this instant (ISO 8601). */
  from?: string;
  /** Only runs that started at or before this instant (ISO 8601). */
  to?: string;
  /** At most this many runs (the newest). @default unlimited */
  limit?: number;
}

/** Options of `tail()`. */
export interface RunTailOptions {
  /** How many records to return. @default 100 */
  count?: number;
}

/** Options of `append()`. */
export interface RunAppendOptions {
  /**
   * Compare-and-append: the position the caller expects the run to be at (`position` of its last
   * `read`, `readAfter` or compare-and-append receipt; `0` for a run that must not exist yet). When
   * another writer appended first, the append fails with `CONFLICT` and writes nothing; read what
   * was added with `readAfter(runId, expectedPosition)`, decide again, and retry. Atomic across
   * processes when the store declares `crossProcessAppends`, within this process otherwise.
   * @default undefined (append wherever the run ends)
   */
  expectedPosition?: number;
  /**
   * With `expectedPosition`, and only on a store declaring the `headerLine` capability: the run's
   * first stored line the caller expects (a `headerLine` it read). When the run now has another
   * one (it was deleted and created again), the append fails with `CONFLICT`
   * (`details.reason: 'header'`) and writes nothing; checked in the same atomic step as the
   * position.
   */
  expectedHeaderLine?: string;
}

/** What `append()` did. */
export interface RunAppendReceipt {
  /** The run id (lowercase). */
  runId: string;
  /** How many records were written (a repeated identical header is not written again). */
  appended: number;
  /**
   * The run's position after the append. Always present for a compare-and-append
   * (`expectedPosition`); otherwise present when the store knows it without extra work.
   */
  position?: number;
}

/** What an adapter's `appendAt` did. */
export interface RunAppendAtResult {
  /** How many records were written. */
  appended: number;
  /** The run's position after the append. */
  position: number;
}

/**
 * What an adapter's `redact` changed. A redaction never adds or removes a stored line, so a run's
 * positions (and every reader's `readAfter` position) stay valid across it.
 */
export interface RunRedactStats {
  /** Stored lines rewritten. */
  changedLines: number;
  /** Cached tool outputs (`cache/tool-output/<id>.txt`) rewritten. */
  changedToolOutputs: number;
}

/** Options of `RunStore.delete`. */
export interface RunDeleteOptions {
  /**
   * Who asks, recorded as the `by` of the erasure entry a chained store writes (a command and its
   * flag names, never their values). @default the library call, `{ api: 'RunStore.delete' }`
   */
  by?: ErasureBy;
}

const runDeleteOptionsSchema = z.strictObject({ by: erasureBySchema.optional() }).optional();

/** What `RunStore.redact()` did. */
export interface RunRedactReceipt extends RunRedactStats {
  /** The run id (lowercase). */
  runId: string;
  /** The mode applied. */
  mode: StoredRedactionMode;
  /** Detector findings (`secrets`) or string values (`content`) replaced. */
  replacements: number;
}

/** A record ready for an adapter: validated, with its serialized JSON (no newline). */
export interface RunRecordEntry {
  readonly record: RunRecord;
  /** `JSON.stringify(record)`: store exactly this text, so reads return what was appended. */
  readonly json: string;
}

/**
 * A normalized `list()` query as adapters receive it (ids lowercase, bounds as epoch ms). Every
 * field is a hint: an adapter may skip runs it rules out (e.g. a `WHERE session_id = ?` or a
 * lookup of the given ids), and may ignore any field; the wrapper applies the whole query again
 * to the rows it gets, then sorts them and applies `limit`.
 */
export interface RunListFilter {
  /** Only runs whose header names this session (lowercase). */
  sessionId?: string;
  /** Only these runs (lowercase ids). A backend should skip every other run before reading it. */
  runIds?: ReadonlySet<string>;
  /** Only runs of this scope (see `RunListQuery.scope`). */
  scope?: string;
  /** Inclusive lower bound on the start time, in epoch milliseconds. */
  fromMs?: number;
  /** Inclusive upper bound on the start time, in epoch milliseconds. */
  toMs?: number;
  /** How many runs the caller wants (the newest); see `RunListPage` for stopping early. */
  limit?: number;
}

/** One stored run as an adapter lists it: its id and its stored header line, not parsed. */
export interface RunListRow {
  /** The run id (lowercase). */
  readonly runId: string;
  /** The run's first stored line, without its newline (`''` when the run has none). */
  readonly header: string;
  /** Where the run is, for a list error (e.g. a path relative to the store root). @default `run <id>` */
  readonly location?: string;
}

/**
 * What an adapter's `list` returns: stored rows, and one error per run it could not even read
 * (a file it cannot open, a second copy of a run). The wrapper parses each row's header, reports
 * an unreadable one as an error, filters, sorts and limits.
 *
 * An adapter may return several pages (an iterable of them) instead of one. Each page must hold
 * only runs that started before every dated run of the pages before it (e.g. one page per day
 * directory, newest day first): once the pages read hold `limit` matching runs with a parsable
 * start, the wrapper stops reading pages.
 */
export interface RunListPage {
  /** The stored runs, in any order. */
  readonly rows: readonly RunListRow[];
  /** One entry per run the adapter could not read at all (it is not among `rows`). */
  readonly errors?: readonly RunListError[];
}

/**
 * The adapter a run store backend implements (seed 001 run files). Small on purpose: core's
 * `createRunStore` validates ids and records, serializes them, and turns failures into domain errors.
 * Run ids reach the adapter validated and lowercase.
 */
export interface RunStoreAdapter {
  /** The contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** A short backend name for messages, e.g. `fs` or `sqlite`. */
  readonly name: string;
  readonly capabilities: RunStoreCapabilities;
  /**
   * Appends `entries` in order. When the run does not exist, `entries[0]` must be its header
   * (else throw `NOT_FOUND`, see `planRunAppend`). A header for an existing run is skipped when it
   * equals the stored one and is a `CONFLICT` otherwise: a header is never rewritten. Returns the
   * number of records written.
   */
  append(runId: string, entries: readonly RunRecordEntry[]): MaybePromise<number>;
  /**
   * Compare-and-append: appends `entries` only if the run's position is `expectedPosition` (`0`
   * when the run does not exist, or exists without a complete line), checked and written as one
   * atomic step (across processes when `crossProcessAppends` is declared). Otherwise throws
   * `CONFLICT` (use `assertExpectedRunPosition`) and writes nothing. The same header rules as `append`
   * apply. A torn last line the append has to terminate counts in the returned position.
   * With the `headerLine` capability, `expectedHeaderLine` (when given) must equal the run's first
   * stored line too, checked in the same step (use `assertExpectedRunHeader`).
   */
  appendAt(
    runId: string,
    entries: readonly RunRecordEntry[],
    expectedPosition: number,
    expectedHeaderLine?: string,
  ): MaybePromise<RunAppendAtResult>;
  /** The whole run read tolerantly (see `createRunReadCollector`), or null when it does not exist. */
  read(runId: string): MaybePromise<RunReadResult | null>;
  /**
   * The entries after `position` (see `RunReadResult.position`), read tolerantly, or null when
   * the run does not exist. The cost depends on what follows `position`, not on the run's size
   * (a backend may pay once per process to find where `position` is). A `position` beyond the
   * run's end throws `CONFLICT` (use `positionBeyondEnd`).
   */
  readAfter(runId: string, position: number): MaybePromise<RunReadAfterResult | null>;
  /** The last `count` records, or null when the run does not exist. */
  tail(runId: string, count: number): MaybePromise<RunTailResult | null>;
  /**
   * The stored runs `filter` may match, as rows (a superset is fine: the wrapper parses, filters,
   * sorts and limits), in one page or an iterable of pages ordered by start (see `RunListPage`).
   */
  list(filter: RunListFilter): MaybePromise<RunListPage | Iterable<RunListPage>>;
  /**
   * Deletes the run; false when there was none. A chained store records the deletion in its
   * erasure log with `options.by` (who asks) when given.
   */
  delete(runId: string, options?: RunDeleteOptions): MaybePromise<boolean>;
  /**
   * Rewrites the run through `redactor` (optional; declare the `redaction` capability): each stored
   * line becomes `redactor.line(text)` (kept byte for byte when that returns its input; never
   * removed, so positions stay valid), and the cached full text of each of its tool outputs becomes
   * `redactor.text(text)`. No acknowledged record is lost, including records other processes
   * append meanwhile, no copy of the replaced bytes is left in the backend's files, and a crash
   * leaves each line either as it was or redacted. Returns what changed, or null when the run does
   * not exist.
   */
  redact?(runId: string, redactor: StoredRedactor): MaybePromise<RunRedactStats | null>;
  /**
   * Optional: the stored run ids that start with `prefix` (lowercase hex, maybe with hyphens), in
   * order, at most `limit` of them: an indexed range query (`idPrefixRange`) or a directory
   * listing, never a read of every run. Without it, `resolveRunId` filters `list()`.
   */
  runIdsWithPrefix?(prefix: string, limit: number): MaybePromise<string[]>;
  /**
   * Optional (declare `capabilities.search`): the lines `plan` selects, best first, at most
   * `plan.limit`. The index holds `searchFieldsOfRunLine` of each stored line; `redact` and
   * `delete` change it in the same transaction as the lines.
   */
  search?(plan: RunSearchPlan): MaybePromise<readonly RunSearchRow[]>;
  /**
   * Optional, on a store that declares `chain`: the run's stored lines as they are, not parsed
   * (each with its `chain` member; see `runChainLines`), or null when the run does not exist.
   * What a chain verifier reads (`createChainVerifier(…).line`), in stored order.
   */
  readChain?(runId: string): MaybePromise<RunChainLine[] | null>;
  /**
   * Optional, on a store that declares `chain`: the entries of the store's erasure log
   * (`ErasureEntry`, validated by the verifier), what its redactions and deletions of chained runs
   * recorded, in stored order. Without it `RunStore.verifyChain` reads no erasure log.
   */
  erasures?(): MaybePromise<readonly unknown[]>;
  /**
   * Optional: the erasure log's own stored lines, unparsed (a chained line stream of kind
   * `erasures`), and where the log is stored (named in findings).
   */
  erasureChain?(): MaybePromise<RunErasureChain>;
  /**
   * Optional: where a run's lines are stored, named in the findings of `RunStore.verifyChain`
   * (store-fs: its file, relative to the store's root), or null when the run does not exist.
   */
  chainLocation?(runId: string): MaybePromise<string | null>;
  /**
   * Optional, on a store that declares `chain`: writes a new run from an export with the proofs it
   * carries (docs/design/verify.md 2.6): each entry's `json` is the whole stored line, its `chain`
   * member included, written byte for byte (never stamped again). `RunStore.importChained` alone
   * calls it, after checking every line. A run that exists already is a `CONFLICT`.
   */
  importChained?(runId: string, entries: readonly RunRecordEntry[]): MaybePromise<number>;
  /**
   * Optional, with `importChained`: appends erasure entries an export carries to the store's
   * erasure log, as they are (their ids kept, so the redacted lines that name them verify), each
   * stamped into the log's own chain; an entry whose id is in the log already is skipped.
   */
  importErasures?(entries: readonly ErasureEntry[]): MaybePromise<void>;
  close?(): MaybePromise<void>;
}

/** The erasure log's stored lines: what `RunStoreAdapter.erasureChain` returns. */
export interface RunErasureChain {
  /** Where the log is stored (store-fs: `sessions/erasures.jsonl`). */
  readonly location?: string;
  /** Its stored lines, unparsed (`runChainLines`), in stored order. */
  readonly lines: readonly RunChainLine[];
}

/** One stored line of a run, unparsed: what `RunStoreAdapter.readChain` returns. */
export interface RunChainLine {
  /** The entry's position (1-based; blank lines are no entries). */
  readonly position: number;
  /** The 1-based line number in the run's stored text (blank lines counted). */
  readonly line: number;
  /** The line's text without its newline, exactly as stored (padding and damage included). */
  readonly text: string;
  /**
   * Optional: the line's stored bytes without its newline (a store that reads its file as bytes:
   * `runChainLinesOfBytes`). `RunStore.verifyChain` hashes these where they lie (no decode);
   * `text` is then their UTF-8 decoding, made when it is read.
   */
  readonly bytes?: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A line read as bytes: its text decoded once, when it is first read. */
class BytesChainLine implements RunChainLine {
  #text: string | undefined;
  constructor(
    readonly position: number,
    readonly line: number,
    readonly bytes: Uint8Array,
  ) {}
  get text(): string {
    this.#text ??= utf8.decode(this.bytes);
    return this.#text;
  }
}

/** `isBlankRunLine` on a line's bytes: decodes only a line that starts with a non-ASCII byte. */
function isBlankRunBytes(bytes: Uint8Array, start: number, end: number, first: boolean): boolean {
  for (let index = start; index < end; index++) {
    const byte = bytes[index] as number;
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    if (byte < 0x80) return false;
    return isBlankRunLine(utf8.decode(bytes.subarray(start, end)), first);
  }
  return true;
}

/**
 * `runChainLines` over a run's stored bytes (its whole file): the same lines, each with `bytes`, a
 * view into `bytes` (not a copy), and its `text` decoded only when read.
 */
export function runChainLinesOfBytes(bytes: Uint8Array): RunChainLine[] {
  const lines: RunChainLine[] = [];
  let start = 0;
  let line = 0;
  const length = bytes.length;
  while (start < length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? length : newline;
    line++;
    if (!isBlankRunBytes(bytes, start, end, line === 1))
      lines.push(new BytesChainLine(lines.length + 1, line, bytes.subarray(start, end)));
    start = end + 1;
  }
  return lines;
}

/**
 * The lines of a run's stored JSONL text as `readChain` gives them: every line that is an entry
 * (blank lines skipped, a torn last line without its newline included), not parsed.
 */
export function runChainLines(text: string): RunChainLine[] {
  const lines: RunChainLine[] = [];
  let start = 0;
  let line = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const raw = text.slice(start, end);
    line++;
    if (!isBlankRunLine(raw, line === 1))
      lines.push({ position: lines.length + 1, line, text: raw });
    start = end + 1;
  }
  return lines;
}

/** Options of `RunStore.resolveRunId`. */
export interface ResolveRunIdOptions {
  /** What the id names, for messages ("run" or "task episode"). @default 'run' */
  kind?: 'run' | 'task';
  /** The argument's name in messages. @default 'run id' */
  subject?: string;
  /**
   * Which runs the caller may see (a scope, a policy): a prefix never resolves to, names or counts
   * a run this rejects. @default every run
   */
  visible?: (runId: string) => boolean | Promise<boolean>;
}

/** The run store callers use: always promises, validated input, domain errors. */
export interface RunStore {
  readonly name: string;
  readonly capabilities: RunStoreCapabilities;
  /**
   * Appends records to a run, in order. A new run starts with its `header`; appending anything
   * else to an unknown run is `NOT_FOUND`; a different header for an existing run is `CONFLICT`
   * (an identical one is skipped, so creating a run is idempotent). Invalid records are a
   * `VALIDATION_ERROR` and nothing is written. With `expectedPosition` the append is a
   * compare-and-append: `CONFLICT`, and nothing written, when the run is not at that position.
   */
  append(
    runId: string,
    records: readonly RunRecord[],
    options?: RunAppendOptions,
  ): Promise<RunAppendReceipt>;
  /** The whole run, read tolerantly. `NOT_FOUND` when it does not exist. */
  read(runId: string): Promise<RunReadResult>;
  /**
   * The entries after `position` (a `position` from an earlier read or receipt): what other
   * writers appended since, at a cost that does not grow with the run. `NOT_FOUND` when the run
   * does not exist; `CONFLICT` when `position` is beyond the run's end (the run was deleted and
   * started again: read it from position 0).
   */
  readAfter(runId: string, position: number): Promise<RunReadAfterResult>;
  /** The last records of a run. `NOT_FOUND` when it does not exist. */
  tail(runId: string, options?: RunTailOptions): Promise<RunTailResult>;
  /** Runs matching `query`, newest first; one bad run yields one error and hides nothing else. */
  list(query?: RunListQuery): Promise<RunListResult>;
  /**
   * Deletes a run; false when there was none. On a chained store the deletion is recorded in the
   * erasure log (a `collect` entry) with `options.by` as who asked (default: the library call).
   */
  delete(runId: string, options?: RunDeleteOptions): Promise<boolean>;
  /**
   * Scrubs a stored run in place (see `StoredRedactionOptions`): by default every secret the
   * ledger's content detectors find in its records, damaged lines and cached tool outputs is
   * replaced by a typed placeholder; `mode: 'content'` replaces all text. `NOT_FOUND` when the run
   * does not exist, `UNSUPPORTED` when the backend cannot rewrite runs. Writers may keep
   * appending meanwhile: none of their records is lost and positions stay valid (records appended
   * after the redaction started may be left unscrubbed: redact again once the writers stop).
   */
  redact(runId: string, options?: StoredRedactionOptions): Promise<RunRedactReceipt>;
  /**
   * The run id a person typed: a whole UUID (returned lowercase, not looked up), or a unique
   * prefix of at least 6 characters, e.g. `7c1d7358` as tables show it. No match is `NOT_FOUND`;
   * several are a `VALIDATION_ERROR` naming a few and their count; anything else is a
   * `VALIDATION_ERROR` saying what an id looks like.
   */
  resolveRunId(reference: string, options?: ResolveRunIdOptions): Promise<string>;
  /**
   * Full-text search over run records (message and tool text, tool outputs, task steps and
   * completions, errors: `searchTextOfRunRecord`): one page of hits, best first, filtered by run,
   * record type, time and what the run's header names (scope, session). `UNSUPPORTED` when the
   * backend keeps no search index (`capabilities.search`).
   */
  search(query: RunSearchQuery): Promise<RunSearchPage>;
  /**
   * Verifies the chain of every run the store lists (or of the runs named) with core's verifier
   * fold, against the store's erasure log, and the log's own chained lines (stream kind
   * `erasures`): what was altered, inserted, deleted or reordered outside Episodic, and what
   * Episodic redacted or collected (docs/design/verify.md section 4). `UNSUPPORTED` when the
   * store does not chain (`capabilities.chain`).
   */
  verifyChain(options: RunVerifyChainOptions): Promise<ChainReport>;
  /**
   * A run's stored lines as they are, each with its `chain` member (what an export with proofs
   * carries, docs/design/verify.md 2.6). `NOT_FOUND` when the run does not exist, `UNSUPPORTED`
   * when the store does not chain (`capabilities.chain`).
   */
  readChain(runId: string): Promise<RunChainLine[]>;
  /**
   * The entries of the store's erasure log (its redactions and collections of chained runs),
   * oldest first, each checked with `erasureEntrySchema` (an entry that does not parse is left
   * out). Empty on a store that keeps no erasure log.
   */
  readErasures(): Promise<ErasureEntry[]>;
  /**
   * Writes a new run from exported lines with their proofs (`import` of an
   * `episodic.export.v3` file): every line is a record's own JSON text (`JSON.stringify` of the
   * record) with, for a chained line, its `chain` member last, and is stored byte for byte, so the
   * run verifies to the same heads as in the home it came from. Every record is validated as
   * `append` validates it, and nothing is written unless every line is accepted
   * (`VALIDATION_ERROR` naming the line). `CONFLICT` when the run exists, `UNSUPPORTED` when the
   * store does not chain. Returns the number of lines written.
   */
  importChained(runId: string, lines: readonly string[]): Promise<number>;
  /**
   * Adds erasure entries from an export to the store's erasure log, ids kept (an id already in the
   * log is skipped), so that redactions recorded in the source home verify as `redacted` here.
   * `UNSUPPORTED` when the store keeps no erasure log.
   */
  importErasures(entries: readonly ErasureEntry[]): Promise<void>;
  close(): Promise<void>;
}

/** Options of `RunStore.verifyChain`. */
export interface RunVerifyChainOptions {
  /** A synchronous SHA-256 (Node: `(bytes) => crypto.hash('sha256', bytes, 'buffer')`). */
  sha256: Sha256;
  /** Only this run (its erasure log entries and the log's own lines are still read). */
  runId?: string;
  /** Only these runs (a scoped store passes the runs it may show); not with `runId`. */
  runIds?: readonly string[];
  /** Findings kept in the report (the counts keep counting). @default 1000 */
  maxFindings?: number;
  /**
   * Anchor files (`episodic.anchors.v1`, checked by the verifier), oldest first; needs
   * `verifySignature`. An anchored run (or erasure log) gone from the store is `deleted` only when
   * every run is verified (no `runId`, `runIds`).
   */
  anchors?: readonly unknown[];
  /** Checks an anchor file's Ed25519 signature over its signing text (`@episodic/home` wires it). */
  verifySignature?: (file: AnchorFile, signed: string) => boolean;
  /** Called with where each verified stream ended (its key, `n`, head): what an anchor records. */
  onStream?: (summary: ChainStreamSummary) => void;
}

/** The default number of records `tail()` returns. */
export const DEFAULT_TAIL_COUNT = 100;
/** The most records one `tail()` may ask for. */
export const MAX_TAIL_COUNT = 100_000;
/** The most run ids one `list({ runIds })` may ask for. */
const MAX_LISTED_RUN_IDS = 10_000;
/** The scope of a run whose header names none. */
export const DEFAULT_RUN_SCOPE = 'default';

// ---------------------------------------------------------------------------------------------
// The wrapper
// ---------------------------------------------------------------------------------------------

const listQuerySchema = z
  .strictObject({
    sessionId: uuidSchema.optional(),
    runIds: z.array(uuidSchema).max(MAX_LISTED_RUN_IDS).optional(),
    scope: z.string().min(1).optional(),
    from: runTimestampSchema.optional(),
    to: runTimestampSchema.optional(),
    limit: z.number().int().positive().optional(),
  })
  .optional();

/** A run position: a count of stored entries. */
const positionSchema = z.number().int().nonnegative();

const appendOptionsSchema = z.strictObject({
  expectedPosition: positionSchema.optional(),
  expectedHeaderLine: z.string().optional(),
});

const tailOptionsSchema = z
  .strictObject({ count: z.number().int().min(1).max(MAX_TAIL_COUNT).optional() })
  .optional();

const customRecord = lazyCompiled(customRunRecordSchema);
const compiledRunSearch = lazyCompiled(runSearchQuerySchema);

/** A run search row as a hit, its numbers converted. */
function runHitOf(row: RunSearchRow): RunSearchHit {
  const tsMs = row.ts_ms === null ? null : Number(row.ts_ms);
  return {
    run_id: row.run_id,
    position: Number(row.position),
    type: row.type,
    ts: tsMs === null || !Number.isFinite(tsMs) ? null : new Date(tsMs).toISOString(),
    score: row.score,
    snippet: row.snippet,
  };
}

/** A run search's page from the adapter's rows (`limit + 1` of them tell whether more follow). */
export function runSearchPageOf(hits: readonly RunSearchHit[], limit: number): RunSearchPage {
  const page = hits.slice(0, limit);
  const last = page[page.length - 1];
  return {
    hits: page,
    nextCursor:
      hits.length > limit && last !== undefined
        ? encodeRunSearchCursor({ score: last.score, runId: last.run_id, position: last.position })
        : null,
  };
}
const laterRecord = lazyCompiled(laterRunRecordSchema);

function checkAdapter(adapter: RunStoreAdapter): void {
  if (adapter?.specificationVersion !== 'v1') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `This run store adapter implements specification ${String(adapter?.specificationVersion)}, but @episodic/core needs 'v1'. Upgrade the store package to match @episodic/core.`,
      details: { specificationVersion: adapter?.specificationVersion },
    });
  }
}

/** Validates a run id and returns it lowercase (paths and keys must not depend on its case). */
export function parseRunId(value: unknown, subject = 'run id'): string {
  // The schema's own pattern, tested directly: a run id is parsed on every append and read.
  if (typeof value === 'string' && UUID_PATTERN.test(value)) return value.toLowerCase();
  return parseInput(uuidSchema, value, subject).toLowerCase();
}

/**
 * The `NOT_FOUND` for a run that does not exist. For a read (the default) it only says how to find
 * the right id; for an append (`action: 'append'`) it also says how a run is started.
 */
export function runNotFound(runId: string, action: 'read' | 'append' = 'read'): EpisodicError {
  return new EpisodicError({
    code: 'NOT_FOUND',
    message:
      action === 'append'
        ? `Run ${runId} does not exist. Check the id (list runs to see the ones stored), or start the run by appending its header first.`
        : `Run ${runId} does not exist. Check the id (list runs to see the ones stored).`,
    details: { runId },
  });
}

/**
 * Throws `CONFLICT` unless the run's `currentPosition` equals `expectedPosition`: the check of
 * every compare-and-append.
 */
export function assertExpectedRunPosition(
  runId: string,
  currentPosition: number,
  expectedPosition: number,
): void {
  if (currentPosition === expectedPosition) return;
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId} is at position ${currentPosition}, not ${expectedPosition}: another writer appended first (or the run ${currentPosition === 0 ? 'does not exist' : 'already exists'}). Nothing was written; read what was added with readAfter(runId, ${Math.min(expectedPosition, currentPosition)}), decide again and retry.`,
    details: { runId, expectedPosition, position: currentPosition },
  });
}

/**
 * Throws `CONFLICT` (`details.reason: 'header'`) unless the run's first stored line (`undefined`
 * when the run does not exist) is `expectedHeaderLine` (when one is given): the header check of a
 * compare-and-append, for stores declaring the `headerLine` capability.
 */
export function assertExpectedRunHeader(
  runId: string,
  storedHeaderLine: string | undefined,
  expectedHeaderLine: string | undefined,
): void {
  if (expectedHeaderLine === undefined || storedHeaderLine === expectedHeaderLine) return;
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId} ${storedHeaderLine === undefined ? 'no longer exists' : 'has another header than the one expected: it was deleted and created again'}. Nothing was written; read the run again and decide anew.`,
    details: { runId, reason: 'header' },
  });
}

/** The `CONFLICT` for a `readAfter` position beyond the run's end. */
export function positionBeyondEnd(runId: string, position: number, end: number): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId} holds ${end} entries, fewer than position ${position}: it was deleted and started again, or rewritten by another tool. Read it again from position 0.`,
    details: { runId, position, end },
  });
}

/** How errors name the record at `index` (built only for an error). */
function recordSubject(index: number): string {
  return `run record [${index}]`;
}

/**
 * Validates records for `append` and serializes them: known types against their schema, custom
 * types must be namespaced `x.<org>.<name>`; the header only first; every `run_id` must name the
 * run; strings must be well-formed Unicode (a lone surrogate would make the line unreadable later).
 */
export function prepareRunRecords(runId: string, records: unknown): RunRecordEntry[] {
  if (!Array.isArray(records) || records.length === 0) {
    throw invalidField(
      'run records',
      'records',
      records,
      'must be a non-empty array of run records',
    );
  }
  const entries: RunRecordEntry[] = new Array(records.length);
  for (let index = 0; index < records.length; index++) {
    const value: unknown = records[index];
    const type = (value as { type?: unknown } | null)?.type;
    let schema: z.ZodType;
    if (isKnownRunRecordType(type)) {
      schema = runRecordSchemaFor(type);
    } else if (typeof type === 'string' && CUSTOM_RUN_RECORD_TYPE_PATTERN.test(type)) {
      schema = customRecord();
    } else if (
      typeof type === 'string' &&
      LATER_RUN_RECORD_TYPE_PATTERN.test(type) &&
      nearKnownRunRecordType(type) === undefined
    ) {
      // A seed type newer than this version (written back from an export or a newer writer's file).
      schema = laterRecord();
    } else {
      const near = typeof type === 'string' ? nearKnownRunRecordType(type) : undefined;
      throw invalidField(
        recordSubject(index),
        'type',
        type,
        near === undefined
          ? 'must be a seed 001 record type (header, run.start, run.context, agent.event, tool.output, llm.request, llm.response, run.status, run.error, run.end), a custom type namespaced as x.<org>.<name>, or a newer seed type (lowercase words joined by dots, e.g. run.plan)'
          : `must be a seed 001 record type: did you mean "${near}"?`,
      );
    }
    // Validated without copying and stored as given (no defaults filled in); the JSON is taken
    // now, so a caller changing the object later changes nothing.
    const record = (
      schema.validate(value) ? value : parseInput(schema, value, recordSubject(index))
    ) as RunRecord;
    if (record.type === 'header' && index !== 0) {
      throw invalidField(
        recordSubject(index),
        'type',
        'header',
        'a header must be the first record of the run; append it alone or first',
      );
    }
    const recordRunId = (record as { run_id?: unknown }).run_id;
    if (typeof recordRunId !== 'string' || recordRunId.toLowerCase() !== runId) {
      throw invalidField(
        recordSubject(index),
        'run_id',
        recordRunId,
        `must be the run id ${runId}`,
      );
    }
    const json = JSON.stringify(record);
    if (hasLoneSurrogateEscape(json)) {
      throw invalidField(
        recordSubject(index),
        '(a string)',
        describeValue(record),
        'contains a lone UTF-16 surrogate (a string cut in the middle of a character); repair it, e.g. with String.prototype.toWellFormed()',
      );
    }
    entries[index] = { record, json };
  }
  return entries;
}

/**
 * True when JSON text contains a `\uD800`–`\uDFFF` escape that is a real escape (not an escaped
 * backslash followed by `ud…`). `JSON.stringify` escapes exactly the lone surrogates this way.
 */
export function hasLoneSurrogateEscape(json: string): boolean {
  let index = json.indexOf('\\u');
  while (index !== -1) {
    const marker = json.charCodeAt(index + 2);
    const next = json.charCodeAt(index + 3);
    if ((marker === 0x64 || marker === 0x44) && isSurrogateHexDigit(next)) {
      let backslashes = 0;
      for (let cursor = index - 1; cursor >= 0 && json.charCodeAt(cursor) === 0x5c; cursor--)
        backslashes++;
      if (backslashes % 2 === 0) {
        // A real escape: a lone surrogate unless a low one follows a high one (only hand-written
        // JSON does that; JSON.stringify writes pairs raw).
        const parsed = safeJsonParse(`"${json.slice(index, index + 12)}"`);
        if (
          !parsed.success ||
          typeof parsed.value !== 'string' ||
          !parsed.value.isWellFormed() ||
          parsed.value.length === 1
        ) {
          return true;
        }
        index += 6;
      }
    }
    index = json.indexOf('\\u', index + 2);
  }
  return false;
}

function isSurrogateHexDigit(code: number): boolean {
  // 8, 9, a–f, A–F: the second hex digit of D800–DFFF.
  return (
    code === 0x38 ||
    code === 0x39 ||
    (code >= 0x61 && code <= 0x66) ||
    (code >= 0x41 && code <= 0x46)
  );
}

/** Wraps an adapter into the `RunStore` callers use. */
export function createRunStore(adapter: RunStoreAdapter): RunStore {
  checkAdapter(adapter);
  const name = adapter.name;
  return {
    name,
    capabilities: adapter.capabilities,
    async append(id, records, options) {
      const runId = parseRunId(id);
      const entries = prepareRunRecords(runId, records);
      if (options !== undefined) {
        const { expectedPosition, expectedHeaderLine } = parseInput(
          appendOptionsSchema,
          options,
          'append options',
        );
        if (expectedHeaderLine !== undefined) {
          if (expectedPosition === undefined) {
            throw invalidField(
              'append options',
              'expectedHeaderLine',
              expectedHeaderLine,
              'needs expectedPosition (it is part of a compare-and-append); pass both',
            );
          }
          if (adapter.capabilities.headerLine !== true) {
            throw new EpisodicError({
              code: 'UNSUPPORTED',
              message: `The ${name} run store does not check header lines (it does not declare the headerLine capability). Append with expectedPosition alone.`,
              details: { store: name, runId },
            });
          }
        }
        if (expectedPosition !== undefined) {
          const result = await callAdapter(name, `append to run ${runId}`, () =>
            adapter.appendAt(runId, entries, expectedPosition, expectedHeaderLine),
          );
          return { runId, appended: result.appended, position: result.position };
        }
      }
      // The hot path of a run: callAdapter's work without its extra async frame per record (an
      // adapter may answer synchronously, as the fs store does for an unsynced append).
      let appended: number;
      try {
        const result = adapter.append(runId, entries);
        appended = typeof result === 'number' ? result : await result;
      } catch (error) {
        throw toStorageError(name, `append to run ${runId}`, error);
      }
      return { runId, appended };
    },
    async read(id) {
      const runId = parseRunId(id);
      const result = await callAdapter(name, `read run ${runId}`, () => adapter.read(runId));
      if (result === null) throw runNotFound(runId);
      return result;
    },
    async readAfter(id, position) {
      const runId = parseRunId(id);
      const after = parseInput(positionSchema, position, 'readAfter position');
      const result = await callAdapter(name, `read run ${runId}`, () =>
        adapter.readAfter(runId, after),
      );
      if (result === null) throw runNotFound(runId);
      return result;
    },
    async tail(id, options) {
      const runId = parseRunId(id);
      const { count = DEFAULT_TAIL_COUNT } =
        parseInput(tailOptionsSchema, options, 'tail options') ?? {};
      const result = await callAdapter(name, `tail run ${runId}`, () => adapter.tail(runId, count));
      if (result === null) throw runNotFound(runId);
      return result;
    },
    async list(query) {
      const checked = parseInput(listQuerySchema, query, 'run list query') ?? {};
      const filter: RunListFilter = {};
      if (checked.sessionId !== undefined) filter.sessionId = checked.sessionId.toLowerCase();
      if (checked.runIds !== undefined) {
        filter.runIds = new Set(checked.runIds.map((runId) => runId.toLowerCase()));
      }
      if (checked.scope !== undefined) filter.scope = checked.scope;
      if (checked.from !== undefined) filter.fromMs = Date.parse(checked.from);
      if (checked.to !== undefined) filter.toMs = Date.parse(checked.to);
      if (checked.limit !== undefined) filter.limit = checked.limit;
      if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs > filter.toMs) {
        throw invalidField(
          'run list query',
          'from',
          checked.from,
          `must not be after to (${checked.to})`,
        );
      }
      return callAdapter(name, 'list runs', () => listRuns(adapter, filter));
    },
    async delete(id, options) {
      const runId = parseRunId(id);
      const checked = parseInput(runDeleteOptionsSchema, options, 'run delete options');
      return callAdapter(name, `delete run ${runId}`, () =>
        checked?.by === undefined
          ? adapter.delete(runId)
          : adapter.delete(runId, { by: checked.by }),
      );
    },
    async redact(id, options) {
      const runId = parseRunId(id);
      const checked = parseStoredRedactionOptions(options, 'run redaction options');
      if (adapter.redact === undefined || adapter.capabilities.redaction !== true) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message: `The ${name} run store cannot redact runs in place. Delete run ${runId} instead, or move the run to a store that supports redaction.`,
          details: { store: name, runId },
        });
      }
      const redact = adapter.redact.bind(adapter);
      const redactor = createStoredRedactor(checked);
      const stats = await callAdapter(name, `redact run ${runId}`, () => redact(runId, redactor));
      if (stats === null) throw runNotFound(runId);
      return { runId, mode: redactor.mode, ...stats, replacements: redactor.counts.replacements };
    },
    async resolveRunId(reference, options = {}) {
      const kind = options.kind ?? 'run';
      const parsed = parseIdReference(
        reference,
        kind,
        options.subject ?? `${kind === 'task' ? 'episode' : 'run'} id`,
      );
      if (parsed.kind === 'id') return parsed.id;
      const { prefix } = parsed;
      const found = await callAdapter(name, `find the runs starting with ${prefix}`, async () =>
        adapter.runIdsWithPrefix === undefined
          ? (await listRuns(adapter, {})).runs
              .map((run) => run.runId)
              .filter((runId) => runId.startsWith(prefix))
              .sort()
              .slice(0, ID_PREFIX_CANDIDATE_LIMIT)
          : adapter.runIdsWithPrefix(prefix, ID_PREFIX_CANDIDATE_LIMIT),
      );
      const visible: string[] = [];
      for (const runId of found) {
        if (!runId.startsWith(prefix)) continue;
        if (options.visible === undefined || (await options.visible(runId))) visible.push(runId);
      }
      // With a visibility filter the count is of visible runs only, and never "at least": a
      // full page of candidates would otherwise hint at runs the caller may not see.
      return resolveIdPrefix(prefix, visible, kind, {
        atLeast: options.visible === undefined && found.length >= ID_PREFIX_CANDIDATE_LIMIT,
      });
    },
    async search(input) {
      const query = parseInput(compiledRunSearch(), input, 'run search');
      const fromMs = query.from === undefined ? undefined : Date.parse(query.from);
      const toMs = query.to === undefined ? undefined : Date.parse(query.to);
      if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) {
        throw invalidField(
          'run search',
          'from',
          query.from,
          `must not be after to (${query.to}): the range is inclusive, swap the bounds`,
        );
      }
      const match = parseSearchText(query.text);
      const after = query.cursor === undefined ? undefined : decodeRunSearchCursor(query.cursor);
      const search = adapter.search?.bind(adapter);
      if (search === undefined || adapter.capabilities.search !== true) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message: `The ${name} run store keeps no search index. Search runs in a store that does (the memory run store, @episodic/store-sqlite), or read the runs with list() and read() instead.`,
          details: { store: name },
        });
      }
      const plan: RunSearchPlan = {
        match,
        limit: query.limit + 1,
        ...(query.runId === undefined ? {} : { runId: query.runId.toLowerCase() }),
        ...(query.types === undefined ? {} : { types: [...new Set(query.types)].sort() }),
        ...(query.scope === undefined ? {} : { scope: query.scope }),
        ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId.toLowerCase() }),
        ...(fromMs === undefined ? {} : { fromMs }),
        ...(toMs === undefined ? {} : { toMs }),
        ...(after === undefined ? {} : { after }),
      };
      const rows = await callAdapter(name, 'search runs', () => search(plan));
      return runSearchPageOf(rows.map(runHitOf), query.limit);
    },
    async verifyChain(input) {
      const parsed = parseInput(verifyChainOptionsSchema, input, 'run chain verify options');
      if (parsed.runId !== undefined && parsed.runIds !== undefined) {
        throw invalidField(
          'run chain verify options',
          'runIds',
          parsed.runIds,
          'give runId (one run) or runIds (several), not both',
        );
      }
      const readChain = adapter.readChain?.bind(adapter);
      if (adapter.capabilities.chain !== true || readChain === undefined) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message: `The ${name} run store does not chain its runs. Open it with its chain option (createFsStore({ chain: true }), createMemoryRunStore({ chain })) to record proofs from the next append on.`,
          details: { store: name },
        });
      }
      const entries = await callAdapter(name, 'read the erasure log', () =>
        adapter.erasures === undefined ? [] : adapter.erasures(),
      );
      // Runs named: only their own erasure entries count (found by their stream keys), so a
      // report names nothing of the other runs (a run collected whole, the log's own lines).
      const restricted = parsed.runId !== undefined || parsed.runIds !== undefined;
      const runIds =
        parsed.runId !== undefined
          ? [parsed.runId.toLowerCase()]
          : parsed.runIds !== undefined
            ? [...new Set(parsed.runIds.map((runId) => runId.toLowerCase()))].sort()
            : await callAdapter(name, 'list runs', () => storedRunIds(adapter));
      let erasures: readonly unknown[] = entries;
      if (restricted && entries.length > 0) {
        const keys = new Set<string>();
        for (const runId of runIds) {
          const lines = await callAdapter(name, `read run ${runId}`, () => readChain(runId));
          for (const { text } of lines ?? []) {
            const key = streamKeyOfLine(text);
            if (key !== undefined) {
              keys.add(key);
              break;
            }
          }
        }
        erasures = entries.filter((entry) =>
          keys.has((entry as { stream?: unknown } | null)?.stream as string),
        );
      }
      const verifier = createChainVerifier({
        sha256: parsed.sha256,
        erasures: [...erasures],
        ...(parsed.maxFindings === undefined ? {} : { maxFindings: parsed.maxFindings }),
        ...(parsed.anchors === undefined ? {} : { anchors: parsed.anchors }),
        ...(parsed.verifySignature === undefined
          ? {}
          : { verifySignature: parsed.verifySignature }),
        // Runs named: an anchored run not among them is not gone, only not asked for.
        anchoredKinds: restricted ? [] : ['run', 'erasures'],
      });
      const ended = (summary: ChainStreamSummary) => parsed.onStream?.(summary);
      for (const runId of runIds) {
        const lines = await callAdapter(name, `read run ${runId}`, () => readChain(runId));
        if (lines === null) {
          // A run named by the caller that is not there; a listed one that went meanwhile.
          if (parsed.runId !== undefined) throw runNotFound(runId);
          continue;
        }
        const location = await callAdapter(name, `locate run ${runId}`, () =>
          adapter.chainLocation === undefined ? null : adapter.chainLocation(runId),
        );
        const stream = { kind: 'run', id: runId } as const;
        for (const stored of lines)
          verifier.line(
            stream,
            stored.bytes ?? stored.text,
            location === null ? { line: stored.line } : { file: location, line: stored.line },
          );
        ended(verifier.endStream(stream));
      }
      if (!restricted && adapter.erasureChain !== undefined) {
        const erasureChain = adapter.erasureChain.bind(adapter);
        const log = await callAdapter(name, 'read the erasure log', () => erasureChain());
        if (log.lines.length > 0) {
          const stream = { kind: 'erasures' } as const;
          for (const { line, text } of log.lines)
            verifier.line(
              stream,
              text,
              log.location === undefined ? { line } : { file: log.location, line },
            );
          ended(verifier.endStream(stream));
        }
      }
      return verifier.report();
    },
    async readChain(id) {
      const runId = parseRunId(id);
      const readChain = adapter.readChain?.bind(adapter);
      if (adapter.capabilities.chain !== true || readChain === undefined)
        throw notChained(name, 'read its proofs');
      const lines = await callAdapter(name, `read run ${runId}`, () => readChain(runId));
      if (lines === null) throw runNotFound(runId);
      // Plain lines with their text (a store's byte lines decode it only when read): what a caller
      // spreads or serializes keeps every field.
      return lines.map(({ position, line, text }) => ({ position, line, text }));
    },
    async readErasures() {
      if (adapter.capabilities.chain !== true || adapter.erasures === undefined) return [];
      const erasures = adapter.erasures.bind(adapter);
      const entries = await callAdapter(name, 'read the erasure log', () => erasures());
      const valid: ErasureEntry[] = [];
      for (const entry of entries) {
        const parsed = erasureEntrySchema.safeParse(entry);
        if (parsed.success) valid.push(parsed.data);
      }
      return valid;
    },
    async importChained(id, lines) {
      const runId = parseRunId(id);
      const checked = parseInput(importLinesSchema, lines, 'imported run lines');
      const importChained = adapter.importChained?.bind(adapter);
      if (adapter.capabilities.chain !== true || importChained === undefined)
        throw notChained(name, 'import proofs');
      const entries = importedEntries(runId, checked);
      return callAdapter(name, `import run ${runId}`, () => importChained(runId, entries));
    },
    async importErasures(input) {
      const checked = parseInput(importErasuresSchema, input, 'imported erasure entries');
      const importErasures = adapter.importErasures?.bind(adapter);
      if (adapter.capabilities.chain !== true || importErasures === undefined)
        throw notChained(name, 'import erasure entries');
      if (checked.length === 0) return;
      await callAdapter(name, 'import erasure entries', () => importErasures(checked));
    },
    async close() {
      await callAdapter(name, 'close', () => adapter.close?.());
    },
  };
}

const importLinesSchema = z.array(z.string().min(2)).min(1);
const importErasuresSchema = z.array(erasureEntrySchema).max(10_000_000);
const CHAIN_MEMBER_START = ',"chain":{"n":';

function notChained(name: string, what: string): EpisodicError {
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message: `The ${name} run store does not chain its runs, so it cannot ${what}. Open it with its chain option (createFsStore({ chain: true }), "chain": true in episodic-home.json) first.`,
    details: { store: name },
  });
}

/** A chain member as a stored line writes it: n, k, s or r, c, h, in that order. */
export function chainMemberText(member: ChainMember): string {
  const parts = [`"n":${member.n}`];
  if (member.k !== undefined) parts.push(`"k":"${member.k}"`);
  if (member.s !== undefined) parts.push(`"s":"${member.s}"`);
  if (member.r !== undefined) parts.push(`"r":"${member.r}"`);
  parts.push(`"c":"${member.c}"`);
  if (member.h !== undefined) parts.push(`"h":"${member.h}"`);
  return `{${parts.join(',')}}`;
}

/**
 * A stored run line split into its record's text and its chain member (null for a line written
 * without one). Padding spaces after a redacted line are dropped. Null when the line is no JSON
 * object with a record (a damaged line).
 */
export function splitChainedRunLine(
  text: string,
): { record: Record<string, unknown>; recordJson: string; chain: ChainMember | null } | null {
  const line = text.trimEnd();
  const at = line.lastIndexOf(CHAIN_MEMBER_START);
  let recordJson = line;
  let chain: ChainMember | null = null;
  if (at > 0 && line.endsWith('}}')) {
    const member = safeJsonParse(line.slice(at + ',"chain":'.length, -1));
    const parsed = member.success ? chainMemberSchema.safeParse(member.value) : undefined;
    if (parsed?.success === true && chainMemberText(parsed.data) === line.slice(at + 9, -1)) {
      recordJson = `${line.slice(0, at)}}`;
      chain = parsed.data;
    }
  }
  const parsed = safeJsonParse(recordJson);
  if (!parsed.success || typeof parsed.value !== 'object' || parsed.value === null) return null;
  if (Array.isArray(parsed.value)) return null;
  return { record: parsed.value as Record<string, unknown>, recordJson, chain };
}

/** The entries `importChained` gives the adapter: each record validated, `json` the whole line. */
function importedEntries(runId: string, lines: readonly string[]): RunRecordEntry[] {
  const split = lines.map((text, index) => {
    const parts = splitChainedRunLine(text);
    if (parts === null)
      throw invalidField(
        `imported run line ${index + 1}`,
        'line',
        text,
        'must be a run record as JSON',
      );
    return parts;
  });
  const entries = prepareRunRecords(
    runId,
    split.map((parts) => parts.record),
  );
  return entries.map((entry, index) => {
    const parts = split[index] as (typeof split)[number];
    if (entry.json !== parts.recordJson) {
      throw invalidField(
        `imported run line ${index + 1}`,
        'line',
        parts.recordJson,
        "must be the record's own JSON text (JSON.stringify of the record), as Episodic writes it",
      );
    }
    return parts.chain === null
      ? entry
      : {
          record: entry.record,
          json: `${parts.recordJson.slice(0, -1)},"chain":${chainMemberText(parts.chain)}}`,
        };
  });
}

// ---------------------------------------------------------------------------------------------
// Rules shared by every adapter
// ---------------------------------------------------------------------------------------------

/**
 * Decides what an append writes, given the run's stored header (`undefined`: the run does not
 * exist; `null`: it exists but its header is unreadable; a string: the stored header line as text,
 * read here with `readRunHeaderLine`). Returns the entries to write: all of them, or all but a
 * leading header identical to the stored one. Throws `NOT_FOUND` when a run that does not exist is
 * appended to without a header, and `CONFLICT` when a header differs from the stored one.
 */
export function planRunAppend(
  runId: string,
  stored: RunHeader | string | null | undefined,
  entries: readonly RunRecordEntry[],
): readonly RunRecordEntry[] {
  const storedHeader = typeof stored === 'string' ? readRunHeaderLine(stored) : stored;
  const first = entries[0];
  const startsWithHeader = first?.record.type === 'header';
  if (storedHeader === undefined) {
    if (!startsWithHeader) throw runNotFound(runId, 'append');
    return entries;
  }
  if (!startsWithHeader) return entries;
  if (storedHeader !== null && jsonEqual(storedHeader, first?.record)) return entries.slice(1);
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Run ${runId} already exists with ${storedHeader === null ? 'an unreadable header' : 'a different header'}; a run's header is written once and never rewritten. Append the other records without a header, or start a new run with a new id.`,
    details: { runId },
  });
}

/** The scope a run header belongs to: its `scope` field, or `DEFAULT_RUN_SCOPE`. */
export function runHeaderScope(header: RunHeader): string {
  const scope = (header as { scope?: unknown }).scope;
  return typeof scope === 'string' && scope !== '' ? scope : DEFAULT_RUN_SCOPE;
}

/** The summary `list()` reports for a run, from its header. */
function summarizeRun(runId: string, header: RunHeader): RunSummary {
  const summary: RunSummary = {
    runId,
    startedAt: header.started_at,
    schemaVersion: header.schema_version,
    bestEffort: !isSupportedRunSchemaVersion(header.schema_version),
  };
  if (header.session_id !== undefined) summary.sessionId = header.session_id;
  if (header.model !== undefined) summary.model = header.model;
  if (header.runtime !== undefined) summary.runtime = header.runtime;
  return summary;
}

/** True when a run matches a list filter (limit aside). */
function matchesRunListFilter(
  summary: RunSummary,
  header: RunHeader,
  startMs: number,
  filter: RunListFilter,
): boolean {
  if (filter.sessionId !== undefined && summary.sessionId?.toLowerCase() !== filter.sessionId)
    return false;
  if (filter.runIds !== undefined && !filter.runIds.has(summary.runId)) return false;
  if (filter.scope !== undefined && runHeaderScope(header) !== filter.scope) return false;
  if (filter.fromMs === undefined && filter.toMs === undefined) return true;
  if (Number.isNaN(startMs)) return false;
  if (filter.fromMs !== undefined && startMs < filter.fromMs) return false;
  if (filter.toMs !== undefined && startMs > filter.toMs) return false;
  return true;
}

/** Newest start first (unparsable starts last), then by run id: the order every `list()` returns. */
export function compareRunSummaries(left: RunSummary, right: RunSummary): number {
  const leftMs = Date.parse(left.startedAt);
  const rightMs = Date.parse(right.startedAt);
  const leftKnown = !Number.isNaN(leftMs);
  const rightKnown = !Number.isNaN(rightMs);
  if (leftKnown !== rightKnown) return leftKnown ? -1 : 1;
  if (leftKnown && leftMs !== rightMs) return rightMs - leftMs;
  return left.runId < right.runId ? -1 : left.runId > right.runId ? 1 : 0;
}

function isPageIterable(
  value: RunListPage | Iterable<RunListPage>,
): value is Iterable<RunListPage> {
  return typeof (value as Partial<Iterable<RunListPage>>)[Symbol.iterator] === 'function';
}

/**
 * `list()` once for every backend: the adapter's rows, each header parsed and summarized, the
 * filter applied, newest first, then the limit.
 */
const verifyChainOptionsSchema = z.strictObject({
  sha256: z.custom<Sha256>((value) => typeof value === 'function', 'must be a function'),
  runId: uuidSchema.optional(),
  runIds: z.array(uuidSchema).max(100_000).optional(),
  maxFindings: z.number().int().min(1).max(1_000_000).optional(),
  anchors: z.array(z.unknown()).max(10_000).optional(),
  verifySignature: z
    .custom<(file: AnchorFile, signed: string) => boolean>(
      (value) => typeof value === 'function',
      'must be a function',
    )
    .optional(),
  onStream: z
    .custom<(summary: ChainStreamSummary) => void>(
      (value) => typeof value === 'function',
      'must be a function',
    )
    .optional(),
});

/** The stream key a stored run line's `chain` member names (`k`, on a stream's first chained line). */
function streamKeyOfLine(text: string): string | undefined {
  const member = text.lastIndexOf(',"chain":{"n":');
  if (member < 0) return undefined;
  return /^,"chain":\{"n":\d+,"k":"([\w-]{22})"/.exec(text.slice(member))?.[1];
}

/** Every run id the adapter lists (an unreadable header too: its lines are verified), sorted. */
async function storedRunIds(adapter: RunStoreAdapter): Promise<string[]> {
  const listed = await adapter.list({});
  const ids = new Set<string>();
  for (const page of isPageIterable(listed) ? listed : [listed]) {
    for (const row of page.rows) ids.add(row.runId);
    for (const error of page.errors ?? []) if (error.runId !== undefined) ids.add(error.runId);
  }
  return [...ids].sort();
}

async function listRuns(adapter: RunStoreAdapter, filter: RunListFilter): Promise<RunListResult> {
  const listed = await adapter.list(filter);
  const pages = isPageIterable(listed) ? listed : [listed];
  const runs: RunSummary[] = [];
  const errors: RunListError[] = [];
  let datedMatches = 0;
  for (const page of pages) {
    if (page.errors !== undefined) errors.push(...page.errors);
    for (const row of page.rows) {
      const header = readRunHeaderLine(row.header);
      if (header === null) {
        errors.push({
          runId: row.runId,
          location: row.location ?? `run ${row.runId}`,
          message:
            row.header === ''
              ? 'the run is empty: it has no header line'
              : 'the first line is not a readable run header',
        });
        continue;
      }
      const summary = summarizeRun(row.runId, header);
      const startMs = Date.parse(summary.startedAt);
      if (!matchesRunListFilter(summary, header, startMs, filter)) continue;
      runs.push(summary);
      if (!Number.isNaN(startMs)) datedMatches++;
    }
    // Later pages hold older runs only: they cannot beat the dated matches collected.
    if (filter.limit !== undefined && datedMatches >= filter.limit) break;
  }
  runs.sort(compareRunSummaries);
  return { runs: filter.limit === undefined ? runs : runs.slice(0, filter.limit), errors };
}

// ---------------------------------------------------------------------------------------------
// Tolerant reading, shared by every adapter
// ---------------------------------------------------------------------------------------------

/** What one stored line holds. */
export type RunLine =
  | { kind: 'blank' }
  | {
      kind: 'record';
      record: RunRecord;
      /** Set when the record was salvaged from a damaged line (e.g. NUL padding around it). */
      damage?: string;
    }
  | { kind: 'damaged'; message: string };

const EXCERPT_LENGTH = 80;

/** The excerpt a `RunReadError` shows for a damaged line. */
export function runLineExcerpt(raw: string): string {
  return JSON.stringify(raw.length > EXCERPT_LENGTH ? `${raw.slice(0, EXCERPT_LENGTH)}…` : raw);
}

/**
 * Reads one stored line (without its `\n`). Tolerates what crashes and other tools leave: a BOM
 * on the first line, a trailing `\r`, NUL padding, surrounding whitespace. A line of NULs, invalid
 * JSON, a record that fails its schema, or a lone-surrogate escape is damaged. Never throws.
 */
export function readRunLine(raw: string, isFirstLine: boolean): RunLine {
  let text = raw;
  // Fast path: an ordinary record line.
  if (!(text.charCodeAt(0) === 0x7b && text.charCodeAt(text.length - 1) === 0x7d)) {
    if (isFirstLine && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    let nulPadding = 0;
    if (text.length > 0 && (text.charCodeAt(0) === 0 || text.charCodeAt(text.length - 1) === 0)) {
      const trimmed = text.replace(/^\0+|\0+$/g, '');
      nulPadding = text.length - trimmed.length;
      if (trimmed.trim() === '')
        return { kind: 'damaged', message: `a run of ${nulPadding} NUL bytes` };
      text = trimmed;
    }
    text = text.trim();
    if (text === '') return { kind: 'blank' };
    if (nulPadding > 0) {
      const salvaged = readRecordText(text);
      if (salvaged.kind === 'record') {
        return { ...salvaged, damage: `${nulPadding} NUL bytes around the record` };
      }
      return {
        kind: 'damaged',
        message: `${nulPadding} NUL bytes, then ${salvaged.kind === 'damaged' ? salvaged.message : 'nothing'}`,
      };
    }
  }
  return readRecordText(text);
}

function readRecordText(text: string): RunLine {
  const parsed = safeJsonParse(text);
  if (!parsed.success) return { kind: 'damaged', message: `not valid JSON (${parsed.error})` };
  const checked = checkRunRecord(parsed.value);
  if (!checked.success) return { kind: 'damaged', message: checked.message };
  if (text.includes('\\u') && hasLoneSurrogateEscape(text)) {
    return {
      kind: 'damaged',
      message: 'contains a lone UTF-16 surrogate (a string cut in the middle of a character)',
    };
  }
  return { kind: 'record', record: checked.record };
}

/** Accumulates a whole run (or what follows a position) read line by line. */
export interface RunReadCollector {
  /**
   * Feeds the next stored line (without its `\n`), with its 1-based line number. `complete` is
   * false for a last line that has no newline yet (a torn write, one still being written, or a
   * file another tool ended without a newline): it never counts in the position; a whole-run read
   * still reports it (as a record or a damaged line), a read after a position leaves it for later.
   */
  line(raw: string, lineNumber: number, byteOffset?: number, complete?: boolean): void;
  /** Reports damage that is not a line (e.g. an unreadable chunk), in stored order. */
  error(error: RunReadError, complete?: boolean): void;
  /** The position so far (complete entries fed, plus the start position). */
  readonly position: number;
  /** The result so far, for a whole run. */
  result(): RunReadResult;
  /** The result so far, for a read after a position. */
  resultAfter(): RunReadAfterResult;
}

/**
 * True for a stored line that holds nothing, so it is not an entry and has no position: what
 * `readRunLine` reads as blank (whitespace, a BOM on the first line, a trailing CR), without
 * parsing the line.
 */
export function isBlankRunLine(raw: string, isFirstLine: boolean): boolean {
  let text = raw;
  if (isFirstLine && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  // A NUL at either end is a damaged line (a run of NULs), never a blank one.
  if (text.length > 0 && (text.charCodeAt(0) === 0 || text.charCodeAt(text.length - 1) === 0))
    return false;
  return text.trim() === '';
}

/**
 * A collector that turns a run's lines into a `RunReadResult` (see `readRunLine`). With
 * `startPosition` (a read after a position), no header is looked for and an incomplete last line
 * is left for a later read. With `end` too (the run's stored entry count), a `startPosition`
 * beyond it throws `positionBeyondEnd`'s `CONFLICT` before anything is read.
 */
export function createRunReadCollector(
  runId: string,
  startPosition: number | undefined = undefined,
  end: number | undefined = undefined,
): RunReadCollector {
  if (startPosition !== undefined && end !== undefined && startPosition > end) {
    throw positionBeyondEnd(runId, startPosition, end);
  }
  const after = startPosition !== undefined;
  const records: RunRecord[] = [];
  const errors: RunReadError[] = [];
  let header: RunHeader | null = null;
  let sawFirstLine = after;
  let firstLineDamaged = false;
  let ended = false;
  let position = startPosition ?? 0;
  const fail = (raw: string, message: string, lineNumber: number, byteOffset?: number) => {
    const error: RunReadError = { line: lineNumber, message, excerpt: runLineExcerpt(raw) };
    if (byteOffset !== undefined) error.byteOffset = byteOffset;
    errors.push(error);
  };
  return {
    line(raw, lineNumber, byteOffset, complete = true) {
      if (!complete && after) return;
      const isFirst = !sawFirstLine;
      const read = readRunLine(raw, lineNumber === 1);
      if (read.kind === 'blank') return;
      sawFirstLine = true;
      if (complete) position++;
      if (read.kind === 'damaged') {
        if (isFirst) firstLineDamaged = true;
        fail(raw, read.message, lineNumber, byteOffset);
        return;
      }
      if (read.damage !== undefined) fail(raw, read.damage, lineNumber, byteOffset);
      const { record } = read;
      if (isFirst && record.type === 'header') header = record as RunHeader;
      if (record.type === 'run.end') ended = true;
      records.push(record);
    },
    error(error, complete = true) {
      if (!complete && after) return;
      if (complete) position++;
      errors.push(error);
    },
    get position() {
      return position;
    },
    result() {
      const result: RunReadResult = {
        runId,
        header,
        records,
        errors,
        bestEffort: false,
        ended,
        position,
      };
      if (header === null) {
        result.bestEffort = true;
        result.bestEffortReason = firstLineDamaged
          ? 'the header line is damaged: records are read without it'
          : 'the run has no header: records are read without it';
      } else if (!isSupportedRunSchemaVersion((header as RunHeader).schema_version)) {
        result.bestEffort = true;
        result.bestEffortReason = `the header declares schema_version ${String((header as RunHeader).schema_version)}, but this reader knows ${RUN_RECORD_SCHEMA_VERSION}: fields and record types it does not understand are kept but not interpreted`;
      }
      return result;
    },
    resultAfter() {
      return { runId, records, errors, position };
    },
  };
}

/** Accumulates the tail of a run, fed line by line from the end. */
export interface RunTailCollector {
  /**
   * Feeds the previous stored line (walking backwards, without its `\n`). `isFirstLine` is true for
   * the file's first line. Returns true once `count` records are collected.
   */
  lineFromEnd(
    raw: string,
    isFirstLine: boolean,
    position: { line?: number; byteOffset?: number },
  ): boolean;
  /** Reports damage that is not a line (e.g. bytes that are not UTF-8), walking backwards. */
  errorFromEnd(error: RunReadError): void;
  /** The result, oldest first. */
  result(): RunTailResult;
}

/** A collector for `tail()`: the last `count` records and the damaged lines among them. */
export function createRunTailCollector(runId: string, count: number): RunTailCollector {
  const records: RunRecord[] = [];
  const errors: RunReadError[] = [];
  const fail = (raw: string, message: string, position: { line?: number; byteOffset?: number }) =>
    errors.push({ ...position, message, excerpt: runLineExcerpt(raw) });
  return {
    lineFromEnd(raw, isFirstLine, position) {
      if (records.length >= count) return true;
      const read = readRunLine(raw, isFirstLine);
      if (read.kind === 'damaged') fail(raw, read.message, position);
      else if (read.kind === 'record') {
        if (read.damage !== undefined) fail(raw, read.damage, position);
        records.push(read.record);
      }
      return records.length >= count;
    },
    errorFromEnd(error) {
      if (records.length < count) errors.push(error);
    },
    result() {
      return { runId, records: records.slice().reverse(), errors: errors.slice().reverse() };
    },
  };
}

/** Reads a run stored as JSONL text (the in-memory store's form) into a `RunReadResult`. */
export function readRunText(runId: string, text: string): RunReadResult {
  const collector = createRunReadCollector(runId);
  feedRunText(collector, text, 0, 0);
  return collector.result();
}

/**
 * Feeds `text` from `offset` (the start of line `lineNumber + 1`) to a collector, line by line;
 * a last line without its newline is fed as incomplete.
 */
export function feedRunText(
  collector: RunReadCollector,
  text: string,
  offset: number,
  lineNumber: number,
): void {
  let start = offset;
  let line = lineNumber;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    const complete = end !== -1;
    if (!complete) end = text.length;
    line++;
    collector.line(text.slice(start, end), line, undefined, complete);
    start = end + 1;
  }
}

/** The tail of a run stored as JSONL text. */
export function tailRunText(runId: string, text: string, count: number): RunTailResult {
  const collector = createRunTailCollector(runId, count);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let index = lines.length - 1; index >= 0; index--) {
    if (collector.lineFromEnd(lines[index] as string, index === 0, { line: index + 1 })) break;
  }
  return collector.result();
}

/** The header of a run stored as JSONL text: its first line, when that is a readable header. */
export function readRunHeaderLine(firstLine: string): RunHeader | null {
  const read = readRunLine(firstLine, true);
  return read.kind === 'record' && read.record.type === 'header'
    ? (read.record as RunHeader)
    : null;
}
