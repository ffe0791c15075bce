import { monotonicFactory } from 'ulid';
import * as z from 'zod';
import { ledgerChainValue } from '../chain/canonical.js';
import type { Sha256 } from '../chain/formulas.js';
import type { AnchorFile, ChainMember, ChainReport, ChainWhere } from '../chain/schemas.js';
import {
  type ChainStoredEnd,
  type ChainStreamSummary,
  createChainVerifier,
} from '../chain/verifier.js';
import { EpisodicError } from '../errors/episodic-error.js';
import type { ContentRule } from '../ledger/content-rules.js';
import { DEFAULT_CONTENT_RULES } from '../ledger/content-rules.js';
import {
  damagedRowOf,
  type LedgerRow,
  ledgerRowFromSql,
  type NewLedgerRow,
  newLedgerRowValues,
  rowToLedgerEvent,
  type SqlLedgerRow,
  storedLedgerRow,
} from '../ledger/ledger-row.js';
import {
  isSameLedgerEvent,
  type LedgerCaps,
  ledgerCapsSchema,
  type PreparedLedgerEvent,
  type PrepareEventContext,
  prepareLedgerEvent,
  resolveLedgerCaps,
} from '../ledger/prepare-event.js';
import { resolveRetentionPolicy, retentionCutoffs } from '../ledger/retention.js';
import { resolveScopeSelector } from '../ledger/scope.js';
import {
  type AccessPolicy,
  type AccessPredicate,
  compileAccessPolicy,
} from '../provenance/access-policy.js';
import { effectiveMetadata } from '../provenance/effective-metadata.js';
import { compileMetadataFilter, type MetadataPredicate } from '../provenance/evaluate-filter.js';
import type { MetadataFilter } from '../provenance/metadata-filter.js';
import {
  CONTENT_KINDS,
  type ContentKind,
  LEDGER_EVENT_TYPES,
  LEDGER_MAX_LIMIT,
  LEDGER_STORED_ID_MAX,
  type LedgerAppendOptions,
  type LedgerAppendReceipt,
  type LedgerDamagedRow,
  type LedgerEvent,
  type LedgerEventType,
  type LedgerGcOptions,
  type LedgerGcReceipt,
  type LedgerPage,
  type LedgerQuery,
  type LedgerRedactOptions,
  type LedgerRedactReceipt,
  type LedgerRedactTarget,
  type LedgerReplayOptions,
  ledgerAppendOptionsSchema,
  ledgerGcOptionsSchema,
  ledgerQuerySchema,
  ledgerRedactOptionsSchema,
  ledgerRedactTargetSchema,
  ledgerReplayOptionsSchema,
  type NewLedgerEvent,
  type RetentionPolicy,
  type RetentionPolicyInput,
  retentionPolicySchema,
  scopeSelectorShape,
  storedSessionIdSchema,
} from '../schema/ledger-event.js';
import { parseSearchText, type SearchMatch } from '../search/search-match.js';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  type LedgerSearchQuery,
  ledgerSearchQuerySchema,
  type SearchAfter,
  type SearchHit,
  type SearchPage,
} from '../search/search-query.js';
import { safeJsonParse } from '../util/json.js';
import { lazyCompiled } from '../validation/compiled-schema.js';
import { invalidField, parseInput } from '../validation/parse-input.js';
import {
  ID_PREFIX_CANDIDATE_LIMIT,
  ID_PREFIX_MIN_LENGTH,
  idPrefixRange,
  parseIdReference,
  resolveIdPrefix,
} from './id-prefix.js';
import type { MaybePromise } from './maybe-promise.js';
import { callAdapter } from './storage-error.js';

/** What a ledger backend can promise, declared as data. */
export interface LedgerCapabilities {
  /** `appendBatch` is one transaction: all events are stored or none. */
  readonly atomicBatch: boolean;
  /** Duplicate ids and `expectedPosition` are enforced across processes, not only within one. */
  readonly crossProcessConflicts: boolean;
  /** Redacted and deleted content is overwritten in the backend's files, not just unlinked. */
  readonly secureDelete: boolean;
  /** Events survive the process (a file or a server, not memory). */
  readonly persistent: boolean;
  /** `search` works: the adapter keeps a full-text index of the ledger. @default false */
  readonly search?: boolean;
  /**
   * The adapter chains what it appends (docs/design/verify.md: a salted commitment per event,
   * segment heads per session, an erasure log for redaction and retention) and implements
   * `chainStreams`, `chainRows` and `erasures`. @default false
   */
  readonly chain?: boolean;
}

/** A ledger stream: one session of one scope (its events in `position` order). */
export interface LedgerChainStream {
  readonly scope: string;
  readonly session_id: string;
}

/** One stored event of a ledger stream with its chain columns, as `chainRows` gives it. */
export interface LedgerChainRow {
  /** The stored row, `payload_json` selected. */
  readonly row: LedgerRow | SqlLedgerRow;
  /**
   * Its chain member, from the chain columns: `n` (the position), `s` (the salt) or `r` (the
   * erasure id of its redaction), `c`, `k` on the stream's first chained row, `h` where the store
   * keeps a segment head. `null`: the row is not chained (written before chaining was on, or by
   * another program).
   */
  readonly chain: ChainMember | null;
  /** Where it is stored (SQLite: table and rowid). */
  readonly where?: ChainWhere;
}

/** What `chainRows` gives: the stream key (`null` before its first chained row) and the rows. */
export interface LedgerChainRows {
  readonly key: string | null;
  readonly rows: readonly LedgerChainRow[];
  /**
   * Where the session's stored head (kept apart from its rows) says the chain stands: the
   * writer's last `n` and `head(n)`. The verifier reports rows cut from the tail (`deleted`) and a
   * head its rows do not give (`altered`). Absent: not compared (an adapter that keeps no head).
   */
  readonly head?: ChainStoredEnd;
}

/**
 * Which rows a search reads: the rows of the scope and filters where every phrase of `match`
 * occurs in the row's search text (`searchTextOfLedgerRow`), best first (score descending, then
 * `sequence` ascending). Scope and filters are part of the engine's query: no row outside them is
 * read, ranked or counted.
 */
export interface LedgerSearchPlan {
  /** The normalized scope, or null for every scope (`global: true`). */
  readonly scope: string | null;
  readonly sessionId?: string;
  readonly agentId?: string;
  /** Inclusive bounds on `ts_ms`. */
  readonly fromTsMs?: number;
  readonly toTsMs?: number;
  /** Distinct types in sorted order; absent means every type. */
  readonly types?: readonly LedgerEventType[];
  /** The parsed search: render it with `renderFts5Match` (or the engine's own renderer). */
  readonly match: SearchMatch;
  /** Only rows after this point of the order: lower score, or equal score and higher sequence. */
  readonly after?: SearchAfter;
  /** The most rows to return. */
  readonly limit: number;
}

