import * as z from 'zod';
import { EpisodicError } from '../errors/episodic-error.js';
import { lastUserMessage } from '../messages/last-user-message.js';
import { type SessionState, sessionStateSchema, uuidSchema } from '../schema/session-state.js';
import { parseInput } from '../validation/parse-input.js';
import type { MaybePromise } from './maybe-promise.js';
import { callAdapter } from './storage-error.js';
import {
  createStoredRedactor,
  parseStoredRedactionOptions,
  type StoredRedactionMode,
  type StoredRedactionOptions,
} from './stored-redaction.js';

/** What a session store backend can promise, declared as data. */
export interface SessionStoreCapabilities {
  /** A save is all-or-nothing: a crash leaves the previous snapshot or the new one, never a mix. */
  readonly atomicSave: boolean;
  /** `expectedRevision` is enforced across processes, not only within one. */
  readonly crossProcessConflicts: boolean;
}

/** One line of `list()`. */
export interface SessionSummary {
  sessionId: string;
  updatedAt: string;
  revision: number;
  runId?: string;
  messageCount: number;
  /**
   * Seed 001's `last_user_message`: the last user message's content as Codelia's session list shows
   * it (see `lastUserMessage`); absent when there is none.
   */
  lastUserMessage?: string;
}

/**
 * The adapter a session store backend implements (seed 001 `sessions/state/<session_id>.json`).
 * Small on purpose: core's `createSessionStore` wraps it with validation and domain errors.
 */
export interface SessionStoreAdapter {
  /** The contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** A short backend name for messages, e.g. `fs` or `sqlite`. */
  readonly name: string;
  readonly capabilities: SessionStoreCapabilities;
  /** The snapshot, or null when there is none. Unreadable data throws `CORRUPT_DATA`. */
  load(sessionId: string): MaybePromise<SessionState | null>;
  /**
   * Stores `state` atomically. When `expectedRevision` is a number, the stored snapshot's revision
   * (0 when it has none) must equal it; when it is null, no snapshot may exist yet. A mismatch throws
   * `CONFLICT` (use `assertExpectedRevision`) and stores nothing. Undefined skips the check.
   */
  save(state: SessionState, expectedRevision: number | null | undefined): MaybePromise<void>;
  /** Every stored snapshot's summary (unreadable snapshots are left out, never fatal). */
  list(): MaybePromise<SessionSummary[]>;
  /** Deletes the snapshot; false when there was none. */
  delete(sessionId: string): MaybePromise<boolean>;
  /**
   * Drops copies of replaced or deleted snapshots that the backend still keeps in its files (e.g.
   * old pages in a write-ahead log). Optional; called after `redact()` saved a scrubbed snapshot.
   */
  purge?(): MaybePromise<void>;
  close?(): MaybePromise<void>;
}

export interface SaveSessionOptions {
  /**
   * The revision the caller last saw: the save fails with `CONFLICT` if another save landed since.
   * `null` means "this session must be new". Omit to save unconditionally.
   */
  expectedRevision?: number | null;
}

