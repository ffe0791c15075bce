import * as z from 'zod';
import { createEpisodic, createEpisodicFromParsed } from '../episodic/create-episodic.js';
import { restoreFromParsed } from '../episodic/restore.js';
import { EpisodicError } from '../errors/episodic-error.js';
import { assertIdCarriesNoContent } from '../ledger/content-guard.js';
import { lastUserMessage } from '../messages/last-user-message.js';
import { messagesToEpisodes } from '../messages/message-episodes.js';
import {
  baseMessages,
  snapshotMessages,
  stableMessageCount,
} from '../messages/snapshot-messages.js';
import type { Episode } from '../schema/episode.js';
import {
  SESSION_STATE_SCHEMA_VERSION,
  type SessionDelta,
  type SessionState,
  sessionDeltaSchema,
  sessionStateSchema,
  uuidSchema,
} from '../schema/session-state.js';
import { deepFreeze, safeJsonParse } from '../util/json.js';
import { jsonEqual } from '../util/json-equal.js';
import { pauseAfterLostRace } from '../util/lost-race-pause.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import { isBuiltState } from './built-state.js';
import { ID_PREFIX_CANDIDATE_LIMIT, parseIdReference, resolveIdPrefix } from './id-prefix.js';
import type { MaybePromise } from './maybe-promise.js';
import {
  applyDeltaFields,
  baseRevisionOf,
  type DecodedSessionBase,
  decodeSessionBase,
  decodeSessionDeltas,
  encodeSessionBase,
  encodeSessionDelta,
  type SessionBaseLayout,
  type SessionHead,
  sessionBaseLayout,
} from './session-format.js';
import { countSessionReread } from './session-rereads.js';
import { callAdapter } from './storage-error.js';
import {
  createStoredRedactor,
  parseStoredRedactionOptions,
  type StoredRedactionMode,
  type StoredRedactionOptions,
} from './stored-redaction.js';

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

/** What a session store backend can promise, declared as data. */
export interface SessionStoreCapabilities {
  /** A save or commit is all-or-nothing: a crash leaves the previous revision or the new one. */
  readonly atomicSave: boolean;
  /** `expectedRevision` is enforced across processes, not only within one. */
  readonly crossProcessConflicts: boolean;
}

/** One line of `list()`. */
export interface SessionSummary {
  sessionId: string;
  updatedAt: string;
  /** The revision of the last commit. */
  revision: number;
  runId?: string;
  /** Episodes in the committed log, when the stored form records it (every version 2 session). */
  episodeCount?: number;
  /**
   * Seed 001 `messages` of the session as of its last commit (`revision`), like `lastUserMessage`:
   * both come from one state, the last commit's (or, for a commit that did not record its message
   * count, the base's as of `baseRevision`).
   */
  messageCount: number;
  /** The revision of the base snapshot: the last fold (or save). */
  baseRevision: number;
  /**
   * Seed 001's `last_user_message`: the last user message's content as Codelia's session list shows
   * it (see `lastUserMessage`); absent when there is none.
   */
  lastUserMessage?: string;
}

/** A stored session as raw lines, for core to decode (see `session-format.ts`). */
export interface StoredSessionLines {
  /**
   * The base snapshot, line by line, read lazily: core stops reading at its `messages` (close
   * whatever backs it in the iterator's `return`).
   */
  base: Iterable<string>;
  /** The delta lines, in stored order. A last line cut short by a crash is allowed. */
  deltas: Iterable<string>;
}

/** One stored session as `list()` sees it: its base's first line and its last delta line. */
export interface StoredSessionHead {
  sessionId: string;
  /** The first line of the base (the whole base for a version 1 or seed 001 snapshot). */
  base: string;
  /** The last complete delta line, or null when there is none. */
  lastDelta: string | null;
}

/** What an adapter reports after a commit, for the fold policy. */
export interface SessionCommitSizes {
  /** Delta lines stored after the base, this commit's included. */
  deltaCount: number;
  /** Bytes of those lines. */
  deltaBytes: number;
  /** Bytes of the base. */
  baseBytes: number;
  /**
   * Optional: the identity of the stored base this commit landed on (or, for a new session, wrote),
   * one that changes whenever anyone writes a base (a new session, a `replace`, a `fold`), in any
   * process: a generation or row version the backend stores with the base, or the base file's
   * identity. `replace` and `fold` return the token of the base they wrote. When both are given,
   * core folds a small session from the state it last stored itself as long as the token is
   * unchanged (see `SessionCopy`); without them it reads the session back for every fold.
   */
  baseToken?: string;
}

/** One commit as an adapter receives it. */
export interface SessionAdapterCommit {
  /** The revision the commit makes (`expectedRevision + 1`, or 1 for a new session). */
  revision: number;
  /** The revision the session must be at; null when it must not exist yet. */
  expectedRevision: number | null;
  /** The delta line to append (JSON, without a newline). */
  delta: string;
  /** True when the delta empties the log first (`reset`): a later `fold` cannot extend the base. */
  reset?: boolean;
  /**
   * For a new session only (`expectedRevision` null): its whole base as of `revision`, as lines
   * (what it is stored as). Absent for every other commit: the adapter appends `delta` alone.
   */
  base?: readonly string[];
}

/**
 * One fold as an adapter receives it (see `SessionStoreAdapter.fold`): the new base, whose seed
 * 001 messages are derived from its episodes (`snapshotMessages`), and what it shares with a
 * base an earlier fold wrote.
 */
export interface SessionAdapterFold {
  /** The session's revision, which the new base is as of (compare-and-set: it must still be). */
  revision: number;
  /**
   * Set for a `save` whose messages are the ones its episodes give (so a later fold can extend
   * it): the check is `replace`'s with this `expectedRevision` instead (see `assertReplaceable`),
   * and nothing of the stored base is kept.
   */
  save?: { expectedRevision: number | null | undefined };
  /** The new base by section, each line encoded when asked for. */
  base: SessionBaseLayout;
  /**
   * How many first messages the new base shares with a base that a fold wrote from the new
   * base's first `baseEpisodes` episodes (see `stableMessageCount`); null when the new base has
   * fewer episodes than that.
   */
  keptMessages(baseEpisodes: number): number | null;
}