/** One row a search found, as the adapter returns it (numbers may come back as text). */
export interface LedgerSearchRow {
  readonly event_id: string;
  /** The row's sequence (a SQL table's `id`). */
  readonly sequence: number | string | bigint;
  readonly session_id: string;
  readonly agent_id: string;
  readonly type: string;
  readonly ts_ms: number | string;
  /** Higher is better (SQLite: `-bm25()`); the order's key with `sequence`. */
  readonly score: number;
  /** The excerpt, matches between `SNIPPET_MATCH_START` and `SNIPPET_MATCH_END`. */
  readonly snippet: string;
  readonly metadata_json: string | null;
}

/** Which rows a query reads. Rows come back ordered by `ts_ms`, then `sequence`. */
export interface LedgerQueryPlan {
  /** The normalized scope, or null for every scope (`global: true`). */
  readonly scope: string | null;
  readonly sessionId?: string;
  /** Inclusive bounds on `ts_ms`. */
  readonly fromTsMs?: number;
  readonly toTsMs?: number;
  /** Distinct types in sorted order; absent means every type. */
  readonly types?: readonly LedgerEventType[];
  /** Only rows strictly after this point of the `(ts_ms, sequence)` order. */
  readonly after?: { readonly tsMs: number; readonly sequence: number };
  /** The most rows to return (at most 501). */
  readonly limit: number;
  /** Whether to read `payload_json`; when false it may be left undefined. */
  readonly includePayload: boolean;
}

/** Which rows `redact` overwrites, and with what (core decides the replacement values). */
export interface LedgerRedactPlan {
  readonly scope: string | null;
  readonly eventId?: string;
  readonly sessionId?: string;
  /**
   * The new summary (`[REDACTED]`). `refs_json` and `metadata_json` become null and `redacted`
   * true: every column that held caller content is overwritten (see `LEDGER_ROW_FIELDS`).
   */
  readonly summary: string;
  /** The new payload: null or the JSON text `"[REDACTED]"`. */
  readonly payloadJson: string | null;
  /** When (ISO 8601, core's clock): a chaining adapter records it in its erasure log entry. */
  readonly at?: string;
}

/** What `gc` deletes: per type, rows with `ts_ms < cutoff`. Types not listed are kept. */
export interface LedgerGcPlan {
  readonly scope: string | null;
  readonly cutoffs: Partial<Record<LedgerEventType, number>>;
  /** Count what would be deleted, delete nothing. */
  readonly dryRun: boolean;
  /** When (ISO 8601, core's clock): a chaining adapter records it in its `collect` entries. */
  readonly at?: string;
}

/**
 * What `LedgerAdapter.gc` returns: the rows deleted (or counted) per type, as a record, or as
 * `[type, count]` pairs that core adds up per type (a backend that works scope by scope returns a
 * pair per scope and type, no map to build). Types not named count 0.
 */
export type LedgerGcCounts =
  | Partial<Record<LedgerEventType, number>>
  | Iterable<readonly [type: string, count: number]>;

/**
 * What `LedgerAdapter.append` stores: new rows in order, each as an object and as the values a SQL
 * backend binds. Every id is new to the batch (core checks); a batch is 1 to 1000 rows.
 */
export interface LedgerAppendBatch {
  /** The rows, in order, without `position` and `sequence` (the adapter assigns them). */
  readonly rows: readonly NewLedgerRow[];
  /**
   * The same rows as insert values, `values[i]` for `rows[i]`, in this column order: `event_id,
   * ts_ms, scope, session_id, agent_id, type, summary, payload_json, refs_json, schema_version,
   * created_at, metadata_json` (`redacted` is 0 for every new row). Bind them as they are.
   */
  readonly values: readonly (readonly unknown[])[];
  /**
   * When a number, every row shares one scope and session (core checks) whose last position (0
   * when it has none) must equal it.
   */
  readonly expectedPosition: number | undefined;
}

/** Where `LedgerAdapter.append` stored one row: numbers may come back as text (a `bigint`). */
export interface LedgerAppendedRow {
  readonly event_id: string;
  /** The row's 1-based place in its (scope, session). */
  readonly position: number | string;
  /** The row's insertion order across the ledger (a SQL table's `id`). */
  readonly sequence: number | string | bigint;
}

/**
 * What `LedgerAdapter.append` answers. Only `stored` stored anything; core turns `duplicates` and
 * `conflict` into the `CONFLICT` errors callers see (or into idempotent retries).
 */
export type LedgerAppendResult =
  /** Every row of the batch, in any order. */
  | { readonly stored: readonly LedgerAppendedRow[] }
  /**
   * Nothing was stored: these event ids are already stored. Empty when the backend saw a unique
   * violation whose row is gone by now: core reads the batch's ids again and retries.
   */
  | { readonly duplicates: readonly string[] }
  /** Nothing was stored: the session's last position is not `expectedPosition` but this. */
  | { readonly conflict: { readonly lastPosition: number } };

/**
 * The adapter a ledger backend implements. It only stores and fetches: validation, scope
 * normalization, caps, content guards, ids, clocks, idempotency, replacement values, row decoding
 * and the errors callers see all run in core's `createLedger`. Methods may be synchronous
 * (better-sqlite3) or asynchronous.
 *
 * Rows come back as the backend has them: `LedgerRow`s (a backend that keeps core's rows, as the
 * memory one does) or `SqlLedgerRow`s, the selected columns as a SQL driver returns them (`id` for
 * the sequence, `redacted` 0 or 1, numbers possibly as text), which core converts in place
 * (`ledgerRowFromSql`).
 */
