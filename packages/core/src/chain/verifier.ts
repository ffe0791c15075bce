// The verifier (docs/design/verify.md section 4.4): a synchronous fold over the entries a store
// yields in stored order, one stream after another (or interleaved), keeping per open stream only
// its position, the open segment's commitments and the gaps seen: never the whole history.
import * as z from 'zod';
import { EpisodicError } from '../errors/index.js';
import { safeJsonParse } from '../util/json.js';
import { parseInput } from '../validation/parse-input.js';
import { anchorSigningText, chainCanonicalJson } from './canonical.js';
import {
  CHAIN_SEGMENT,
  digest,
  genesisHead,
  lineCommitment,
  rowCommitment,
  type Sha256,
  segmentHead,
  segmentOf,
} from './formulas.js';
import { parseChainLine } from './line.js';
import {
  type AnchorFile,
  anchorFileSchema,
  baseChainSchema,
  CHAIN_FINDINGS,
  CHAIN_STREAM_KINDS,
  type ChainFinding,
  type ChainFindingKind,
  type ChainReport,
  type ChainStreamKind,
  type ChainStreamRef,
  type ChainWhere,
  chainMemberSchema,
  chainStreamRefSchema,
  chainWhereSchema,
  type ErasureEntry,
  erasureEntrySchema,
} from './schemas.js';

/** What `createChainVerifier` needs. */
export interface ChainVerifierOptions {
  /** A synchronous SHA-256 (Node: `(bytes) => crypto.hash('sha256', bytes, 'buffer')`). */
  readonly sha256: Sha256;
  /** The entries of every erasure log of the home (`ErasureEntry`, validated here). */
  readonly erasures?: readonly unknown[];
  /** Anchor files (`AnchorFile`, validated here), oldest first; needs `verifySignature`. */
  readonly anchors?: readonly unknown[];
  /** Checks an anchor file's signature over `signed` (the canonical JSON of every other field). */
  readonly verifySignature?: (file: AnchorFile, signed: string) => boolean;
  /**
   * The kinds of stream this fold sees whole (every run, every ledger session): an anchored stream
   * of these kinds that it never sees is `deleted` (or `collected`, per the erasure logs). An
   * anchored stream of another kind is checked when it is fed, and never called gone.
   * @default every kind
   */
  readonly anchoredKinds?: readonly ChainStreamKind[];
  /** Findings kept in the report (the counts keep counting): 1,000 unless given. */
  readonly maxFindings?: number;
}

/** One row-stream entry as stored: its chain member (`null`: not chained) and its value. */
export interface ChainRowInput {
  /** The entry's position in its stream when known (a ledger event's `position`, a revision). */
  readonly n?: number;
  /** The stored `chain` member (or the chain columns as one), `null` or absent when unchained. */
  readonly chain?: unknown;
  /** The stored entry; its canonical JSON is computed per `chainCanonicalJson`. */
  readonly value: unknown;
}

/** A session base as stored: its `chain` field and the base. */
export interface ChainBaseInput {
  readonly chain: unknown;
  readonly value: unknown;
}

/** Where a stream ended: what an anchor of it records. */
export interface ChainStreamSummary {
  readonly stream: ChainStreamRef;
  /** The stream key (`undefined` when no chained entry named it). */
  readonly key?: string;
  /** The last `n` seen. */
  readonly n: number;
  /** `head(n)` over the stored entries (`undefined` when it cannot be computed: no key, a gap). */
  readonly head?: string;
  /** The last complete segment's head. */
  readonly boundary?: { readonly n: number; readonly h: string };
}

/**
 * Where a stream's writer says it ends, stored outside its entries (a ledger session's head row):
 * its last `n` and, when it can tell, `head(n)`.
 */
export interface ChainStoredEnd {
  readonly n: number;
  readonly h?: string;
}

const storedEndSchema = z.strictObject({
  n: z.number().int().min(0),
  h: z.string().optional(),
});

/** The fold; see `createChainVerifier`. */
export interface ChainVerifier {
  /** One stored line of a line stream (a run line), without its newline, in stored order. */
  line(stream: ChainStreamRef, line: Uint8Array | string, where?: ChainWhere): void;
  /** One stored entry of a row stream (a session delta, a ledger event, an erasure row). */
  row(stream: ChainStreamRef, row: ChainRowInput, where?: ChainWhere): void;
  /** A session's base, before its deltas. */
  base(stream: ChainStreamRef, base: ChainBaseInput, where?: ChainWhere): void;
  /**
   * Ends a stream: reports what is still missing, frees its state, and says where it ended. With
   * `stored` (where the writer's stored head says the stream ends), entries cut from the tail are
   * `deleted` and a head that differs from the recomputed one is `altered`.
   */
  endStream(stream: ChainStreamRef, stored?: ChainStoredEnd): ChainStreamSummary;
  /** Ends every open stream and gives the report. */
  report(): ChainReport;
}

const SEVERITY: Record<ChainFindingKind, 'error' | 'warning' | 'info'> = {
  altered: 'error',
  inserted: 'error',
  deleted: 'error',
  reordered: 'error',
  forked: 'warning',
  unchained: 'info',
  redacted: 'info',
  collected: 'info',
  'anchor-mismatch': 'error',
  unreadable: 'error',
};