/**
 * The adapter a session store backend implements. Small on purpose: core's
 * `createSessionStore` encodes and decodes every line, validates input and applies the fold
 * policy; the adapter stores lines and makes each write atomic and compare-and-set.
 */
export interface SessionStoreAdapter {
  /** The contract version this adapter implements. */
  readonly specificationVersion: 'v2';
  /** A short backend name for messages, e.g. `fs` or `sqlite`. */
  readonly name: string;
  readonly capabilities: SessionStoreCapabilities;
  /**
   * The session's stored lines, or null when there is none. The base and the deltas must be one
   * consistent pair: a fold that lands while they are read must not yield an older base with its
   * deltas dropped (read again when the base changed meanwhile). A base read lazily (line by line
   * as the store iterates it) may throw `CONFLICT` from its iterator when a fold or a save
   * replaced it meanwhile, never a line of another base: the store then reads the session again.
   */
  load(sessionId: string): MaybePromise<StoredSessionLines | null>;
  /**
   * Compare-and-append of one commit, as one atomic step (across processes when
   * `crossProcessConflicts` is declared). When the session exists and its revision (see
   * `storedSessionRevision`) equals `expectedRevision`, appends `delta` as one line; when it does
   * not exist and `expectedRevision` is null, stores `base` as its base. Anything else throws
   * `assertExpectedRevision`'s `CONFLICT` and stores nothing. A last delta line a crash left
   * incomplete is removed first (that commit was never acknowledged).
   */
  commit(sessionId: string, commit: SessionAdapterCommit): MaybePromise<SessionCommitSizes>;
  /**
   * Replaces the session's base with `lines` (a state as of `revision`) and drops its deltas, as
   * one atomic step: when the session's revision is `expectedRevision` (null: it must not exist);
   * returns the new base's token (see `SessionCommitSizes.baseToken`), or undefined;
   * with `expectedRevision` undefined, unless that would move the revision back (`CONFLICT`; an
   * unreadable stored session may be replaced). The new base must be durable before any delta is
   * dropped (a loader ignores deltas at or below the base's revision).
   */
  replace(
    sessionId: string,
    lines: readonly string[],
    revision: number,
    expectedRevision: number | null | undefined,
    // biome-ignore lint/suspicious/noConfusingVoidType: an adapter that reports no token returns nothing
  ): MaybePromise<string | void>;
  /**
   * Optional: a fold, as `replace(sessionId, lines, fold.revision, fold.revision)` with the lines
   * of `fold.base` (for a save, `fold.save.expectedRevision` is replace's last argument and nothing
   * is kept), but free to keep what the stored base shares with the new one. When the
   * stored base was written by `fold` and no delta since it empties the log (`reset`), the new
   * base begins with the stored base's episodes (as many as it records) and with the first
   * `keptMessages(thatMany)` of its messages; only the rest need be written. An adapter without
   * it gets `replace`. Like `replace`, returns the new base's token (see
   * `SessionCommitSizes.baseToken`), or undefined.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an adapter that reports no token returns nothing
  fold?(sessionId: string, fold: SessionAdapterFold): MaybePromise<string | void>;
  /** Every stored session's head (sessions whose base cannot be read at all are left out). */
  list(): MaybePromise<StoredSessionHead[]>;
  /**
   * Optional: the stored session ids that start with `prefix` (lowercase hex, maybe with hyphens),
   * in order, at most `limit` of them: an indexed range query (`idPrefixRange`) or a directory
   * listing. Without it, `resolveSessionId` filters `list()`.
   */
  sessionIdsWithPrefix?(prefix: string, limit: number): MaybePromise<string[]>;
  /** Deletes the session (base and deltas); false when there was none. */
  delete(sessionId: string): MaybePromise<boolean>;
  /**
   * Drops copies of replaced or deleted snapshots that the backend still keeps in its files (e.g.
   * old pages in a write-ahead log). Optional; called after `redact()` saved a scrubbed snapshot.
   */
  purge?(): MaybePromise<void>;
  close?(): MaybePromise<void>;
}

/** A session as stored, decoded as far as resuming it needs. */
export interface StoredSession {
  /** The state its last commit left, without the log and messages. */
  state: SessionHead;
  /** The base snapshot (its log, or for a seed 001 snapshot its messages). */
  base: DecodedSessionBase;
  /** The commits since the base, in order. */
  deltas: SessionDelta[];
  /** The base's revision. */
  baseRevision: number;
}

/** One commit (see `SessionStore.commit`). */
export interface SessionCommit {
  sessionId: string;
  /** The revision the caller last saw; null for a new session. */
  expectedRevision: number | null;
  /** What the commit changes; `delta.revision` must be `expectedRevision + 1` (1 when new). */
  delta: SessionDelta;
  /**
   * For a new session (`expectedRevision` null), and only then: its whole state as of
   * `delta.revision` (what it is stored as, validated whole). Every other commit hands the store
   * its delta alone: the store builds each fold from what it stored (its base and deltas), never
   * from the caller.
   */
  state?: SessionState;
  /** Fold right after this commit (e.g. the stored base is an older version). @default false */
  fold?: boolean;
}

/** What `commit()` did. */
export interface SessionCommitReceipt {
  sessionId: string;
  revision: number;
  /** True when the commit also folded the deltas into a new base. */
  folded: boolean;
}

/** What `fold()` did. */
export interface SessionFoldReceipt {
  sessionId: string;
  revision: number;
  /** How many deltas the new base took in (0: the base was already current). */
  folded: number;
}

export interface SaveSessionOptions {
  /**
   * The revision the caller last saw: the save fails with `CONFLICT` if another save landed since.
   * `null` means "this session must be new". Omit to save whatever is stored (a save never moves
   * a session's revision back, though).
   */
  expectedRevision?: number | null;
}

/**
 * When a store folds a session's deltas into a new base. Two regimes: while the session is small
 * (`currentUpToBytes`), every commit folds, so the base (what seed 001 readers open, e.g.
 * `sessions/state/<id>.json`) is the current state after every commit; beyond it, folds are
 * amortized (`share`, `minBytes`, `deltas`), so a commit costs its own size, not the session's.
 */