export interface LedgerAdapter {
  /** The contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** A short backend name for messages, e.g. `memory` or `sqlite`. */
  readonly name: string;
  readonly capabilities: LedgerCapabilities;
  /**
   * Stores the batch's rows in order, all or nothing, giving each the next `sequence` and the next
   * `position` of its (scope, session); answers `{ stored }`. If any event id is already stored,
   * stores nothing and answers `{ duplicates }`. With `expectedPosition`, if the session's last
   * position is another, stores nothing and answers `{ conflict: { lastPosition } }`. Duplicates
   * are checked first: a retried append must find its original, not a stale position.
   */
  append(batch: LedgerAppendBatch): MaybePromise<LedgerAppendResult>;
  /** The stored rows with these ids (payload selected); ids not stored are left out. */
  getEvents(eventIds: readonly string[]): MaybePromise<readonly (LedgerRow | SqlLedgerRow)[]>;
  /** Rows matching `plan`, ordered by `ts_ms` then `sequence`, at most `plan.limit`. */
  query(plan: LedgerQueryPlan): MaybePromise<readonly (LedgerRow | SqlLedgerRow)[]>;
  /**
   * Overwrites the matching rows (one event id or one session, within the scope unless it is
   * null): `summary` and `payload_json` from the plan, `refs_json` and `metadata_json` null,
   * `redacted` true. The rows are kept. Returns how many rows matched.
   */
  redact(plan: LedgerRedactPlan): MaybePromise<number>;
  /**
   * Deletes (or only counts, when `dryRun`) the rows the plan selects; returns counts per type, as
   * a record or as `[type, count]` pairs (core adds up pairs of one type, e.g. one per scope).
   */
  gc(plan: LedgerGcPlan): MaybePromise<LedgerGcCounts>;
  /**
   * Optional: the ids of the stored events of `scope` (of every scope when null) in `range`
   * (`from <= event_id < to`, `idPrefixRange` of a prefix: `from` is the prefix itself), in order,
   * at most `limit` of them: an indexed range query on the event id, never a read of the whole
   * scope. An event of another scope is never returned. Without it, `resolveEventId` pages through
   * the scope's events.
   */
  eventIdsWithPrefix?(
    scope: string | null,
    range: { readonly from: string; readonly to: string },
    limit: number,
  ): MaybePromise<string[]>;
  /**
   * Optional (declare `capabilities.search`): the rows `plan` selects, best first, at most
   * `plan.limit`. The index holds `searchTextOfLedgerRow` of each row, and redaction and GC change
   * it with the rows (a redacted or deleted row's old words are never found again).
   */
  search?(plan: LedgerSearchPlan): MaybePromise<readonly LedgerSearchRow[]>;
  /**
   * Optional (declare `capabilities.chain`): the streams (scope, session) with stored events, of
   * `scope` (of every scope when null), in any order.
   */
  chainStreams?(scope: string | null): MaybePromise<readonly LedgerChainStream[]>;
  /**
   * Optional (declare `capabilities.chain`): one stream's stored events in `position` order with
   * their chain members, and the stream key. A chaining adapter stamps each appended row with
   * core's writer (`createChainWriter(…).stampRow` over `ledgerChainCanonicalJson(row)`) in the
   * append's transaction, from the session's head alone.
   */
  chainRows?(scope: string, sessionId: string): MaybePromise<LedgerChainRows>;
  /**
   * Optional (declare `capabilities.chain`): the entries of the store's erasure log, oldest first
   * (`ErasureEntry`: what a redaction or GC recorded in the transaction that erased).
   */
  erasures?(): MaybePromise<readonly unknown[]>;
  close?(): MaybePromise<void>;
}

/** Options of `Ledger.resolveEventId`: the scope to look in, as reads take it. */
export interface ResolveEventIdOptions {
  /** The scope whose events the id may name (normalized). Required unless `global: true`. */
  scope?: string;
  /** Look in every scope. Must be asked for explicitly. */
  global?: true;
  /** The argument's name in messages. @default 'event id' */
  subject?: string;
  /** An access policy, as in `query()`: an event it hides is never resolved, named or counted. */
  policy?: AccessPolicy;
  /**
   * What an id no visible event has resolves to: `'not-found'` throws `NOT_FOUND`; `'as-given'`
   * returns the reference unchanged, for a caller that looks the event up next and answers
   * `NOT_FOUND` in its own words (a cursor, an `--event-id`). Either way another scope's events
   * (and events the policy hides) are never resolved, named or counted, and an ambiguous prefix
   * or a reference that is no id at all is still a `VALIDATION_ERROR`.
   * @default 'not-found'
   */
  unmatched?: 'not-found' | 'as-given';
}

/** `query()` input: `LedgerQuery` with its metadata filter typed (seed 003 filter groups). */
export type LedgerQueryInput = Omit<LedgerQuery, 'metadata' | 'policy'> & {
  metadata?: MetadataFilter;
  policy?: AccessPolicy;
};

/** The ledger callers use: always promises, validated input, domain errors. */
export interface Ledger {
  readonly name: string;
  readonly capabilities: LedgerCapabilities;
  /**
   * Appends one event. Retrying an event with the same `event_id` and content returns the
   * original (`duplicate: true`); the same id with other content is `CONFLICT`.
   */
  append(event: NewLedgerEvent, options?: LedgerAppendOptions): Promise<LedgerAppendReceipt>;
  /** Appends several events in one transaction (all or nothing), in order. */
  appendBatch(
    events: readonly NewLedgerEvent[],
    options?: LedgerAppendOptions,
  ): Promise<LedgerAppendReceipt[]>;
  /** One page of events, ordered by `ts_ms` then insertion; summary-only unless asked. */
  query(query: LedgerQueryInput): Promise<LedgerPage>;
  /** One page of a session's timeline, in order. */
  replay(
    sessionId: string,
    options: Omit<LedgerReplayOptions, 'policy'> & { policy?: AccessPolicy },
  ): Promise<LedgerPage>;
  /** Redacts one event or a session in place (rows kept, `redacted` set). */
  redact(target: LedgerRedactTarget, options?: LedgerRedactOptions): Promise<LedgerRedactReceipt>;
  /** Deletes events past their retention (or counts them, with `dryRun`). */
  gc(options: LedgerGcOptions): Promise<LedgerGcReceipt>;
  /**
   * The event id a person typed, within a scope: a whole stored id (returned as is), or a unique
   * prefix of at least 6 characters, e.g. `01JH4Z5Q` as tables show it (case-insensitive for
   * upper-case ids such as ULIDs). No match is `NOT_FOUND`; several are a `VALIDATION_ERROR`
   * naming a few and their count; anything else is a `VALIDATION_ERROR` saying what an id looks
   * like. An event of another scope (or hidden by the policy) answers exactly like one nobody has.
   */
  resolveEventId(reference: string, options: ResolveEventIdOptions): Promise<string>;
  /**
   * Full-text search: one page of the events of the scope whose summary, payload text or refs
   * hold every word and `"quoted phrase"` of `text`, best first, with snippets; filters as in
   * `query()`. `UNSUPPORTED` when the backend keeps no search index (`capabilities.search`).
   */
  search(query: LedgerSearchInput): Promise<SearchPage>;
  /**
   * Verifies the chain of the ledger sessions of a scope (or every scope, `global: true`; one
   * session with `sessionId`) with core's verifier fold, against the store's erasure log: what
   * was altered, deleted or reordered outside Episodic, and what Episodic redacted or collected.
   * `UNSUPPORTED` when the backend does not chain (`capabilities.chain`).
   */
  verifyChain(options: LedgerVerifyChainOptions): Promise<ChainReport>;
  close(): Promise<void>;
}