/** The session store callers use: always promises, validated input, domain errors. */
export interface SessionStore {
  readonly name: string;
  readonly capabilities: SessionStoreCapabilities;
  load(sessionId: string): Promise<SessionState | null>;
  save(state: SessionState, options?: SaveSessionOptions): Promise<void>;
  list(): Promise<SessionSummary[]>;
  delete(sessionId: string): Promise<boolean>;
  /**
   * Scrubs a stored snapshot (see `StoredRedactionOptions`): by default every secret the ledger's
   * content detectors find is replaced by a typed placeholder; `mode: 'content'` replaces all text.
   * A changed snapshot is saved as the next revision (so a session still holding the old one gets
   * `CONFLICT` instead of writing it back) and the backend drops its old copy. `NOT_FOUND` when
   * there is no snapshot.
   */
  redact(sessionId: string, options?: StoredRedactionOptions): Promise<SessionRedactReceipt>;
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

/** How often `redact()` retries when a save lands between its load and its save. */
const REDACT_ATTEMPTS = 5;

const saveOptionsSchema = z
  .strictObject({ expectedRevision: z.number().int().nonnegative().nullable().optional() })
  .optional();

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

/** The revision of a stored snapshot (0 when it predates revisions). */
export function revisionOf(state: SessionState | null): number | null {
  return state === null ? null : (state.revision ?? 0);
}

function checkAdapter(adapter: SessionStoreAdapter): void {
  if (adapter?.specificationVersion !== 'v1') {
    throw new EpisodicError({
      code: 'UNSUPPORTED',
      message: `This session store adapter implements specification ${String(adapter?.specificationVersion)}, but @episodic/core needs 'v1'. Upgrade the store package to match @episodic/core.`,
      details: { specificationVersion: adapter?.specificationVersion },
    });
  }
}

/** Wraps an adapter into the `SessionStore` callers use. */
export function createSessionStore(adapter: SessionStoreAdapter): SessionStore {
  checkAdapter(adapter);
  const name = adapter.name;
  const sessionId = (value: unknown) => parseInput(uuidSchema, value, 'session id');
  return {
    name,
    capabilities: adapter.capabilities,
    async load(id) {
      const checked = sessionId(id);
      return callAdapter(name, `load session ${checked}`, () => adapter.load(checked));
    },
    async save(state, options) {
      const checked = parseInput(sessionStateSchema, state, 'session state');
      const { expectedRevision } = parseInput(saveOptionsSchema, options, 'save options') ?? {};
      await callAdapter(name, `save session ${checked.session_id}`, () =>
        adapter.save(checked, expectedRevision),
      );
    },
    async list() {
      return callAdapter(name, 'list sessions', () => adapter.list());
    },
    async delete(id) {
      const checked = sessionId(id);
      return callAdapter(name, `delete session ${checked}`, () => adapter.delete(checked));
    },
    async redact(id, options) {
      const checked = sessionId(id);
      const redaction = parseStoredRedactionOptions(options, 'session redaction options');
      for (let attempt = 1; ; attempt++) {
        const state = await callAdapter(name, `load session ${checked}`, () =>
          adapter.load(checked),
        );
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
          await callAdapter(name, `save session ${checked}`, () => adapter.save(next, current));
        } catch (error) {
          if (EpisodicError.hasCode(error, 'CONFLICT') && attempt < REDACT_ATTEMPTS) continue;
          throw error;
        }
        await callAdapter(name, 'purge replaced snapshots', () => adapter.purge?.());
        return {
          ...receipt,
          changed: true,
          replacements: redactor.counts.replacements,
          revision: current + 1,
        };
      }
    },
    async close() {
      await callAdapter(name, 'close', () => adapter.close?.());
    },
  };
}

/** The summary `list()` reports for a snapshot. */
export function summarizeSession(state: SessionState): SessionSummary {
  return {
    sessionId: state.session_id,
    updatedAt: state.updated_at,
    revision: state.revision ?? 0,
    ...(state.run_id === undefined ? {} : { runId: state.run_id }),
    messageCount: state.messages.length,
    ...lastUserMessageField(state.messages),
  };
}

/** `{ lastUserMessage }` for a summary, or nothing when no user message has content. */
function lastUserMessageField(messages: SessionState['messages']): {
  lastUserMessage?: string;
} {
  const text = lastUserMessage(messages);
  return text === undefined ? {} : { lastUserMessage: text };
}

/** Newest first, then by id: the order every store's `list()` returns. */
export function compareSessionSummaries(left: SessionSummary, right: SessionSummary): number {
  if (left.updatedAt !== right.updatedAt) return left.updatedAt < right.updatedAt ? 1 : -1;
  return left.sessionId < right.sessionId ? -1 : left.sessionId > right.sessionId ? 1 : 0;
}