export interface SessionFoldPolicy {
  /**
   * Fold on every commit while the session's stored bytes (its base plus its deltas, this commit's
   * included) are at most this many: its base is then current after every commit, at the cost of
   * rewriting a file of at most this size per commit (milliseconds). Above it the amortized rules
   * below apply, and the base lags the last commit until the next fold (`fold()` brings it up to
   * date on demand). 0 turns the per-commit fold off; store option `fold: 'always'` folds on every
   * commit at any size.
   * @default 1048576 (1 MiB)
   */
  currentUpToBytes?: number;
  /**
   * Fold once the deltas take this share of the base's bytes: a load reads at most `1 + share`
   * times the base, and the write cost per commit stays proportional to the commit (a fold that
   * writes the whole base costs at most `1 + 1/share` times the commits it folds; one that keeps
   * what the old base shares, as store-sqlite's, about the commits' own size).
   * @default 1
   */
  share?: number;
  /**
   * ...but never for fewer delta bytes than this: a small session is not rewritten every other
   * commit (reading its deltas costs next to nothing).
   * @default 65536
   */
  minBytes?: number;
  /** Fold once this many deltas follow the base, whatever their size. @default 100000 */
  deltas?: number;
}

/**
 * The fold option of a store: a `SessionFoldPolicy`, or `'always'`: fold on every commit whatever
 * the session's size, so the base seed 001 readers open is always current (a commit then costs a
 * rewrite of the whole session: use it when other tools read the base of large sessions).
 */
export type SessionFoldOption = SessionFoldPolicy | 'always';

/** Options of `createSessionStore`. */
export interface SessionStoreOptions {
  /** When to fold deltas into a new base (see `SessionFoldPolicy`, `SessionFoldOption`). */
  fold?: SessionFoldOption;
}

/** The session store callers use: always promises, validated input, domain errors. */
export interface SessionStore {
  readonly name: string;
  readonly capabilities: SessionStoreCapabilities;
  /**
   * The whole current state as one snapshot: a base without deltas as it was stored (version 1
   * and seed 001 snapshots unchanged); with deltas, a version 2 state with every episode and the
   * seed 001 `messages` rebuilt from them. null when there is none; `CORRUPT_DATA` when unreadable.
   */
  load(sessionId: string): Promise<SessionState | null>;
  /** The stored session decoded as far as resuming it needs (what `loadSession` reads). */
  read(sessionId: string): Promise<StoredSession | null>;
  /**
   * Appends one commit, guarded by `expectedRevision` (`CONFLICT` when another commit landed
   * first; nothing is stored), then folds when the fold policy says so: on every commit of a
   * small session (so its base is current), every so often beyond (so a commit of a large
   * session costs the commit's size, not the session's).
   */
  commit(commit: SessionCommit): Promise<SessionCommitReceipt>;
  /** Replaces the whole stored session with `state` (a base, dropping any deltas). */
  save(state: SessionState, options?: SaveSessionOptions): Promise<void>;
  /**
   * Folds the session's deltas into a new base now, so the base (what seed 001 readers see) is
   * up to date. `NOT_FOUND` when there is no session.
   */
  fold(sessionId: string): Promise<SessionFoldReceipt>;
  list(): Promise<SessionSummary[]>;
  delete(sessionId: string): Promise<boolean>;
  /**
   * Scrubs a stored snapshot (see `StoredRedactionOptions`): by default every secret the ledger's
   * content detectors find is replaced by a typed placeholder; `mode: 'content'` replaces all text.
   * A changed session is saved as the next revision (a new base: so a session still holding the
   * old one gets `CONFLICT` instead of writing it back) and the backend drops its old copy.
   * `NOT_FOUND` when there is no snapshot.
   */
  redact(sessionId: string, options?: StoredRedactionOptions): Promise<SessionRedactReceipt>;
  /**
   * The session id a person typed: a whole UUID (returned lowercase, not looked up), or a unique
   * prefix of at least 6 characters. No match is `NOT_FOUND`; several are a `VALIDATION_ERROR`
   * naming a few and their count; anything else is a `VALIDATION_ERROR` saying what an id looks like.
   */
  resolveSessionId(reference: string, options?: { subject?: string }): Promise<string>;
  close(): Promise<void>;
}

/** What `SessionStore.redact()` did. */
export interface SessionRedactReceipt {
  sessionId: string;
  /** The mode applied. */
  mode: StoredRedactionMode;
  /** True when the snapshot changed and was saved again. */
  changed: boolean;
  /** Detector findings (`secrets`) or string values (`content`) replaced. */
  replacements: number;
  /** The snapshot's revision after the redaction. */
  revision: number;
}

/** How often `redact()` retries when a commit lands between its load and its save. */
const REDACT_ATTEMPTS = 5;

/**
 * How often a load reads a session again when its base was replaced while it was read (with a
 * short random pause from the third attempt on, so readers racing several folding writers get
 * through instead of failing after a burst of folds). A safety net for adapters that read a base
 * lazily outside one snapshot (store-sqlite's rows past its first 16 MiB, a third-party store):
 * the fs, SQLite and PostgreSQL adapters read a base and its deltas as one snapshot, and the
 * conformance suite checks that their loads never come here (`snapshotLoads`).
 */
const READ_ATTEMPTS = 20;

/** How many small sessions a store keeps a copy of (see `SessionCopy`). */
const COPY_LIMIT = 8;

/**
 * A small session as this store last stored or folded it, to fold from without reading it back:
 * built only from what the store received (a new session's validated state, then each validated
 * delta it committed; zod's parse gave the store its own objects, and a state core built is
 * frozen), never from objects a caller still holds. Trusted only while the adapter reports the
 * commit landing right on it: the base token this store's last write of the base returned (see
 * `SessionCommitSizes.baseToken`), the copy's revision expected and one more delta after the
 * base. Any other base write, in any process (a save at the same revision, a delete and
 * re-creation), changes the token, and the commit then reads the session back; so does any other
 * outcome (a conflict, a failed fold, a save, redact or delete here), which drops the copy.
 */