/** Options of `Ledger.verifyChain`. */
export interface LedgerVerifyChainOptions {
  /** A synchronous SHA-256 (Node: `(bytes) => crypto.hash('sha256', bytes, 'buffer')`). */
  sha256: Sha256;
  scope?: string;
  global?: true;
  /** Only this session of the scope. */
  sessionId?: string;
  /**
   * Anchor files (`episodic.anchors.v1`, checked by the verifier), oldest first; needs
   * `verifySignature`. An anchored ledger session gone from the store is `deleted` only when every
   * scope is verified (`global: true`, no `sessionId`).
   */
  anchors?: readonly unknown[];
  /** Checks an anchor file's Ed25519 signature over its signing text (`@episodic/home` wires it). */
  verifySignature?: (file: AnchorFile, signed: string) => boolean;
  /** Called with where each verified ledger session ended (its key, `n`, head). */
  onStream?: (summary: ChainStreamSummary) => void;
}

const verifyChainOptionsSchema = z.strictObject({
  sha256: z.custom<Sha256>((value) => typeof value === 'function', 'must be a function'),
  ...scopeSelectorShape,
  sessionId: storedSessionIdSchema.optional(),
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

/** `search()` input: `LedgerSearchQuery` with its metadata filter and policy typed. */
export type LedgerSearchInput = Omit<LedgerSearchQuery, 'metadata' | 'policy'> & {
  metadata?: MetadataFilter;
  policy?: AccessPolicy;
};

/** How the content guards treat flagged content. */
export interface LedgerContentGuardOptions {
  /** The detectors. @default DEFAULT_CONTENT_RULES */
  rules?: readonly ContentRule[];
  /** Kinds stored without complaint (`secret`, `pii`, `tool_output`). @default [] */
  allow?: readonly ContentKind[];
  /** `reject` flagged content, or `redact` it with typed placeholders. @default 'reject' */
  mode?: 'reject' | 'redact';
}

/** Options of `createLedger`. */
export interface LedgerOptions {
  /** The clock for `ts_ms` defaults, `created_at` and GC. @default () => new Date() */
  now?: () => Date;
  /** Event ids for appends without one. @default a monotonic ULID stamped with `now` */
  generateId?: () => string;
  /** Byte caps. @default { payloadBytes: 8192, refsBytes: 4096, summaryBytes: 1024, metadataBytes: 2048 } */
  caps?: Partial<LedgerCaps>;
  /** Content guards. @default { mode: 'reject', allow: [] } */
  contentGuard?: LedgerContentGuardOptions;
  /** Retention overrides in days per type (`null` = forever). @default DEFAULT_RETENTION_POLICY */
  retention?: RetentionPolicyInput;
}

/** The summary a redacted event keeps. */
export const REDACTED_SUMMARY = '[REDACTED]';

/** The most events one `appendBatch` accepts. */
export const LEDGER_MAX_BATCH = 1000;

const optionsSchema = z.strictObject({
  now: z.function().optional(),
  generateId: z.function().optional(),
  caps: ledgerCapsSchema.optional(),
  contentGuard: z
    .strictObject({
      rules: z
        .array(z.looseObject({ id: z.string().min(1), pattern: z.instanceof(RegExp) }))
        .optional(),
      allow: z.array(z.enum(CONTENT_KINDS)).optional(),
      mode: z.enum(['reject', 'redact']).optional(),
    })
    .optional(),
  retention: retentionPolicySchema.optional(),
});

const resolveEventIdOptionsSchema = z.strictObject({
  ...scopeSelectorShape,
  subject: z.string().min(1).optional(),
  policy: z.unknown().optional(),
  unmatched: z.enum(['not-found', 'as-given']).optional(),
});

// Reads and appends parse their options on every call: compiled once, on first use.
const compiledQuery = lazyCompiled(ledgerQuerySchema);
const compiledSessionId = lazyCompiled(storedSessionIdSchema);
const compiledReplayOptions = lazyCompiled(ledgerReplayOptionsSchema);
const compiledAppendOptions = lazyCompiled(ledgerAppendOptionsSchema);
const compiledSearch = lazyCompiled(ledgerSearchQuerySchema);

/**
 * The `NOT_FOUND` of a redaction whose event is not in the scope (`null`: in no scope), for every
 * path that must answer like `Ledger.redact` (a dry run included).
 */
export function eventToRedactNotFound(eventId: string, scope: string | null): EpisodicError {
  return new EpisodicError({
    code: 'NOT_FOUND',
    message: `No event ${eventId}${scope === null ? '' : ` in scope ${scope}`} to redact. Check the event id and the scope; nothing was changed.`,
    details: { eventId, scope },
  });
}

/** The `CONFLICT` of an append whose session's last position is not `expectedPosition`. */
function positionConflict(
  scope: string,
  sessionId: string,
  currentPosition: number,
  expectedPosition: number | undefined,
): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Session ${sessionId} in scope ${scope} moved on: expected its last position to be ${expectedPosition}, found ${currentPosition}. Another writer appended first; read the session again and retry.`,
    details: { scope, sessionId, expectedPosition, currentPosition },
  });
}

/** The `CONFLICT` of an append whose event ids are already stored (nothing was appended). */
function duplicateEventIdsError(eventIds: readonly string[]): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Event id ${eventIds[0]} is already stored${eventIds.length > 1 ? ` (and ${eventIds.length - 1} more)` : ''}; nothing was appended.`,
    details: { duplicateEventIds: [...eventIds] },
  });
}

/** What an adapter that answers `append` outside the contract (an older one: rows) gets. */
function unknownAppendAnswer(name: string, answer: unknown): EpisodicError {
  const shape = Array.isArray(answer) ? 'an array' : typeof answer;
  return new EpisodicError({
    code: 'UNSUPPORTED',
    message: `The ${name} ledger adapter answered append with ${shape}, not { stored }, { duplicates } or { conflict } (LedgerAdapter.append of @episodic/core). Upgrade the store package to match @episodic/core.`,
    details: { store: name, answer: shape },
  });
}