const optionsSchema = z.strictObject({
  sha256: z.custom<Sha256>((value) => typeof value === 'function', 'must be a function'),
  erasures: z.array(erasureEntrySchema).optional(),
  anchors: z.array(anchorFileSchema).optional(),
  verifySignature: z
    .custom<(file: AnchorFile, signed: string) => boolean>(
      (value) => typeof value === 'function',
      'must be a function',
    )
    .optional(),
  anchoredKinds: z.array(z.enum(CHAIN_STREAM_KINDS)).optional(),
  maxFindings: z.number().int().min(0).optional(),
});

type RedactEntry = Extract<ErasureEntry, { op: 'redact' }>;
type CollectEntry = Extract<ErasureEntry, { op: 'collect' }>;

interface Collected {
  readonly entries: Map<number, string>;
  /** The stream's first chained `n`, when an entry names it. */
  first?: number;
  through?: NonNullable<CollectEntry['through']>;
  erasure?: CollectEntry;
}

interface StreamState {
  readonly ref: ChainStreamRef;
  /** Another program may write unchained entries into it (the ledger). */
  readonly shared: boolean;
  key: string | undefined;
  position: number;
  chained: boolean;
  /** Unchained entries before the first chained one: positions `1 … prefix`. */
  prefix: number;
  unchained: Array<[number, number]>;
  lastN: number;
  lastWhere: ChainWhere | undefined;
  missing: Array<[number, number]>;
  segment: number;
  previous: string | undefined;
  commitments: string[];
  byN: Map<number, { c: string; where: ChainWhere | undefined }>;
  clean: boolean;
  boundary: { n: number; h: string } | undefined;
  /** Where the last unchained entry of the prefix is stored. */
  prefixWhere: ChainWhere | undefined;
  /**
   * An entry without a chain member (or not JSON) after the chain started, in a stream only
   * Episodic writes: the next entry says whether it took an entry's place (`altered`) or was added
   * (`inserted`; a last line that is not JSON is a torn write).
   */
  pending:
    | { where: ChainWhere | undefined; expected: number; json: boolean; complete: boolean }
    | undefined;
  /** Stored heads are checked while every segment so far verified (a later head builds on the earlier ones). */
  headsTrusted: boolean;
}