interface SessionCopy {
  /** The token of the base this store last wrote (see `SessionCommitSizes.baseToken`). */
  baseToken: string;
  revision: number;
  /** Deltas stored after the base (0 right after a fold or for a new session). */
  deltaCount: number;
  /** The state without its log and messages, as `read` would give it. */
  head: SessionHead;
  /** The episodes of base and deltas, as `sessionEpisodes` of a `read` would give them. */
  episodes: unknown[];
  /**
   * How many of `episodes`, from the first, a fold has restored already (valid episodes, ids in
   * order, deeply frozen): the next fold restores only the ones after them, so a commit that
   * folds restores its own episodes, not the whole session again.
   */
  restored: number;
}

/**
 * The copy of a session after a commit stored `delta` (and for a new session its `state`), or
 * null when the adapter reports no base token or `previous` is not the stored session this commit
 * landed on. Built from the validated commit itself: nothing stored is decoded again.
 */
function advanceCopy(
  previous: SessionCopy | undefined,
  expected: number | null,
  state: SessionState | undefined,
  delta: SessionDelta,
  sizes: SessionCommitSizes,
): SessionCopy | null {
  const { baseToken } = sizes;
  if (baseToken === undefined) return null;
  if (state !== undefined) {
    if (sizes.deltaCount !== 0) return null;
    const {
      messages,
      episodes: _episodes,
      episodic,
      episode_count: _episodeCount,
      message_count: _messageCount,
      last_user_message: _lastUser,
      ...fields
    } = state as SessionState & Record<string, unknown>;
    const head = {} as SessionHead;
    for (const [key, value] of Object.entries(fields)) head[key] = owned(value);
    const episodes = baseEpisodes({
      head,
      log:
        state.episodes !== undefined
          ? { episodes: state.episodes }
          : typeof episodic === 'string'
            ? { jsonl: episodic }
            : null,
      messages,
      whole: state,
    });
    return {
      baseToken,
      revision: state.revision ?? 0,
      deltaCount: 0,
      head,
      episodes: episodes.map(owned),
      restored: 0,
    };
  }
  if (previous === undefined || expected === null || previous.baseToken !== baseToken) return null;
  if (previous.revision !== expected || sizes.deltaCount !== previous.deltaCount + 1) return null;
  const episodes = delta.reset === true ? [] : previous.episodes.slice();
  if (delta.episodes !== undefined)
    for (const episode of delta.episodes) episodes.push(owned(episode));
  const fields = delta.context === undefined ? delta : { ...delta, context: owned(delta.context) };
  return {
    baseToken,
    revision: delta.revision,
    deltaCount: sizes.deltaCount,
    head: applyDeltaFields(previous.head, [fields as SessionDelta]),
    episodes,
    restored: delta.reset === true ? 0 : previous.restored,
  };
}

/**
 * `values` restored as a log restores them (frozen, ids repaired), the first `known` of them taken
 * as they are (a fold restored them already). Only what follows is checked, after the last known
 * id; if any of it is not an episode, the whole array goes through the log (which records why).
 */
function restoredEpisodes(values: readonly unknown[], known: number): Episode[] {
  if (known > 0 && known <= values.length) {
    const tail = restoreFromParsed(values.slice(known), (values[known - 1] as Episode).id);
    if (tail.errors.length === 0) {
      const episodes = values.slice(0, known) as Episode[];
      for (const episode of tail.episodes) episodes.push(deepFreeze(episode));
      return episodes;
    }
  }
  return createEpisodicFromParsed(values).read({ fromId: 0 }).slice();
}

/**
 * `value` itself when it is deeply frozen (an episode of a log, a session's context: nobody can
 * change it), otherwise a copy, so that a `SessionCopy` holds nothing a caller can still change
 * (zod's parse copies the objects it checks, not the episodes and values it takes as `unknown`).
 */
function owned<Value>(value: Value): Value {
  return deeplyFrozen(value, 0) ? value : structuredClone(value);
}