function checkAdapter(adapter: LedgerAdapter): void {
  if (adapter?.specificationVersion !== 'v1') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `This ledger adapter implements specification ${String(adapter?.specificationVersion)}, but @episodic/core needs 'v1'. Upgrade the store package to match @episodic/core.`,
      details: { specificationVersion: adapter?.specificationVersion },
    });
  }
}

/**
 * Random fractions for ULIDs from the platform's CSPRNG, drawn 256 at a time: the default source
 * asks the CSPRNG once per character, which costs more than the rest of an id.
 */
function bufferedRandom(): () => number {
  const values = new Uint32Array(256);
  let next = values.length;
  return () => {
    if (next === values.length) {
      globalThis.crypto.getRandomValues(values);
      next = 0;
    }
    return (values[next++] as number) / 4294967296;
  };
}

/** The default id generator: monotonic ULIDs whose time part comes from `now`. */
export function createUlidGenerator(now: () => Date = () => new Date()): () => string {
  const next = monotonicFactory(bufferedRandom());
  return () => next(now().getTime());
}

/** The `LedgerRow`s of rows an adapter returned, converted in place (see `ledgerRowFromSql`). */
function decoded(rows: readonly (LedgerRow | SqlLedgerRow)[]): readonly LedgerRow[] {
  for (const row of rows) ledgerRowFromSql(row);
  return rows as readonly LedgerRow[];
}

function differentContent(eventId: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `Event id ${eventId} is already stored with different content. A retry must send the same event; give a new event id for a new event. Nothing was appended.`,
    details: { eventId },
  });
}

function metadataOf(row: LedgerRow): unknown {
  if (row.metadata_json === null) return {};
  const parsed = safeJsonParse(row.metadata_json);
  return parsed.success ? parsed.value : {};
}

/** The metadata filter and the access policy as one test of an event's own metadata. */
function bothPredicates(
  filter: MetadataPredicate | undefined,
  visible: AccessPredicate | undefined,
): MetadataPredicate | undefined {
  if (visible === undefined) return filter;
  const allowed = (metadata: unknown) => visible(effectiveMetadata([metadata]));
  return filter === undefined ? allowed : (metadata) => filter(metadata) && allowed(metadata);
}

function pageOf(rows: readonly LedgerRow[], limit: number, includePayload: boolean): LedgerPage {
  const count = Math.min(limit, rows.length);
  const events: LedgerEvent[] = [];
  let damaged: LedgerDamagedRow[] | undefined;
  for (let index = 0; index < count; index++) {
    const row = rows[index] as LedgerRow;
    try {
      events.push(rowToLedgerEvent(row, includePayload));
    } catch (error) {
      // A row another tool wrote that does not parse is reported once; the rest of the page reads.
      const report = damagedRowOf(row, error);
      if (report === null) throw error;
      damaged ??= [];
      damaged.push(report);
    }
  }
  const last = rows[count - 1];
  return {
    events,
    next_after_id: rows.length > limit && last !== undefined ? last.event_id : null,
    ...(damaged === undefined ? {} : { damaged }),
  };
}

/** A search row as a hit, its numbers converted. */
function hitOf(row: LedgerSearchRow): SearchHit & { sequence: number } {
  return {
    event_id: row.event_id,
    session_id: row.session_id,
    agent_id: row.agent_id,
    type: row.type as LedgerEventType,
    ts_ms: Number(row.ts_ms),
    score: row.score,
    snippet: row.snippet,
    sequence: Number(row.sequence),
  };
}

/**
 * One page of hits. Without a metadata filter or policy, one read of `limit + 1` rows; with one,
 * rows are read in the search's order batch by batch and matched in core on each event's own
 * metadata (as `query()` does), until the page is full: nothing the filter drops is counted.
 */
async function searchPage(
  read: (after: SearchAfter | undefined, limit: number) => Promise<readonly LedgerSearchRow[]>,
  after: SearchAfter | undefined,
  limit: number,
  predicate: MetadataPredicate | undefined,
): Promise<SearchPage> {
  const matched: Array<SearchHit & { sequence: number }> = [];
  let from = after;
  const batch = predicate === undefined ? limit + 1 : LEDGER_MAX_LIMIT;
  for (;;) {
    const rows = await read(from, batch);
    for (const row of rows) {
      const hit = hitOf(row);
      if (predicate === undefined || predicate(metadataOfJson(row.metadata_json))) {
        matched.push(hit);
        if (matched.length > limit) break;
      }
      from = { score: hit.score, sequence: hit.sequence };
    }
    if (matched.length > limit || rows.length < batch) break;
  }
  const hits = matched.slice(0, limit);
  const last = hits[hits.length - 1];
  return {
    hits: hits.map(({ sequence: _sequence, ...hit }) => hit),
    nextCursor:
      matched.length > limit && last !== undefined
        ? encodeSearchCursor({ score: last.score, sequence: last.sequence })
        : null,
  };
}

function metadataOfJson(json: string | null): unknown {
  if (json === null) return {};
  const parsed = safeJsonParse(json);
  return parsed.success ? parsed.value : {};
}

/**
 * Wraps an adapter into the `Ledger` callers use. Every rule runs here, identically for every
 * backend: input validation, scope normalization and `SCOPE_REQUIRED`, canonical JSON and byte
 * caps, content guards, default ids and times, idempotent retries, cursor resolution, metadata
 * filters, redaction values and retention cutoffs.
 */