interface Entry {
  /** The claimed `n` (`undefined` when the entry is unchained). */
  readonly n: number | undefined;
  readonly k?: string | undefined;
  readonly c: string | undefined;
  readonly h?: string | undefined;
  /** `ok`, or why the entry is altered. */
  readonly status: 'ok' | { readonly altered: string };
  readonly where: ChainWhere | undefined;
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Whether a parsed line ends with a member shaped like a chain member (two of its fields) that the fast path did not find. */
/** Whether every byte of `bytes` from `start` on is ASCII. */
function asciiFrom(bytes: Uint8Array, start: number): boolean {
  for (let index = start; index < bytes.length; index++)
    if ((bytes[index] as number) >= 0x80) return false;
  return true;
}

function looksChained(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const last = (value as Record<string, unknown>)[keys[keys.length - 1] ?? ''];
  if (typeof last !== 'object' || last === null) return false;
  return ['n', 'k', 's', 'r', 'c', 'h'].filter((name) => Object.hasOwn(last, name)).length >= 2;
}

function streamId(ref: ChainStreamRef): string {
  return `${ref.kind}\u0000${ref.id ?? ''}\u0000${ref.scope ?? ''}\u0000${ref.session_id ?? ''}`;
}

function describeRef(ref: ChainStreamRef): string {
  if (ref.kind === 'ledger') return `ledger ${ref.scope ?? '?'} / ${ref.session_id ?? '?'}`;
  return `${ref.kind} ${ref.id ?? ref.key ?? '?'}`;
}

/**
 * The verifier of docs/design/verify.md section 4: feed it every stored entry of each stream in
 * stored order (`line` for run lines, `row` for session deltas and ledger events, `base` for a
 * session base first), end each stream, then read the `report()`. It names every entry whose
 * bytes do not give its commitment (`altered`), entries out of place (`inserted`, `deleted`,
 * `reordered`, `forked`), and explains what Episodic itself erased (`redacted`, `collected`, from
 * the erasure logs) and what it never chained (`unchained`). Synchronous, no I/O: `sha256` is
 * injected. Memory per open stream is bounded by one segment (64 entries) and the gaps it saw.
 *
 * ```ts
 * const verifier = createChainVerifier({ sha256 });
 * for (const [index, text] of lines.entries()) verifier.line(run, text, { line: index + 1 });
 * verifier.endStream(run);
 * verifier.report().counts.altered; // 0
 * ```
 */
export function createChainVerifier(options: ChainVerifierOptions): ChainVerifier {
  const parsed = parseInput(optionsSchema, options, 'chain verifier options');
  const { sha256 } = parsed;
  const maxFindings = parsed.maxFindings ?? 1000;
  const findings: ChainFinding[] = [];
  const counts = Object.fromEntries(CHAIN_FINDINGS.map((finding) => [finding, 0])) as Record<
    ChainFindingKind,
    number
  >;
  let errors = 0;
  let truncated = false;
  const totals = { streams: 0, entries: 0, bytes: 0, chained: 0, unchained: 0 };
  const add = (
    finding: ChainFindingKind,
    stream: ChainFinding['stream'],
    fields: Omit<ChainFinding, 'finding' | 'severity' | 'stream'> = {},
    severity = SEVERITY[finding],
  ) => {
    counts[finding]++;
    if (severity === 'error') errors++;
    if (findings.length >= maxFindings) {
      truncated = true;
      return;
    }
    const clean = Object.fromEntries(
      Object.entries(fields).filter(([, value]) => value !== undefined),
    );
    findings.push({ finding, severity, stream, ...clean });
  };

  // The erasure logs, indexed by redaction id and by stream key.
  const redactions = new Map<string, RedactEntry>();
  const listed = new Map<string, Map<number, RedactEntry>>();
  const collected = new Map<string, Collected>();
  for (const entry of parsed.erasures ?? []) {
    if (entry.op === 'redact') {
      redactions.set(entry.id, entry);
      let byN = listed.get(entry.stream);
      if (byN === undefined) {
        byN = new Map();
        listed.set(entry.stream, byN);
      }
      for (const item of entry.entries) byN.set(item.n, entry);
    } else if (entry.op === 'collect') {
      let record = collected.get(entry.stream);
      if (record === undefined) {
        record = { entries: new Map() };
        collected.set(entry.stream, record);
      }
      for (const item of entry.entries ?? []) record.entries.set(item.n, item.c);
      if (entry.first !== undefined) record.first = entry.first;
      if (entry.through !== undefined) {
        record.through = entry.through;
        record.erasure = entry;
      }
    }
  }

  // Anchors: the heads each file signs, checked where the fold passes their `n`.
  const anchorChecks = new Map<string, Map<number, string>>();
  const anchorKinds = new Map<string, ChainStreamRef['kind']>();
  const seenKeys = new Set<string>();
  const anchorFiles = parsed.anchors ?? [];
  if (anchorFiles.length > 0 && parsed.verifySignature === undefined)
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid chain verifier options: anchors were given without verifySignature. Pass the Ed25519 check (@episodic/home wires node:crypto), or leave anchors out; nothing was verified.',
      details: { subject: 'chain verifier options', field: 'verifySignature', value: 'undefined' },
    });
  anchorFiles.forEach((file, index) => {
    if (parsed.verifySignature?.(file, anchorSigningText(file)) !== true) {
      add(
        'anchor-mismatch',
        {},
        {
          detail: `anchor file ${index + 1} (created ${file.created_at}, key ${file.key_id}) fails its signature: its heads are not used`,
        },
      );
      return;
    }
    const check = (key: string, n: number, h: string, kind: ChainStreamRef['kind']) => {
      let byN = anchorChecks.get(key);
      if (byN === undefined) {
        byN = new Map();
        anchorChecks.set(key, byN);
      }
      byN.set(n, h);
      anchorKinds.set(key, kind);
    };
    for (const head of file.heads) {
      check(head.stream, head.n, head.h, head.kind);
      if (head.boundary !== undefined)
        check(head.stream, head.boundary.n, head.boundary.h, head.kind);
    }
    for (const log of file.erasure_logs) check(log.stream, log.n, log.h, 'erasures');
  });

  const kindOf = (key: string) => {
    const kind = anchorKinds.get(key);
    return kind === undefined ? {} : { kind };
  };
  const streams = new Map<string, StreamState>();
  // The fold is fed one stream at a time, usually with the same ref object: skip the lookup then.
  let lastRef: ChainStreamRef | undefined;
  let lastState: StreamState | undefined;
  const stateOf = (input: ChainStreamRef): StreamState => {
    if (
      input === lastRef &&
      lastState !== undefined &&
      input.kind === lastState.ref.kind &&
      input.id === lastState.ref.id &&
      input.scope === lastState.ref.scope &&
      input.session_id === lastState.ref.session_id
    )
      return lastState;
    const found = lookup(input);
    lastRef = input;
    lastState = found;
    return found;
  };
  const lookup = (input: ChainStreamRef): StreamState => {
    const id = streamId(input);
    let state = streams.get(id);
    if (state !== undefined) return state;
    const ref = parseInput(chainStreamRefSchema, input, 'chain stream');
    state = {
      ref,
      shared: ref.kind === 'ledger',
      key: ref.key,
      position: 0,
      chained: false,
      prefix: 0,
      unchained: [],
      lastN: 0,
      lastWhere: undefined,
      missing: [],
      segment: 1,
      previous: undefined,
      commitments: [],
      byN: new Map(),
      clean: true,
      boundary: undefined,
      prefixWhere: undefined,
      pending: undefined,
      headsTrusted: true,
    };
    streams.set(id, state);
    totals.streams++;
    return state;
  };

  const headAt = (state: StreamState, n: number): string | undefined =>
    state.previous === undefined
      ? undefined
      : segmentHead(sha256, state.previous, n, state.commitments);

  const checkAnchor = (state: StreamState, n: number) => {
    const expected = state.key === undefined ? undefined : anchorChecks.get(state.key)?.get(n);
    if (expected === undefined) return;
    const actual = headAt(state, n);
    if (actual !== expected)
      add('anchor-mismatch', state.ref, {
        n,
        detail:
          actual === undefined
            ? `the head at entry ${n} cannot be computed (entries are missing before it), so the signed head cannot be checked`
            : `the head at entry ${n} differs from the signed head: the stream was rewritten since the anchor`,
      });
  };

  /** Moves to segment `target`, closing the open one (and skipping empty ones: heads unknown). */
  const advance = (state: StreamState, target: number) => {
    if (target <= state.segment) return;
    const end = state.segment * CHAIN_SEGMENT;
    const closed = headAt(state, end);
    state.boundary = closed === undefined ? undefined : { n: end, h: closed };
    if (!state.clean || target > state.segment + 1) state.headsTrusted = false;
    state.previous = target === state.segment + 1 ? closed : undefined;
    state.segment = target;
    state.commitments = [];
    state.byN.clear();
    state.clean = true;
  };

  /** Adds commitment `c` of entry `n` to its segment (in stored order). */
  const place = (state: StreamState, n: number, c: string, clean: boolean, where?: ChainWhere) => {
    const segment = segmentOf(n);
    if (segment > state.segment) advance(state, segment);
    if (segment < state.segment) {
      // An entry of a closed segment (reordered across a boundary): the heads are off already.
      state.clean = false;
      return;
    }
    state.commitments.push(c);
    state.byN.set(n, { c, where });
    if (!clean) state.clean = false;
    checkAnchor(state, n);
  };

  const takeMissing = (state: StreamState, n: number): boolean => {
    const index = state.missing.findIndex(([from, to]) => from <= n && n <= to);
    if (index < 0) return false;
    const [from, to] = state.missing[index] as [number, number];
    const parts: Array<[number, number]> = [];
    if (from < n) parts.push([from, n - 1]);
    if (n < to) parts.push([n + 1, to]);
    state.missing.splice(index, 1, ...parts);
    return true;
  };

  /** Entries `from … to` were not stored where they belong: collected ones fill in, the rest are missing. */
  const gap = (state: StreamState, from: number, to: number) => {
    const record = state.key === undefined ? undefined : collected.get(state.key);
    if (record === undefined || record.entries.size === 0) {
      state.missing.push([from, to]);
      state.clean = false;
      return;
    }
    let runFrom: number | undefined;
    let collectedFrom: number | undefined;
    let collectedCount = 0;
    for (let n = from; n <= to; n++) {
      const c = record.entries.get(n);
      if (c !== undefined) {
        if (runFrom !== undefined) state.missing.push([runFrom, n - 1]);
        runFrom = undefined;
        collectedFrom ??= n;
        collectedCount++;
        place(state, n, c, true);
      } else {
        runFrom ??= n;
        state.clean = false;
      }
    }
    if (runFrom !== undefined) state.missing.push([runFrom, to]);
    if (collectedFrom !== undefined)
      add('collected', state.ref, {
        from: collectedFrom,
        to,
        detail: `${collectedCount} entr${collectedCount === 1 ? 'y' : 'ies'} collected by Episodic, their commitments kept in the erasure log`,
      });
  };

  /** The stream's first chained entry: its key, and where its chain starts (h_0 or a checkpoint). */
  const start = (state: StreamState, entry: Entry) => {
    state.chained = true;
    totals.chained++;
    if (entry.k !== undefined) state.key = entry.k;
    if (state.key !== undefined) seenKeys.add(state.key);
    state.lastN = state.prefix;
    const through = state.key === undefined ? undefined : collected.get(state.key)?.through;
    if (
      state.key !== undefined &&
      through !== undefined &&
      through.h === undefined &&
      through.n >= state.prefix &&
      entry.n !== undefined &&
      entry.n > through.n
    ) {
      // A collected prefix: continue from its checkpoint.
      const boundary = through.boundary;
      state.previous = boundary?.h ?? genesisHead(sha256, state.key);
      state.segment = boundary === undefined ? 1 : boundary.n / CHAIN_SEGMENT + 1;
      state.boundary = boundary === undefined ? undefined : { ...boundary };
      state.commitments = [...(through.open ?? [])];
      add('collected', state.ref, {
        from: state.prefix + 1,
        to: through.n,
        detail: `entries ${state.prefix + 1}–${through.n} collected by Episodic (${collected.get(state.key)?.erasure?.reason ?? 'retention'}); verified from entry ${through.n + 1}`,
      });
      state.lastN = through.n;
      return;
    }
    if (entry.n !== undefined && entry.status === 'ok' && entry.n <= state.prefix) {
      // Unchained entries stored before the first chained entry but after its place: added.
      add('inserted', state.ref, {
        from: entry.n,
        to: state.prefix,
        where: state.prefixWhere,
        detail: `stored entries ${entry.n}–${state.prefix} have no chain member but stand before the first chained entry ${entry.n}`,
      });
      state.unchained = state.unchained
        .map(([from, to]): [number, number] => [from, Math.min(to, (entry.n as number) - 1)])
        .filter(([from, to]) => from <= to);
      state.prefix = entry.n - 1;
      state.lastN = state.prefix;
    } else if (
      state.shared &&
      entry.k !== undefined &&
      entry.n !== undefined &&
      entry.n > state.prefix + 1
    ) {
      // The stream's first chained entry stands after entries that are gone: they were never
      // chained (a first chained entry carries k), so nothing tells what they were (retention of
      // a shared ledger session's unchained prefix).
      const last = state.unchained[state.unchained.length - 1];
      if (last !== undefined && last[1] === state.prefix) last[1] = entry.n - 1;
      else state.unchained.push([state.prefix + 1, entry.n - 1]);
      state.prefix = entry.n - 1;
      state.lastN = state.prefix;
    } else if (
      state.shared &&
      entry.k === undefined &&
      entry.n !== undefined &&
      state.key !== undefined &&
      (collected.get(state.key)?.first ?? 0) > state.prefix + 1 &&
      (collected.get(state.key)?.first ?? 0) <= entry.n
    ) {
      // The first chained entry was collected, and so were the unchained ones before it.
      const first = collected.get(state.key)?.first as number;
      const last = state.unchained[state.unchained.length - 1];
      if (last !== undefined && last[1] === state.prefix) last[1] = first - 1;
      else state.unchained.push([state.prefix + 1, first - 1]);
      state.prefix = first - 1;
      state.lastN = state.prefix;
    } else if (entry.k === undefined && state.prefix > 0 && entry.n === state.prefix + 1) {
      // The stream's first chained entry carries its key: the last "unchained" one lost its member.
      add('altered', state.ref, {
        n: state.prefix,
        where: state.prefixWhere,
        detail:
          'its chain member is gone (the next entry is not the stream first chained one): changed outside Episodic',
      });
      const last = state.unchained[state.unchained.length - 1];
      if (last !== undefined) {
        last[1]--;
        if (last[1] < last[0]) state.unchained.pop();
      }
      state.prefix--;
      state.lastN = state.prefix;
      state.key ??= state.ref.key;
      state.segment = segmentOf(state.lastN + 1);
      state.previous = state.key === undefined ? undefined : genesisHead(sha256, state.key);
      place(state, state.lastN + 1, '', false, state.prefixWhere);
      state.lastN++;
      return;
    }
    state.segment = segmentOf(state.lastN + 1);
    state.previous = state.key === undefined ? undefined : genesisHead(sha256, state.key);
  };

  /** Settles a pending unchained entry, given the `n` of the chained entry that follows it. */
  const resolvePending = (state: StreamState, nextN: number | undefined) => {
    const pending = state.pending;
    if (pending === undefined) return;
    state.pending = undefined;
    // A last line that is not JSON but ends as a line Episodic writes was changed, not torn.
    if (
      (nextN !== undefined && nextN === pending.expected + 1) ||
      (nextN === undefined && !pending.json && pending.complete)
    ) {
      add('altered', state.ref, {
        n: pending.expected,
        where: pending.where,
        detail: pending.json
          ? 'its chain member is gone: changed outside Episodic'
          : 'it is no longer JSON: changed outside Episodic',
      });
      place(state, pending.expected, '', false, pending.where);
      state.lastN = pending.expected;
      return;
    }
    if (pending.json)
      add('inserted', state.ref, {
        where: pending.where,
        detail: `an entry without a chain member after entry ${pending.expected - 1}, in a stream only Episodic writes`,
      });
    else if (nextN === undefined)
      add(
        'unreadable',
        state.ref,
        {
          where: pending.where,
          detail: 'the last line is not JSON (a torn write: its append was never acknowledged)',
        },
        'warning',
      );
    else
      add('unreadable', state.ref, {
        where: pending.where,
        detail: 'a stored line that is not JSON',
      });
  };

  /** An entry without a chain member: part of the prefix, one another program may add (ledger), or pending. */
  const unchainedEntry = (
    state: StreamState,
    n: number,
    c: string | undefined,
    json: boolean,
    where?: ChainWhere,
    complete = true,
  ) => {
    resolvePending(state, undefined);
    if (!state.chained) {
      if (!json) add('unreadable', state.ref, { where, detail: 'a stored line that is not JSON' });
      state.prefix = n;
      state.prefixWhere = where;
      const last = state.unchained[state.unchained.length - 1];
      if (last !== undefined && last[1] + 1 === n) last[1] = n;
      else state.unchained.push([n, n]);
      return;
    }
    if (state.shared && c !== undefined) {
      const last = state.unchained[state.unchained.length - 1];
      if (last !== undefined && last[1] + 1 === n) last[1] = n;
      else state.unchained.push([n, n]);
      sequence(state, { n, c, status: 'ok', where });
      return;
    }
    state.pending = { where, expected: state.lastN + 1, json, complete };
  };

  /** Places a chained entry by its `n`, naming what is out of place. */
  const sequence = (state: StreamState, entry: Entry) => {
    resolvePending(state, entry.status === 'ok' ? entry.n : state.lastN + 2);
    if (!state.chained) start(state, entry);
    else if (entry.k !== undefined && state.key !== undefined && entry.k !== state.key)
      add('altered', state.ref, {
        n: entry.n,
        where: entry.where,
        detail: `the entry names stream key ${entry.k}, the stream is ${state.key}`,
      });
    const expected = state.lastN + 1;
    if (entry.status !== 'ok' || entry.n === undefined) {
      // An altered entry: its n is not to be trusted; it stands where it is stored.
      const detail = entry.status === 'ok' ? 'no chain member' : entry.status.altered;
      add('altered', state.ref, {
        n: expected,
        where: entry.where,
        detail:
          entry.n !== undefined && entry.n !== expected
            ? `${detail} (it claims n ${entry.n})`
            : detail,
      });
      place(state, expected, entry.c ?? '', false, entry.where);
      state.lastN = expected;
      state.lastWhere = entry.where;
      return;
    }
    const { n, c } = entry;
    if (n >= expected) {
      if (n > expected) gap(state, expected, n - 1);
      place(state, n, c as string, true, entry.where);
      state.lastN = n;
    } else if (takeMissing(state, n)) {
      add('reordered', state.ref, {
        n,
        where: entry.where,
        other: {
          n: state.lastN,
          ...(state.lastWhere === undefined ? {} : { where: state.lastWhere }),
        },
        detail: `entry ${n} is stored after entry ${state.lastN}`,
      });
      place(state, n, c as string, false, entry.where);
    } else {
      const earlier = state.byN.get(n);
      if (earlier !== undefined && earlier.c === c) {
        add('inserted', state.ref, {
          n,
          where: entry.where,
          other: { n, ...(earlier.where === undefined ? {} : { where: earlier.where }) },
          detail: `a copy of entry ${n}`,
        });
        return;
      }
      add('forked', state.ref, {
        n,
        where: entry.where,
        ...(earlier === undefined
          ? {}
          : { other: { n, ...(earlier.where === undefined ? {} : { where: earlier.where }) } }),
        detail: `two valid entries with n ${n}: two writers appended at once (or a forged entry: check against an anchor)`,
      });
      place(state, n, c as string, false, entry.where);
    }
    if (entry.h !== undefined && state.clean && state.headsTrusted) {
      const computed = headAt(state, n);
      if (computed !== undefined && computed !== entry.h)
        add('altered', state.ref, {
          n,
          where: entry.where,
          detail: `the stored head does not match the head of entries ${(state.segment - 1) * CHAIN_SEGMENT + 1}–${n}, whose entries all verify: the stored h was edited`,
        });
    }
    state.lastWhere = entry.where;
  };

  /** A redacted entry (its salt replaced by erasure id `r`): explained by the erasure log, or altered. */
  const redacted = (
    state: StreamState,
    n: number,
    r: string,
    c: string,
    after: () => string,
    where: ChainWhere | undefined,
  ): Entry['status'] => {
    const key = state.key ?? state.ref.key;
    const erasure = redactions.get(r);
    if (erasure === undefined)
      return { altered: `marked redacted by erasure ${r}, which no erasure log holds` };
    if (key !== undefined && erasure.stream !== key)
      return { altered: `marked redacted by erasure ${r}, which is about another stream` };
    const item = erasure.entries.find((listedEntry) => listedEntry.n === n);
    if (item === undefined || item.c !== c)
      return { altered: `marked redacted by erasure ${r}, which does not list this entry` };
    if (item.after !== after()) return { altered: `redacted by erasure ${r}, then changed again` };
    add('redacted', state.ref, {
      n,
      where,
      redaction: {
        erasure: r,
        at: erasure.at,
        by: erasure.by,
        ...(erasure.mode === undefined ? {} : { mode: erasure.mode }),
      },
      ...(erasure.was === 'altered'
        ? { detail: 'the entry did not verify before it was redacted' }
        : {}),
    });
    return 'ok';
  };

  /** A salted entry that verified but an erasure lists: the redaction is recorded, not yet applied. */
  const notYetApplied = (state: StreamState, n: number, where: ChainWhere | undefined) => {
    if (state.key === undefined) return;
    const erasure = listed.get(state.key)?.get(n);
    if (erasure === undefined) return;
    add(
      'redacted',
      state.ref,
      {
        n,
        where,
        redaction: {
          erasure: erasure.id,
          at: erasure.at,
          by: erasure.by,
          ...(erasure.mode === undefined ? {} : { mode: erasure.mode }),
          applied: false,
        },
        detail:
          'recorded in the erasure log but not yet applied (the next open of the store finishes it)',
      },
      'warning',
    );
  };

  /** Compares the stream's stored end with its entries: a cut tail, or a head that does not match. */
  const checkStoredEnd = (state: StreamState, input: ChainStoredEnd) => {
    const stored = parseInput(storedEndSchema, input, 'stored end of a chain stream');
    const last = state.chained ? state.lastN : state.prefix;
    if (stored.n > last) {
      state.key ??= state.ref.key;
      const before = state.missing.length;
      gap(state, last + 1, stored.n);
      const cut = state.missing.splice(before);
      for (const [from, to] of cut)
        add('deleted', state.ref, {
          n: from,
          ...(to === from ? {} : { from, to }),
          detail: `${to === from ? `entry ${from}` : `entries ${from}–${to}`} after the last stored entry ${last} ${to === from ? 'is' : 'are'} missing (the stored head counts ${stored.n}): the stream's tail was cut`,
        });
      if (cut.length === 0 && state.chained) state.lastN = stored.n;
    }
    if (
      stored.h === undefined ||
      !state.chained ||
      state.lastN !== stored.n ||
      !state.clean ||
      !state.headsTrusted
    )
      return;
    const actual = headAt(state, stored.n);
    if (actual !== undefined && actual !== stored.h)
      add('altered', state.ref, {
        n: stored.n,
        detail: `the stored head at entry ${stored.n} differs from the head its entries give: entries were rewritten with new seals, or the head was changed`,
      });
  };

  const whereOf = (where: ChainWhere | undefined): ChainWhere | undefined => {
    if (where === undefined) return undefined;
    // The shape a store passes for each line, checked by hand (zod per line costs more than the
    // hash of a short line); anything else goes through the schema and its error.
    const { file, line } = where;
    if (
      Object.getPrototypeOf(where) === Object.prototype &&
      typeof file === 'string' &&
      Number.isInteger(line) &&
      (line as number) >= 1 &&
      Object.keys(where).length === 2
    )
      return { file, line };
    return parseInput(chainWhereSchema, where, 'chain entry location');
  };

  return {
    line(ref, input, whereInput) {
      const state = stateOf(ref);
      const where = whereOf(whereInput);
      let bytes = typeof input === 'string' ? encoder.encode(input) : input;
      if (!(bytes instanceof Uint8Array))
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `Invalid chain line: got ${typeof input}. Pass the stored line as a string or Uint8Array, without its newline; nothing was verified.`,
          details: { subject: 'chain line', field: 'line', value: typeof input },
        });
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0a) bytes = bytes.subarray(0, -1);
      let parsedLine = parseChainLine(bytes);
      // Bytes as read (section 4.6): a salted line whose bytes give its commitment and whose bytes
      // after the salt (which the commitment does not cover) are ASCII is decided here, with no
      // decode. Any other line is decoded and encoded again first, as a line given as text is, so
      // both forms give the same findings (a byte that is not UTF-8 included).
      let checked = false;
      if (typeof input !== 'string') {
        if (
          parsedLine.kind === 'chained' &&
          parsedLine.s !== undefined &&
          asciiFrom(bytes, parsedLine.hashedEnd) &&
          lineCommitment(sha256, bytes, parsedLine.hashedEnd) === parsedLine.c
        )
          checked = true;
        else {
          bytes = encoder.encode(utf8.decode(bytes));
          parsedLine = parseChainLine(bytes);
        }
      }
      state.position++;
      totals.entries++;
      totals.bytes += bytes.length;
      if (parsedLine.kind === 'none') {
        const parsedJson = safeJsonParse(new TextDecoder().decode(bytes));
        const json = parsedJson.success;
        if (parsedJson.success && looksChained(parsedJson.value)) {
          sequence(state, {
            n: undefined,
            c: undefined,
            status: {
              altered: 'its chain member was renamed or reshaped: changed outside Episodic',
            },
            where,
          });
          return;
        }
        const end = bytes.length;
        const complete = end >= 2 && bytes[end - 1] === 0x7d && bytes[end - 2] === 0x7d;
        unchainedEntry(state, state.position, undefined, json, where, complete);
        return;
      }
      if (parsedLine.kind === 'malformed' && parsedLine.truncated) {
        // Torn inside its member: unreadable if it is the last line, else the next entry decides.
        unchainedEntry(state, state.position, undefined, false, where, false);
        return;
      }
      if (parsedLine.kind === 'malformed') {
        sequence(state, {
          n: undefined,
          c: undefined,
          status: {
            altered: `its chain member is not in the shape Episodic writes (${parsedLine.reason})`,
          },
          where,
        });
        return;
      }
      const { n, c, k, h, s, r } = parsedLine;
      if (!state.chained && k !== undefined) state.key = k;
      let status: Entry['status'];
      if (s !== undefined) {
        status =
          checked || lineCommitment(sha256, bytes, parsedLine.hashedEnd) === c
            ? 'ok'
            : { altered: 'its bytes do not give its commitment: changed outside Episodic' };
      } else
        status = redacted(
          state,
          n,
          r as string,
          c,
          () => digest(sha256, bytes.subarray(0, parsedLine.contentEnd)),
          where,
        );
      sequence(state, { n, k, c, h, status, where });
      if (s !== undefined && status === 'ok') notYetApplied(state, n, where);
    },

    row(ref, input, whereInput) {
      const state = stateOf(ref);
      const where = whereOf(whereInput);
      state.position++;
      totals.entries++;
      const canonical = chainCanonicalJson(state.ref.kind, input?.value);
      totals.bytes += canonical.length;
      const chain = input?.chain;
      if (chain === undefined || chain === null) {
        const n = input.n ?? state.position;
        unchainedEntry(state, n, rowCommitment(sha256, '', n, canonical), true, where);
        return;
      }
      const member = chainMemberSchema.safeParse(chain);
      if (!member.success) {
        sequence(state, {
          n: typeof input.n === 'number' ? input.n : undefined,
          c: undefined,
          status: {
            altered: `its chain member is not in the shape Episodic writes (${member.error.issues[0]?.message ?? 'invalid'})`,
          },
          where,
        });
        return;
      }
      const { n, c, k, h, s, r } = member.data;
      if (!state.chained && k !== undefined) state.key = k;
      let status: Entry['status'];
      if (input.n !== undefined && input.n !== n)
        status = { altered: `stored at position ${input.n} with n ${n}` };
      else if (s !== undefined)
        status =
          rowCommitment(sha256, s, n, canonical) === c
            ? 'ok'
            : { altered: 'its content does not give its commitment: changed outside Episodic' };
      else
        status = redacted(
          state,
          n,
          r as string,
          c,
          () => digest(sha256, encoder.encode(canonical)),
          where,
        );
      sequence(state, { n, k, c, h, status, where });
      if (s !== undefined && status === 'ok') notYetApplied(state, n, where);
    },

    base(ref, input, whereInput) {
      const state = stateOf(ref);
      const where = whereOf(whereInput);
      if (state.position > 0)
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `Invalid chain input: the base of ${describeRef(state.ref)} came after ${state.position} entries. Feed a session's base before its deltas; nothing more was verified.`,
          details: { subject: 'chain base', field: 'base', value: state.position },
        });
      const chain = baseChainSchema.safeParse(input?.chain);
      const canonical = chainCanonicalJson('session', input?.value);
      totals.bytes += canonical.length;
      if (!chain.success) {
        // No chain field: an unchained stream (counted when it ends).
        if (input?.chain === undefined || input.chain === null) return;
        const claimed = (input.chain as { n?: unknown }).n;
        const n =
          typeof claimed === 'number' && Number.isSafeInteger(claimed) && claimed > 0
            ? claimed
            : undefined;
        add('altered', state.ref, {
          ...(n === undefined ? {} : { n }),
          where,
          detail: `the base's chain field is not in the shape Episodic writes (${chain.error.issues[0]?.message ?? 'invalid'})`,
        });
        if (n !== undefined && typeof input.chain === 'object') {
          // The deltas after it still stand at their places; no head can be computed from it.
          state.chained = true;
          totals.chained++;
          state.lastN = n;
          state.position = n;
          state.segment = segmentOf(n + 1);
          state.previous = undefined;
          state.clean = false;
          state.headsTrusted = false;
        }
        return;
      }
      const { k, n, heads, open, s, r, c } = chain.data;
      state.chained = true;
      totals.chained++;
      state.key = k;
      seenKeys.add(k);
      state.prefix = 0;
      state.lastN = n;
      state.position = n;
      state.lastWhere = where;
      const boundaryN = heads.length * CHAIN_SEGMENT;
      state.previous = heads.length === 0 ? genesisHead(sha256, k) : heads[heads.length - 1];
      state.boundary =
        heads.length === 0 ? undefined : { n: boundaryN, h: heads[heads.length - 1] as string };
      state.segment = heads.length + 1;
      state.commitments = [...open];
      state.clean = open.length === n - boundaryN;
      const checks = anchorChecks.get(k);
      if (checks !== undefined)
        for (const [anchoredN, h] of checks) {
          if (anchoredN > n) continue;
          const known =
            anchoredN % CHAIN_SEGMENT === 0 && anchoredN / CHAIN_SEGMENT <= heads.length
              ? heads[anchoredN / CHAIN_SEGMENT - 1]
              : anchoredN > boundaryN && state.previous !== undefined
                ? segmentHead(
                    sha256,
                    state.previous,
                    anchoredN,
                    open.slice(0, anchoredN - boundaryN),
                  )
                : undefined;
          if (known !== undefined && known !== h)
            add('anchor-mismatch', state.ref, {
              n: anchoredN,
              where,
              detail: `the base's recorded head at revision ${anchoredN} differs from the signed head`,
            });
        }
      if (s !== undefined) {
        if (rowCommitment(sha256, s, n, canonical) !== c)
          add('altered', state.ref, {
            n,
            where,
            detail: "the base's content does not give its seal: changed outside Episodic",
          });
      } else {
        const status = redacted(
          state,
          n,
          r as string,
          c,
          () => digest(sha256, encoder.encode(canonical)),
          where,
        );
        if (status !== 'ok') add('altered', state.ref, { n, where, detail: status.altered });
      }
    },

    endStream(ref, stored) {
      const id = streamId(ref);
      const state = streams.get(id) ?? stateOf(ref);
      resolvePending(state, undefined);
      if (stored !== undefined) checkStoredEnd(state, stored);
      if (!state.chained) {
        totals.unchained++;
        if (state.prefix > 0)
          add('unchained', state.ref, {
            from: 1,
            to: state.prefix,
            detail: 'no entry of this stream is chained',
          });
      } else {
        for (const [from, to] of state.unchained)
          add('unchained', state.ref, {
            from,
            to,
            ...(from === 1 ? { verified_from: to + 1 } : {}),
            detail:
              from === 1
                ? `entries ${from}–${to} were written before chaining; verified from entry ${to + 1}`
                : `entries ${from}–${to} were written by another program (not chained; their contents still count in the heads)`,
          });
        for (const [from, to] of state.missing)
          add('deleted', state.ref, {
            n: from,
            ...(to === from ? {} : { from, to }),
            detail: to === from ? `entry ${from} is missing` : `entries ${from}–${to} are missing`,
          });
        const checks = state.key === undefined ? undefined : anchorChecks.get(state.key);
        if (checks !== undefined)
          for (const anchoredN of checks.keys())
            if (anchoredN > state.lastN)
              add('deleted', state.ref, {
                n: anchoredN,
                detail: `the anchored entry ${anchoredN} is missing: the stream ends at entry ${state.lastN}`,
              });
      }
      streams.delete(id);
      lastRef = undefined;
      lastState = undefined;
      const head = headAt(state, state.lastN);
      return {
        stream: state.ref,
        ...(state.key === undefined ? {} : { key: state.key }),
        n: state.lastN,
        ...(head === undefined ? {} : { head }),
        ...(state.boundary === undefined ? {} : { boundary: { ...state.boundary } }),
      };
    },

    report() {
      for (const state of [...streams.values()]) this.endStream(state.ref);
      let collectedStreams = 0;
      for (const [key, record] of collected) {
        if (record.through?.h === undefined) continue;
        collectedStreams++;
        add(
          'collected',
          { ...kindOf(key), key },
          {
            to: record.through.n,
            detail: `stream collected whole by Episodic (${record.erasure?.reason ?? 'retention'}${record.erasure === undefined ? '' : `, ${record.erasure.at}`}): ${record.through.n} entries`,
          },
        );
      }
      const wholeKinds = new Set(parsed.anchoredKinds ?? CHAIN_STREAM_KINDS);
      for (const [key, checks] of anchorChecks) {
        if (seenKeys.has(key) || collected.get(key)?.through?.h !== undefined) continue;
        if (!wholeKinds.has(anchorKinds.get(key) ?? 'run')) continue;
        add(
          'deleted',
          { ...kindOf(key), key },
          {
            n: Math.max(...checks.keys()),
            detail: 'an anchored stream is gone, and no erasure log records its collection',
          },
        );
      }
      return {
        ok: errors === 0,
        verified: { streams: totals.streams, entries: totals.entries, bytes: totals.bytes },
        streams: {
          chained: totals.chained,
          unchained: totals.unchained,
          collected: collectedStreams,
        },
        findings: [...findings],
        counts: { ...counts },
        truncated,
      };
    },
  };
}