function deeplyFrozen(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth > 256 || !Object.isFrozen(value)) return false;
  for (const key of Object.keys(value)) {
    if (!deeplyFrozen((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
const DEFAULT_FOLD_SHARE = 1;
const DEFAULT_FOLD_DELTAS = 100_000;
const DEFAULT_FOLD_MIN_BYTES = 64 * 1024;
/** Sessions up to this many stored bytes fold on every commit (see `currentUpToBytes`). */
const DEFAULT_FOLD_CURRENT_UP_TO_BYTES = 1024 * 1024;

const saveOptionsSchema = z
  .strictObject({ expectedRevision: z.number().int().nonnegative().nullable().optional() })
  .optional();

const storeOptionsSchema = z
  .strictObject({
    fold: z
      .union([
        z.literal('always'),
        z.strictObject({
          currentUpToBytes: z.number().int().nonnegative().optional(),
          share: z.number().positive().max(1000).optional(),
          minBytes: z.number().int().nonnegative().optional(),
          deltas: z.number().int().positive().optional(),
        }),
      ])
      .optional(),
  })
  .optional();

const commitSchema = z.strictObject({
  sessionId: uuidSchema,
  expectedRevision: z.number().int().nonnegative().nullable(),
  delta: sessionDeltaSchema,
  // Checked by the commit itself: whole for a new session (or as core built it), absent otherwise.
  state: z.unknown().optional(),
  fold: z.boolean().optional(),
});

// ---------------------------------------------------------------------------------------------
// Rules shared by every adapter
// ---------------------------------------------------------------------------------------------

/** Throws `CONFLICT` unless `currentRevision` (null: no snapshot) matches `expectedRevision`. */
export function assertExpectedRevision(
  sessionId: string,
  currentRevision: number | null,
  expectedRevision: number | null | undefined,
): void {
  if (expectedRevision === undefined || currentRevision === expectedRevision) return;
  const found = currentRevision === null ? 'no snapshot' : `revision ${currentRevision}`;
  const wanted =
    expectedRevision === null ? 'no snapshot (a new session)' : `revision ${expectedRevision}`;
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Session ${sessionId} changed underneath this write: expected ${wanted}, found ${found}. Another process or turn committed first; reload the session and retry.`,
    details: { sessionId, expectedRevision, currentRevision },
  });
}

/**
 * The checks of `replace`: `expectedRevision` when given; otherwise only that the revision never
 * moves back (`currentRevision` null: no session, or an unreadable one).
 */
export function assertReplaceable(
  sessionId: string,
  currentRevision: number | null,
  revision: number,
  expectedRevision: number | null | undefined,
): void {
  if (expectedRevision !== undefined) {
    assertExpectedRevision(sessionId, currentRevision, expectedRevision);
    return;
  }
  if (currentRevision === null || currentRevision <= revision) return;
  throw new EpisodicError({
    code: 'CONFLICT',
    message: `Session ${sessionId} is at revision ${currentRevision}; saving revision ${revision} would move it back, which a save never does. Load the session and save a revision of at least ${currentRevision}, or delete it first.`,
    details: { sessionId, revision, currentRevision },
  });
}

/** The revision a base's first line records, or null when it cannot be read. */
function baseLineRevision(firstLine: string): number | null {
  let line = firstLine;
  if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
  const text = line.endsWith(',"episodes":[') ? `${line.slice(0, -13)}}` : line;
  const parsed = safeJsonParse(text);
  if (!parsed.success || typeof parsed.value !== 'object' || parsed.value === null) return null;
  const revision = (parsed.value as { revision?: unknown }).revision;
  return typeof revision === 'number' && Number.isSafeInteger(revision) && revision >= 0
    ? revision
    : 0;
}

/**
 * The revision a stored session is at, from its base's first line and its last complete delta
 * line: the later of the two (a delta at or below the base's revision is one a fold covered).
 * null when the base cannot be read; `CORRUPT_DATA` when the last delta line is damaged.
 */
export function storedSessionRevision(
  sessionId: string,
  baseFirstLine: string,
  lastDelta: string | null,
): number | null {
  const base = baseLineRevision(baseFirstLine);
  if (base === null) return null;
  if (lastDelta === null || lastDelta.trim() === '') return base;
  const parsed = safeJsonParse(lastDelta);
  const delta = parsed.success ? sessionDeltaSchema.safeParse(parsed.value) : null;
  if (delta === null || !delta.success) {
    throw new EpisodicError({
      code: 'CORRUPT_DATA',
      message: `The last stored commit of session ${sessionId} is damaged, so no commit can follow it safely. Inspect it with "episodic doctor", or save the session anew.`,
      details: { sessionId },
    });
  }
  return Math.max(base, delta.data.revision);
}

/** The revision of a stored snapshot (0 when it predates revisions). */
export function revisionOf(state: SessionState | null): number | null {
  return state === null ? null : (state.revision ?? 0);
}

/** The summary `list()` reports for a session, from its head; null when its base is unreadable. */
export function summarizeSession(head: StoredSessionHead): SessionSummary | null {
  let first = head.base;
  if (first.charCodeAt(0) === 0xfeff) first = first.slice(1);
  const streamable = first.endsWith(',"episodes":[');
  const parsed = safeJsonParse(streamable ? `${first.slice(0, -13)}}` : first);
  if (!parsed.success) return null;
  const checked = sessionStateSchema.safeParse(
    streamable ? { ...(parsed.value as object), messages: [] } : parsed.value,
  );
  if (!checked.success || checked.data.session_id.toLowerCase() !== head.sessionId) return null;
  const state = checked.data as SessionState & {
    message_count?: unknown;
    episode_count?: unknown;
    last_user_message?: unknown;
  };
  const summary: SessionSummary = {
    sessionId: state.session_id,
    updatedAt: state.updated_at,
    revision: state.revision ?? 0,
    ...(state.run_id === undefined ? {} : { runId: state.run_id }),
    messageCount:
      typeof state.message_count === 'number' ? state.message_count : state.messages.length,
    baseRevision: state.revision ?? 0,
  };
  const lastUser =
    typeof state.last_user_message === 'string'
      ? state.last_user_message
      : lastUserMessage(state.messages);
  if (lastUser !== undefined) summary.lastUserMessage = lastUser;
  if (typeof state.episode_count === 'number') summary.episodeCount = state.episode_count;
  else if (typeof state.episodic === 'string') {
    summary.episodeCount = state.episodic.split('\n').filter((line) => line.trim() !== '').length;
  } else if (Array.isArray(state.episodes)) summary.episodeCount = state.episodes.length;
  if (head.lastDelta !== null) {
    const parsedDelta = safeJsonParse(head.lastDelta);
    const delta = sessionDeltaSchema.safeParse(parsedDelta.success ? parsedDelta.value : null);
    if (delta.success && delta.data.revision > summary.revision) {
      summary.revision = delta.data.revision;
      summary.updatedAt = delta.data.updated_at;
      if (delta.data.run_id !== undefined) summary.runId = delta.data.run_id;
      const {
        episode_count: episodes,
        message_count: messages,
        last_user_message: lastUserText,
      } = delta.data as {
        episode_count?: unknown;
        message_count?: unknown;
        last_user_message?: unknown;
      };
      if (typeof episodes === 'number') summary.episodeCount = episodes;
      // The counts and the last user message of one state: the last commit's, when it recorded
      // its message count (every commit by a session does); the base's otherwise.
      if (typeof messages === 'number') {
        summary.messageCount = messages;
        if (typeof lastUserText === 'string') summary.lastUserMessage = lastUserText;
        else delete summary.lastUserMessage;
      }
    }
  }
  return summary;
}

/** Newest first, then by id: the order every store's `list()` returns. */
export function compareSessionSummaries(left: SessionSummary, right: SessionSummary): number {
  if (left.updatedAt !== right.updatedAt) return left.updatedAt < right.updatedAt ? 1 : -1;
  return left.sessionId < right.sessionId ? -1 : left.sessionId > right.sessionId ? 1 : 0;
}

function checkAdapter(adapter: SessionStoreAdapter): void {
  if (adapter?.specificationVersion !== 'v2') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `This session store adapter implements specification ${String(adapter?.specificationVersion)}, but @episodic/core needs 'v2' (sessions stored as a base plus deltas). Upgrade the store package to match @episodic/core.`,
      details: { specificationVersion: adapter?.specificationVersion },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The wrapper
// ---------------------------------------------------------------------------------------------

/**
 * The episodes of a stored session's base, as parsed objects (validated only when a log is
 * restored from them): a version 2 base's `episodes`, a version 1 base's JSONL, or the episodes a
 * seed 001 snapshot's `messages` convert to.
 */
export function baseEpisodes(base: DecodedSessionBase): unknown[] {
  const { log } = base;
  if (log !== null && 'episodes' in log) return log.episodes;
  const restored =
    log === null
      ? createEpisodic(
          messagesToEpisodes(base.messages ?? []).map((episode, index) => ({
            ...episode,
            id: index + 1,
          })),
        )
      : createEpisodic(log.jsonl);
  return restored.read({ fromId: 0 }).slice();
}

/**
 * The episodes of a whole snapshot (what `SessionStore.load` returns, or an exported one): its
 * `episodes` (version 2), its `episodic` JSONL (version 1), or those its seed 001 `messages`
 * convert to. Restore a log with `createEpisodic(snapshotEpisodes(state))`.
 */
export function snapshotEpisodes(state: SessionState): unknown[] {
  if (state.episodes !== undefined) return state.episodes;
  const { messages, episodic, episodes: _episodes, ...head } = state;
  return baseEpisodes({
    head,
    log: typeof episodic === 'string' ? { jsonl: episodic } : null,
    messages,
    whole: state,
  });
}

/**
 * The episodes of a stored session, base and deltas joined (see `baseEpisodes`): what its
 * committed log is restored from.
 */
export function sessionEpisodes(stored: StoredSession): unknown[] {
  const base = baseEpisodes(stored.base);
  if (stored.deltas.length === 0) return base;
  // One array grown in place: a concat per delta would copy the whole history once per delta.
  const episodes = base.slice();
  for (const delta of stored.deltas) {
    if (delta.reset === true) episodes.length = 0;
    if (delta.episodes !== undefined) for (const episode of delta.episodes) episodes.push(episode);
  }
  return episodes;
}

/** Stored sessions this module decoded from the adapter's lines, whose episodes nobody holds. */
const decodedHere = new WeakSet<StoredSession>();

/**
 * True (once) when `stored` came straight from a store's `read` (its episodes were parsed for it
 * and are held by nobody else), so restoring them needs no defensive copy. Any other
 * `StoredSession` (a custom store's, or one already used) answers false.
 */
export function takeFreshlyDecoded(stored: StoredSession): boolean {
  return decodedHere.delete(stored);
}

/**
 * The seed 001 messages a base of `log` holds (`baseMessages`); undefined when its entries are not
 * episodes (a caller's state is not checked that deep: such a base is stored as given).
 */
function derivedMessages(log: readonly Episode[]): SessionState['messages'] | undefined {
  try {
    return baseMessages(log);
  } catch {
    return undefined;
  }
}

/** What an adapter's `fold` receives for `state`, whose episodes are `log` and messages theirs. */
function foldOf(
  state: SessionState,
  log: Episode[],
  messages: SessionState['messages'],
  revision: number,
  save?: SessionAdapterFold['save'],
): SessionAdapterFold {
  return {
    revision,
    ...(save === undefined ? {} : { save }),
    base: sessionBaseLayout({ ...state, episodes: log, messages }),
    keptMessages: (baseEpisodes) =>
      baseEpisodes > log.length ? null : stableMessageCount(log, baseEpisodes, messages),
  };
}

/**
 * The base lines of a commit's `state`: required (and validated whole, unless core built it) for
 * a new session, refused for any other commit (the store folds from what it stored).
 */
function newSessionBase(
  commit: { expectedRevision: number | null; state?: unknown },
  sessionId: string,
): { lines: string[]; state: SessionState } | undefined {
  const { state } = commit;
  if (commit.expectedRevision === null) {
    if (state === undefined) {
      throw invalidField(
        'session commit',
        'state',
        state,
        `is required for a new session (expectedRevision null): pass the whole state of session ${sessionId} as of delta.revision`,
      );
    }
    const checked = isBuiltState(state)
      ? state
      : parseInput(sessionStateSchema, state, 'session commit state');
    return { lines: encodeSessionBase(checked), state: checked };
  }
  if (state === undefined) return undefined;
  throw invalidField(
    'session commit',
    'state',
    '[state]',
    'is only for a new session (expectedRevision null): a commit to a stored session hands over its delta alone, and the store builds its folds from what it stored. Remove state',
  );
}

/** Wraps an adapter into the `SessionStore` callers use. */
export function createSessionStore(
  adapter: SessionStoreAdapter,
  options?: SessionStoreOptions,
): SessionStore {
  checkAdapter(adapter);
  const checkedOptions = parseInput(storeOptionsSchema, options, 'session store options') ?? {};
  const foldAlways = checkedOptions.fold === 'always';
  const policy = checkedOptions.fold === 'always' ? {} : (checkedOptions.fold ?? {});
  const foldCurrentUpTo = policy.currentUpToBytes ?? DEFAULT_FOLD_CURRENT_UP_TO_BYTES;
  const foldShare = policy.share ?? DEFAULT_FOLD_SHARE;
  const foldDeltas = policy.deltas ?? DEFAULT_FOLD_DELTAS;
  const foldMinBytes = policy.minBytes ?? DEFAULT_FOLD_MIN_BYTES;
  const name = adapter.name;
  const sessionId = (value: unknown) => parseInput(uuidSchema, value, 'session id').toLowerCase();

  const read = async (id: string, withMessages: boolean): Promise<StoredSession | null> => {
    for (let attempt = 1; ; attempt++) {
      const lines = await callAdapter(name, `load session ${id}`, () => adapter.load(id));
      if (lines === null) return null;
      let base: DecodedSessionBase;
      try {
        base = decodeSessionBase(id, lines.base, withMessages);
      } catch (error) {
        // A lazily read base was replaced by a fold or a save while it was read: read again.
        if (!EpisodicError.hasCode(error, 'CONFLICT') || attempt >= READ_ATTEMPTS) throw error;
        countSessionReread();
        await pauseAfterLostRace(attempt);
        continue;
      }
      const baseRevision = baseRevisionOf(base.head);
      const deltas = decodeSessionDeltas(id, lines.deltas, baseRevision);
      const stored = { state: applyDeltaFields(base.head, deltas), base, deltas, baseRevision };
      decodedHere.add(stored);
      return stored;
    }
  };

  /**
   * The whole state of a stored session as one version 2 snapshot (`derive` gives its messages:
   * `baseMessages` for a state a store is to write). Episodes `read` just decoded are restored
   * without a defensive copy (they are validated either way).
   */
  const materialize = (stored: StoredSession, derive = snapshotMessages): SessionState => {
    const episodes = sessionEpisodes(stored);
    const restored = takeFreshlyDecoded(stored)
      ? createEpisodicFromParsed(episodes)
      : createEpisodic(episodes);
    const all = restored.read({ fromId: 0 });
    return {
      ...stored.state,
      schema_version: SESSION_STATE_SCHEMA_VERSION,
      episodes: all.slice(),
      messages: derive(all),
    };
  };

  /**
   * The last state this store stored or folded itself, per small session (see `SessionCopy`): a
   * commit that lands right on it folds from it instead of reading the session back.
   */
  const copies = new Map<string, SessionCopy>();
  const keepCopy = (id: string, copy: SessionCopy) => {
    copies.delete(id);
    copies.set(id, copy);
    for (const oldest of copies.keys()) {
      if (copies.size <= COPY_LIMIT) break;
      copies.delete(oldest);
    }
  };

  /**
   * Writes `state` (the session as of `revision`, messages derived from its episodes) as the new
   * base: through the adapter's `fold` when it has one, otherwise as a `replace`, compare-and-set
   * at `revision` (`CONFLICT` when a commit landed meanwhile).
   */
  const writeFold = async (
    id: string,
    state: SessionState & { episodes: Episode[] },
    revision: number,
  ): Promise<string | undefined> => {
    if (adapter.fold === undefined) {
      const lines = encodeSessionBase(state);
      const token = await callAdapter(name, `fold session ${id}`, () =>
        adapter.replace(id, lines, revision, revision),
      );
      return token ?? undefined;
    }
    const fold = foldOf(state, state.episodes, state.messages, revision);
    const token = await callAdapter(name, `fold session ${id}`, () => adapter.fold?.(id, fold));
    return token ?? undefined;
  };

  /** After a fold of `copy`'s session wrote the base `baseToken` names: the copy is current. */
  const markFolded = (id: string, copy: SessionCopy, baseToken: string | undefined) => {
    if (copies.get(id) !== copy) return;
    if (baseToken === undefined) copies.delete(id);
    else {
      copy.baseToken = baseToken;
      copy.deltaCount = 0;
    }
  };

  /**
   * Folds a stored session into a new base built from what is stored (its base and deltas), at
   * the revision it is at (compare-and-set: `CONFLICT` when a commit lands meanwhile), with the
   * seed 001 messages its episodes give. Nothing is asked of the caller: the store owns its folds.
   * `keep` (a small session's commit) keeps what was read as the session's copy. null when there
   * is no session.
   */
  const foldStored = async (
    id: string,
    keep = false,
  ): Promise<{ revision: number; folded: number } | null> => {
    copies.delete(id);
    const stored = await read(id, false);
    if (stored === null) return null;
    const revision = stored.state.revision ?? 0;
    const folded = stored.deltas.length;
    const head = stored.state;
    const state = materialize(stored, baseMessages) as SessionState & { episodes: Episode[] };
    const copy = {
      baseToken: '',
      revision,
      deltaCount: folded,
      head,
      episodes: state.episodes,
      restored: 0,
    };
    if (keep) keepCopy(id, copy);
    markFolded(id, copy, await writeFold(id, state, revision));
    return { revision, folded };
  };

  /**
   * Folds from the session's copy, which the commit that just stored `delta` (as `line`) at
   * `revision` has brought up to date (see `advanceCopy`).
   */
  const foldCopy = async (id: string, copy: SessionCopy): Promise<void> => {
    const revision = copy.revision;
    const episodes = restoredEpisodes(copy.episodes, copy.restored);
    copy.episodes = episodes;
    copy.restored = episodes.length;
    const state = {
      ...copy.head,
      schema_version: SESSION_STATE_SCHEMA_VERSION,
      episodes,
      messages: baseMessages(episodes),
    } as SessionState & { episodes: Episode[] };
    markFolded(id, copy, await writeFold(id, state, revision));
  };

  const replace = (state: SessionState, expectedRevision: number | null | undefined) =>
    callAdapter(name, `save session ${state.session_id}`, () =>
      adapter.replace(
        state.session_id.toLowerCase(),
        encodeSessionBase(state),
        state.revision ?? 0,
        expectedRevision,
      ),
    );

  return {
    name,
    capabilities: adapter.capabilities,
    async load(id) {
      const checked = sessionId(id);
      const stored = await read(checked, true);
      if (stored === null) return null;
      if (stored.deltas.length > 0) return materialize(stored);
      // No commit since the base: the base exactly as stored.
      if (stored.base.whole !== null) return stored.base.whole;
      const { log, messages } = stored.base;
      return {
        ...stored.state,
        episodes: log !== null && 'episodes' in log ? log.episodes : [],
        messages: messages ?? [],
      };
    },
    async read(id) {
      return read(sessionId(id), false);
    },
    async commit(input) {
      const commit = parseInput(commitSchema, input, 'session commit');
      assertIdCarriesNoContent(commit.delta.run_id, 'delta.run_id', 'session commit');
      const id = commit.sessionId.toLowerCase();
      const expected = commit.expectedRevision;
      const revision = (expected ?? 0) + 1;
      if (commit.delta.revision !== revision) {
        throw new EpisodicError({
          code: 'VALIDATION_ERROR',
          message: `Invalid session commit: delta.revision is ${commit.delta.revision}, but a commit expecting ${expected === null ? 'a new session' : `revision ${expected}`} makes revision ${revision}. Set delta.revision to ${revision}.`,
          details: {
            subject: 'session commit',
            issues: [
              {
                field: 'delta.revision',
                message: `must be ${revision}`,
                value: String(commit.delta.revision),
              },
            ],
          },
        });
      }
      const base = newSessionBase(commit, id);
      const line = encodeSessionDelta(commit.delta);
      let sizes: SessionCommitSizes;
      try {
        sizes = await callAdapter(name, `commit session ${id}`, () =>
          adapter.commit(id, {
            revision,
            expectedRevision: expected,
            delta: line,
            ...(commit.delta.reset === true ? { reset: true } : {}),
            ...(base === undefined ? {} : { base: base.lines }),
          }),
        );
      } catch (error) {
        copies.delete(id);
        throw error;
      }
      const small = foldCurrentUpTo > 0 && sizes.baseBytes + sizes.deltaBytes <= foldCurrentUpTo;
      // Synchronously after the commit returned: no other call of this store runs in between.
      const copy = small
        ? advanceCopy(copies.get(id), expected, base?.state, commit.delta, sizes)
        : null;
      if (copy === null) copies.delete(id);
      else keepCopy(id, copy);
      const due =
        expected !== null &&
        (commit.fold === true ||
          foldAlways ||
          small ||
          sizes.deltaCount >= foldDeltas ||
          sizes.deltaBytes >= Math.max(foldMinBytes, foldShare * sizes.baseBytes));
      if (!due) return { sessionId: id, revision, folded: false };
      try {
        if (copy === null) await foldStored(id, small);
        else await foldCopy(id, copy);
      } catch (error) {
        copies.delete(id);
        // Another commit landed meanwhile: it will fold when its turn comes.
        if (EpisodicError.hasCode(error, 'CONFLICT'))
          return { sessionId: id, revision, folded: false };
        throw error;
      }
      return { sessionId: id, revision, folded: true };
    },
    async save(state, saveOptions) {
      const checked = parseInput(sessionStateSchema, state, 'session state');
      assertIdCarriesNoContent(checked.run_id, 'run_id', 'session state');
      const { expectedRevision } = parseInput(saveOptionsSchema, saveOptions, 'save options') ?? {};
      copies.delete(checked.session_id.toLowerCase());
      const log = checked.episodes as Episode[] | undefined;
      // Messages the episodes give (as a fold writes them) are laid out as a fold lays a base out,
      // so the next fold extends it instead of writing it whole.
      const messages =
        adapter.fold === undefined || log === undefined ? undefined : derivedMessages(log);
      if (log !== undefined && messages !== undefined && jsonEqual(messages, checked.messages)) {
        const fold = foldOf(checked, log, messages, checked.revision ?? 0, { expectedRevision });
        const id = checked.session_id.toLowerCase();
        try {
          await callAdapter(name, `save session ${checked.session_id}`, () =>
            adapter.fold?.(id, fold),
          );
        } finally {
          copies.delete(id);
        }
        return;
      }
      try {
        await replace(checked, expectedRevision);
      } finally {
        copies.delete(checked.session_id.toLowerCase());
      }
    },
    async fold(id) {
      const checked = sessionId(id);
      for (let attempt = 1; ; attempt++) {
        let done: { revision: number; folded: number } | null;
        try {
          done = await foldStored(checked);
        } catch (error) {
          if (EpisodicError.hasCode(error, 'CONFLICT') && attempt < REDACT_ATTEMPTS) continue;
          throw error;
        }
        if (done === null) {
          throw new EpisodicError({
            code: 'NOT_FOUND',
            message: `Session ${checked} is not in the ${name} store, so there is nothing to fold. Check the id (list sessions to see the ones stored).`,
            details: { sessionId: checked, store: name },
          });
        }
        return { sessionId: checked, ...done };
      }
    },
    async list() {
      const heads = await callAdapter(name, 'list sessions', () => adapter.list());
      const summaries: SessionSummary[] = [];
      for (const head of heads) {
        const summary = summarizeSession(head);
        if (summary !== null) summaries.push(summary);
      }
      return summaries.sort(compareSessionSummaries);
    },
    async delete(id) {
      const checked = sessionId(id);
      copies.delete(checked);
      try {
        return await callAdapter(name, `delete session ${checked}`, () => adapter.delete(checked));
      } finally {
        copies.delete(checked);
      }
    },
    async redact(id, redactOptions) {
      const checked = sessionId(id);
      const redaction = parseStoredRedactionOptions(redactOptions, 'session redaction options');
      copies.delete(checked);
      for (let attempt = 1; ; attempt++) {
        const state = await this.load(checked);
        if (state === null) {
          throw new EpisodicError({
            code: 'NOT_FOUND',
            message: `Session ${checked} has no snapshot to redact. Check the id (list sessions to see the ones stored).`,
            details: { sessionId: checked },
          });
        }
        const redactor = createStoredRedactor(redaction);
        const scrubbed = redactor.json(state);
        const current = revisionOf(state) ?? 0;
        const receipt = { sessionId: state.session_id, mode: redactor.mode };
        if (scrubbed === state) {
          return { ...receipt, changed: false, replacements: 0, revision: current };
        }
        const next = parseInput(
          sessionStateSchema,
          { ...scrubbed, revision: current + 1 },
          'redacted session state',
        );
        try {
          await replace(next, current);
        } catch (error) {
          copies.delete(checked);
          if (EpisodicError.hasCode(error, 'CONFLICT') && attempt < REDACT_ATTEMPTS) continue;
          throw error;
        }
        copies.delete(checked);
        await callAdapter(name, 'purge replaced snapshots', () => adapter.purge?.());
        return {
          ...receipt,
          changed: true,
          replacements: redactor.counts.replacements,
          revision: current + 1,
        };
      }
    },
    async resolveSessionId(reference, options = {}) {
      const parsed = parseIdReference(reference, 'session', options.subject ?? 'session id');
      if (parsed.kind === 'id') return parsed.id;
      const { prefix } = parsed;
      const found = await callAdapter(
        name,
        `find the sessions starting with ${prefix}`,
        async () =>
          adapter.sessionIdsWithPrefix === undefined
            ? (await adapter.list())
                .map((head) => head.sessionId)
                .filter((sessionId) => sessionId.startsWith(prefix))
                .sort()
                .slice(0, ID_PREFIX_CANDIDATE_LIMIT)
            : adapter.sessionIdsWithPrefix(prefix, ID_PREFIX_CANDIDATE_LIMIT),
      );
      return resolveIdPrefix(prefix, found, 'session', {
        atLeast: found.length >= ID_PREFIX_CANDIDATE_LIMIT,
      });
    },
    async close() {
      await callAdapter(name, 'close', () => adapter.close?.());
    },
  };
}