export function createLedger(adapter: LedgerAdapter, options: LedgerOptions = {}): Ledger {
  checkAdapter(adapter);
  parseInput(optionsSchema, options, 'ledger options');
  const name = adapter.name;
  const now = options.now ?? (() => new Date());
  const context: PrepareEventContext = {
    caps: resolveLedgerCaps(options.caps),
    guard: {
      rules: options.contentGuard?.rules ?? DEFAULT_CONTENT_RULES,
      allow: options.contentGuard?.allow ?? [],
      mode: options.contentGuard?.mode ?? 'reject',
    },
    now,
    generateId: options.generateId ?? createUlidGenerator(now),
  };
  const retention: RetentionPolicy = resolveRetentionPolicy(options.retention);

  /** The stored rows with these ids, decoded. */
  const readRows = async (eventIds: readonly string[]) =>
    decoded(await callAdapter(name, 'read ledger events', () => adapter.getEvents(eventIds)));
  const queryRows = async (plan: LedgerQueryPlan) =>
    decoded(await callAdapter(name, 'query the ledger', () => adapter.query(plan)));

  async function store(
    prepared: readonly PreparedLedgerEvent[],
    expectedPosition: number | undefined,
  ): Promise<LedgerAppendReceipt[]> {
    const results = new Map<string, LedgerAppendReceipt>();
    let pending = [...prepared];
    for (let attempt = 0; pending.length > 0; attempt++) {
      const rows = pending.map((event) => event.row);
      const result = await callAdapter(name, 'append to the ledger', () =>
        adapter.append({ rows, values: rows.map(newLedgerRowValues), expectedPosition }),
      );
      if ('stored' in result) {
        let byId: Map<string, NewLedgerRow> | undefined;
        result.stored.forEach((place, index) => {
          // In batch order as a rule; any order is allowed.
          let row = rows[index];
          if (row?.event_id !== place.event_id) {
            byId ??= new Map(rows.map((each) => [each.event_id, each]));
            row = byId.get(place.event_id);
          }
          if (row === undefined) return;
          const stored = storedLedgerRow(row, place.position, place.sequence);
          results.set(row.event_id, { event: rowToLedgerEvent(stored, 'lazy'), duplicate: false });
        });
        break;
      }
      if ('conflict' in result) {
        const first = rows[0] as NewLedgerRow;
        const { lastPosition } = result.conflict;
        throw positionConflict(first.scope, first.session_id, lastPosition, expectedPosition);
      }
      if (!Array.isArray(result.duplicates)) throw unknownAppendAnswer(name, result);
      // A unique violation whose row is gone by now names no id: the whole batch is read again.
      const duplicates =
        result.duplicates.length > 0 ? result.duplicates : rows.map((row) => row.event_id);
      if (attempt >= 3) throw duplicateEventIdsError(duplicates);
      const existing = await readRows(duplicates);
      for (const row of existing) {
        const incoming = pending.find((event) => event.row.event_id === row.event_id);
        if (incoming === undefined) continue;
        if (!isSameLedgerEvent(row, incoming)) throw differentContent(row.event_id);
        results.set(row.event_id, { event: rowToLedgerEvent(row, true), duplicate: true });
      }
      pending = pending.filter((event) => !results.has(event.row.event_id));
    }
    return prepared.map((event) => results.get(event.row.event_id) as LedgerAppendReceipt);
  }

  const noOptions: { expectedPosition?: number; allow?: ContentKind[]; redact?: boolean } = {};
  function parseAppendOptions(value: unknown) {
    // The common call passes no options: skip the schema walk on the hot path.
    if (value === undefined) return noOptions;
    return parseInput(compiledAppendOptions(), value, 'append options');
  }

  /**
   * Where to continue after `afterId`. An event of another scope, or one the access policy hides,
   * gets exactly the answer of an id that does not exist: nothing tells a reader it is there.
   */
  async function resolveAfter(
    afterId: string | undefined,
    scope: string | null,
    visible: AccessPredicate | undefined,
  ) {
    if (afterId === undefined) return undefined;
    const [row] = await readRows([afterId]);
    if (
      row === undefined ||
      (scope !== null && row.scope !== scope) ||
      (visible !== undefined && !visible(effectiveMetadata([metadataOf(row)])))
    ) {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `No event ${afterId} to continue after${scope === null ? '' : ` in scope ${scope}`}. Pass the next_after_id of a page from the same scope, or leave afterId out to start from the beginning.`,
        details: { afterId, scope },
      });
    }
    return { tsMs: row.ts_ms, sequence: row.sequence };
  }

  async function readPage(
    plan: Omit<LedgerQueryPlan, 'limit' | 'after'>,
    after: LedgerQueryPlan['after'],
    limit: number,
    predicate: MetadataPredicate | undefined,
  ): Promise<LedgerPage> {
    if (predicate === undefined) {
      const rows = await queryRows({
        ...plan,
        ...(after === undefined ? {} : { after }),
        limit: limit + 1,
      });
      return pageOf(rows, limit, plan.includePayload);
    }
    // Metadata is matched in core, on each event's own metadata, so every backend filters alike.
    const matched: LedgerRow[] = [];
    let cursor = after;
    const batch = LEDGER_MAX_LIMIT;
    for (;;) {
      const rows = await queryRows({
        ...plan,
        ...(cursor === undefined ? {} : { after: cursor }),
        limit: batch,
      });
      for (const row of rows) {
        if (predicate(metadataOf(row))) {
          matched.push(row);
          if (matched.length > limit) return pageOf(matched, limit, plan.includePayload);
        }
      }
      const last = rows[rows.length - 1];
      if (rows.length < batch || last === undefined)
        return pageOf(matched, limit, plan.includePayload);
      cursor = { tsMs: last.ts_ms, sequence: last.sequence };
    }
  }

  return {
    name,
    capabilities: adapter.capabilities,

    async append(event, callOptions) {
      const call = parseAppendOptions(callOptions);
      const prepared = prepareLedgerEvent(event, context, call);
      const [receipt] = await store([prepared], call.expectedPosition);
      return receipt as LedgerAppendReceipt;
    },

    async appendBatch(events, callOptions) {
      const call = parseAppendOptions(callOptions);
      if (!Array.isArray(events) || events.length === 0 || events.length > LEDGER_MAX_BATCH) {
        throw invalidField(
          'ledger batch',
          'events',
          Array.isArray(events) ? `${events.length} events` : events,
          `must be an array of 1 to ${LEDGER_MAX_BATCH} events: split larger batches`,
        );
      }
      const prepared = events.map((event, index) =>
        prepareLedgerEvent(event, context, call, `ledger event [${index}]`),
      );
      const seen = new Set<string>();
      prepared.forEach((event, index) => {
        if (seen.has(event.row.event_id)) {
          throw invalidField(
            'ledger batch',
            `[${index}].event_id`,
            event.row.event_id,
            'repeats an event id of this batch: give each event its own id',
          );
        }
        seen.add(event.row.event_id);
      });
      if (call.expectedPosition !== undefined) {
        const first = prepared[0]?.row;
        const other = prepared.findIndex(
          (event) => event.row.scope !== first?.scope || event.row.session_id !== first?.session_id,
        );
        if (other !== -1) {
          throw invalidField(
            'ledger batch',
            `[${other}].session_id`,
            prepared[other]?.row.session_id,
            'must match the first event (scope and session) when expectedPosition is given',
          );
        }
      }
      return store(prepared, call.expectedPosition);
    },

    async query(input) {
      const query = parseInput(compiledQuery(), input, 'ledger query');
      const { scope } = resolveScopeSelector(query, 'query');
      if (
        query.fromTsMs !== undefined &&
        query.toTsMs !== undefined &&
        query.fromTsMs > query.toTsMs
      ) {
        throw invalidField(
          'ledger query',
          'fromTsMs',
          query.fromTsMs,
          `must not be after toTsMs (${query.toTsMs}): the range is inclusive, swap the bounds`,
        );
      }
      const visible = query.policy === undefined ? undefined : compileAccessPolicy(query.policy);
      const predicate = bothPredicates(
        query.metadata === undefined ? undefined : compileMetadataFilter(query.metadata).predicate,
        visible,
      );
      const after =
        query.afterId === undefined ? undefined : await resolveAfter(query.afterId, scope, visible);
      return readPage(
        {
          scope,
          ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
          ...(query.fromTsMs === undefined ? {} : { fromTsMs: query.fromTsMs }),
          ...(query.toTsMs === undefined ? {} : { toTsMs: query.toTsMs }),
          ...(query.types === undefined ? {} : { types: [...new Set(query.types)].sort() }),
          includePayload: query.includePayload,
        },
        after,
        query.limit,
        predicate,
      );
    },

    async replay(sessionId, replayOptions) {
      const session = parseInput(compiledSessionId(), sessionId, 'replay session id');
      const parsed = parseInput(compiledReplayOptions(), replayOptions, 'replay options');
      const { scope } = resolveScopeSelector(parsed, 'replay');
      const visible = parsed.policy === undefined ? undefined : compileAccessPolicy(parsed.policy);
      const after =
        parsed.afterId === undefined
          ? undefined
          : await resolveAfter(parsed.afterId, scope, visible);
      return readPage(
        { scope, sessionId: session, includePayload: parsed.includePayload },
        after,
        parsed.limit,
        bothPredicates(undefined, visible),
      );
    },

    async redact(target, redactOptions) {
      const parsed = parseInput(ledgerRedactTargetSchema, target, 'redaction target');
      const { replacement } = parseInput(
        ledgerRedactOptionsSchema,
        redactOptions ?? {},
        'redact options',
      );
      const { scope } = resolveScopeSelector(parsed, 'redaction');
      const count = await callAdapter(name, 'redact ledger events', () =>
        adapter.redact({
          scope,
          ...(parsed.eventId === undefined ? {} : { eventId: parsed.eventId }),
          ...(parsed.sessionId === undefined ? {} : { sessionId: parsed.sessionId }),
          summary: REDACTED_SUMMARY,
          payloadJson: replacement === 'null' ? null : JSON.stringify(REDACTED_SUMMARY),
          at: now().toISOString(),
        }),
      );
      if (parsed.eventId !== undefined && count === 0) {
        throw eventToRedactNotFound(parsed.eventId, scope);
      }
      return {
        kind: 'ledger.redact',
        scope,
        ...(parsed.eventId === undefined ? {} : { event_id: parsed.eventId }),
        ...(parsed.sessionId === undefined ? {} : { session_id: parsed.sessionId }),
        replacement,
        redacted_count: count,
      };
    },

    async gc(gcOptions) {
      const parsed = parseInput(ledgerGcOptionsSchema, gcOptions, 'gc options');
      const { scope } = resolveScopeSelector(parsed, 'gc');
      const nowMs = parsed.nowMs ?? now().getTime();
      const policy = resolveRetentionPolicy(retention, parsed.policy);
      const cutoffs: Partial<Record<LedgerEventType, number>> = {};
      for (const [type, cutoff] of Object.entries(retentionCutoffs(policy, nowMs))) {
        if (cutoff !== null) cutoffs[type as LedgerEventType] = cutoff;
      }
      const counts = await callAdapter(
        name,
        parsed.dryRun ? 'count expired events' : 'delete expired events',
        () => adapter.gc({ scope, cutoffs, dryRun: parsed.dryRun, at: now().toISOString() }),
      );
      const deletedByType = {} as Record<LedgerEventType, number>;
      for (const type of LEDGER_EVENT_TYPES) deletedByType[type] = 0;
      if (Symbol.iterator in counts) {
        for (const [type, count] of counts) {
          if (Object.hasOwn(deletedByType, type)) {
            deletedByType[type as LedgerEventType] += count;
          }
        }
      } else {
        for (const type of LEDGER_EVENT_TYPES) deletedByType[type] = counts[type] ?? 0;
      }
      let total = 0;
      for (const type of LEDGER_EVENT_TYPES) total += deletedByType[type];
      return {
        kind: 'ledger.gc',
        scope,
        dry_run: parsed.dryRun,
        now_ms: nowMs,
        deleted_total: total,
        deleted_by_type: deletedByType,
        policy_days: { ...policy },
      };
    },

    async resolveEventId(reference, resolveOptions) {
      const parsed = parseInput(resolveEventIdOptionsSchema, resolveOptions, 'event id options');
      if (parsed.unmatched !== 'as-given') return resolveVisibleEventId(reference, parsed);
      try {
        return await resolveVisibleEventId(reference, parsed);
      } catch (error) {
        if (EpisodicError.hasCode(error, 'NOT_FOUND')) return reference;
        throw error;
      }
    },

    async search(input) {
      const query = parseInput(compiledSearch(), input, 'ledger search');
      const { scope } = resolveScopeSelector(query, 'search');
      if (
        query.fromTsMs !== undefined &&
        query.toTsMs !== undefined &&
        query.fromTsMs > query.toTsMs
      ) {
        throw invalidField(
          'ledger search',
          'fromTsMs',
          query.fromTsMs,
          `must not be after toTsMs (${query.toTsMs}): the range is inclusive, swap the bounds`,
        );
      }
      const match = parseSearchText(query.text);
      const after = query.cursor === undefined ? undefined : decodeSearchCursor(query.cursor);
      const search = adapter.search?.bind(adapter);
      if (search === undefined || adapter.capabilities.search !== true) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message: `The ${name} ledger keeps no search index. Search a ledger that does (the memory ledger, @episodic/store-sqlite), or page through query() with filters instead.`,
          details: { store: name },
        });
      }
      const visible = query.policy === undefined ? undefined : compileAccessPolicy(query.policy);
      const predicate = bothPredicates(
        query.metadata === undefined ? undefined : compileMetadataFilter(query.metadata).predicate,
        visible,
      );
      const plan: Omit<LedgerSearchPlan, 'after' | 'limit'> = {
        scope,
        match,
        ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
        ...(query.agentId === undefined ? {} : { agentId: query.agentId }),
        ...(query.fromTsMs === undefined ? {} : { fromTsMs: query.fromTsMs }),
        ...(query.toTsMs === undefined ? {} : { toTsMs: query.toTsMs }),
        ...(query.types === undefined ? {} : { types: [...new Set(query.types)].sort() }),
      };
      const read = (from: SearchAfter | undefined, limit: number) =>
        callAdapter(name, 'search the ledger', () =>
          search({ ...plan, ...(from === undefined ? {} : { after: from }), limit }),
        );
      return searchPage(read, after, query.limit, predicate);
    },

    async verifyChain(input) {
      const parsed = parseInput(verifyChainOptionsSchema, input, 'chain verify options');
      const { scope } = resolveScopeSelector(parsed, 'chain verification');
      const { chainRows, chainStreams, erasures } = adapter;
      if (
        adapter.capabilities.chain !== true ||
        chainRows === undefined ||
        chainStreams === undefined
      ) {
        throw new EpisodicError({
          code: 'UNSUPPORTED',
          message: `The ${name} ledger does not chain its events. Open it with its chain option (createSqliteStore({ chain: true }), createMemoryLedger({ chain })) to record proofs from the next append on.`,
          details: { store: name },
        });
      }
      const entries = await callAdapter(name, 'read the erasure log', () => erasures?.() ?? []);
      const verifier = createChainVerifier({
        sha256: parsed.sha256,
        erasures: [...entries],
        ...(parsed.anchors === undefined ? {} : { anchors: parsed.anchors }),
        ...(parsed.verifySignature === undefined
          ? {}
          : { verifySignature: parsed.verifySignature }),
        // One scope or one session: an anchored session elsewhere is not gone, only not asked for.
        anchoredKinds: scope === null && parsed.sessionId === undefined ? ['ledger'] : [],
      });
      const streams =
        parsed.sessionId === undefined
          ? await callAdapter(name, 'list ledger streams', () => chainStreams.call(adapter, scope))
          : scope === null
            ? (
                await callAdapter(name, 'list ledger streams', () =>
                  chainStreams.call(adapter, null),
                )
              ).filter((stream) => stream.session_id === parsed.sessionId)
            : [{ scope, session_id: parsed.sessionId }];
      const ordered = [...streams].sort(
        (left, right) =>
          (left.scope < right.scope ? -1 : left.scope > right.scope ? 1 : 0) ||
          (left.session_id < right.session_id ? -1 : left.session_id > right.session_id ? 1 : 0),
      );
      for (const stream of ordered) {
        const { key, rows, head } = await callAdapter(name, 'read a ledger stream', () =>
          chainRows.call(adapter, stream.scope, stream.session_id),
        );
        const ref = {
          kind: 'ledger' as const,
          scope: stream.scope,
          session_id: stream.session_id,
          ...(key === null ? {} : { key }),
        };
        for (const { row, chain, where } of rows)
          verifier.row(
            ref,
            {
              n: Number(row.position),
              chain,
              value: ledgerChainValue(row),
            },
            where,
          );
        const summary = verifier.endStream(ref, head);
        parsed.onStream?.(summary);
      }
      return verifier.report();
    },

    async close() {
      await callAdapter(name, 'close', () => adapter.close?.());
    },
  };

  /** `resolveEventId` with its options parsed: `NOT_FOUND` when no visible event matches. */
  async function resolveVisibleEventId(
    reference: string,
    parsed: z.infer<typeof resolveEventIdOptionsSchema>,
  ): Promise<string> {
    const { scope } = resolveScopeSelector(parsed, 'event id lookup');
    const subject = parsed.subject ?? 'event id';
    const visible =
      parsed.policy === undefined ? undefined : compileAccessPolicy(parsed.policy as AccessPolicy);
    const seen = (row: LedgerRow) =>
      (scope === null || row.scope === scope) &&
      (visible === undefined || visible(effectiveMetadata([metadataOf(row)])));
    // A whole stored id (any id, another tool's too) is itself, even when longer ids start with it.
    if (
      typeof reference === 'string' &&
      reference.length > 0 &&
      reference.length <= LEDGER_STORED_ID_MAX
    ) {
      const [row] = await readRows([reference]);
      if (row !== undefined && seen(row)) return row.event_id;
    }
    const typed = parseIdReference(reference, 'event', subject);
    if (typed.kind === 'id') {
      throw new EpisodicError({
        code: 'NOT_FOUND',
        message: `No event ${typed.id}${scope === null ? '' : ` in scope ${scope}`}. Check the id ("episodic episodes query" shows the ones stored); a prefix needs ${ID_PREFIX_MIN_LENGTH} or more characters.`,
        details: { eventId: typed.id, scope },
      });
    }
    const visibleWithPrefix = async (prefix: string) => {
      const found = await callAdapter(name, `find the events starting with ${prefix}`, async () =>
        adapter.eventIdsWithPrefix === undefined
          ? scanForPrefix(scope, prefix)
          : adapter.eventIdsWithPrefix(scope, idPrefixRange(prefix), ID_PREFIX_CANDIDATE_LIMIT),
      );
      const ids = found.filter((eventId) => eventId.startsWith(prefix));
      if (visible === undefined)
        return { prefix, ids, full: found.length >= ID_PREFIX_CANDIDATE_LIMIT };
      // The policy reads each candidate's metadata; the count is of visible events only, never
      // "at least" (a full page would hint at events the caller may not see).
      const rows = await readRows(ids);
      return { prefix, ids: rows.filter(seen).map((row) => row.event_id), full: false };
    };
    let match = await visibleWithPrefix(typed.prefix);
    // Upper-case ids (ULIDs) typed in lower case.
    const upper = typed.prefix.toUpperCase();
    if (match.ids.length === 0 && upper !== typed.prefix) match = await visibleWithPrefix(upper);
    return resolveIdPrefix(match.prefix, match.ids, 'event', { atLeast: match.full });
  }

  /** Without `eventIdsWithPrefix`: the scope's events, page by page (a scan; adapters should not need it). */
  async function scanForPrefix(scope: string | null, prefix: string): Promise<string[]> {
    const found: string[] = [];
    let after: LedgerQueryPlan['after'];
    for (;;) {
      const rows = decoded(
        await adapter.query({
          scope,
          ...(after === undefined ? {} : { after }),
          limit: LEDGER_MAX_LIMIT,
          includePayload: false,
        }),
      );
      for (const row of rows) if (row.event_id.startsWith(prefix)) found.push(row.event_id);
      const last = rows[rows.length - 1];
      if (rows.length < LEDGER_MAX_LIMIT || last === undefined) break;
      after = { tsMs: last.ts_ms, sequence: last.sequence };
    }
    return found.sort().slice(0, ID_PREFIX_CANDIDATE_LIMIT);
  }
}
