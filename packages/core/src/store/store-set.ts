import * as z from 'zod';
import { parseInput } from '../validation/index.js';
import {
  type ArtifactStore,
  type ArtifactStoreAdapter,
  type ArtifactStoreOptions,
  createArtifactStore,
} from './artifact-store.js';
import {
  createLedger,
  type Ledger,
  type LedgerAdapter,
  type LedgerOptions,
} from './ledger-store.js';
import type { MaybePromise } from './maybe-promise.js';
import { createRunStore, type RunStore, type RunStoreAdapter } from './run-store.js';
import {
  createSessionStore,
  type SessionStore,
  type SessionStoreAdapter,
  type SessionStoreOptions,
} from './session-store.js';

/** The adapters of one backend, by store: give the ones the backend implements. */
export interface StoreAdapters {
  readonly runs?: RunStoreAdapter;
  readonly sessions?: SessionStoreAdapter;
  readonly ledger?: LedgerAdapter;
  readonly artifacts?: ArtifactStoreAdapter;
}

/** What `createStores` makes of each adapter: the store core wraps it in. */
export interface StoreWrappers {
  readonly runs: RunStore;
  readonly sessions: SessionStore;
  readonly ledger: Ledger;
  readonly artifacts: ArtifactStore;
}

/** Options of `createStores`: each wrapper's own options, and what closing the set also closes. */
export interface StoresOptions {
  /** Options of `createSessionStore` (the fold policy). */
  readonly sessions?: SessionStoreOptions | undefined;
  /** Options of `createLedger` (clock, ids, caps, content guards, retention). */
  readonly ledger?: LedgerOptions | undefined;
  /** Options of `createArtifactStore` (the clock). */
  readonly artifacts?: ArtifactStoreOptions | undefined;
  /**
   * Releases what the adapters share (a connection, a pool, a file writer): called once by the
   * set's `close()`, after every store has closed.
   */
  readonly close?: (() => MaybePromise<void>) | undefined;
}

/** The stores `createStores` built (one per adapter given) and `close()`, which closes them all. */
export type Stores<Adapters extends StoreAdapters> = {
  readonly [Name in keyof Adapters & keyof StoreWrappers]: StoreWrappers[Name];
} & {
  /** Closes every store, then the backend (`StoresOptions.close`). Idempotent. */
  close(): Promise<void>;
};

const adapter = z.custom<object>(
  (value) => typeof value === 'object' && value !== null,
  'must be an adapter object',
);

const adaptersSchema = z.strictObject({
  runs: adapter.optional(),
  sessions: adapter.optional(),
  ledger: adapter.optional(),
  artifacts: adapter.optional(),
});

const optionsSchema = z
  .strictObject({
    // Each wrapper checks its own options.
    sessions: z.unknown().optional(),
    ledger: z.unknown().optional(),
    artifacts: z.unknown().optional(),
    close: z
      .custom<() => MaybePromise<void>>(
        (value) => typeof value === 'function',
        'must be a function',
      )
      .optional(),
  })
  .optional();

/**
 * Wraps a backend's adapters in core's stores (`createRunStore`, `createSessionStore`,
 * `createLedger`, `createArtifactStore`) with their options, and closes them together: a
 * backend's entry point builds its adapters and hands them over.
 *
 * ```ts
 * const stores = createStores(
 *   { runs: createMyRunStoreAdapter(db), ledger: createMyLedgerAdapter(db) },
 *   { ledger: { now: () => new Date() }, close: () => db.close() },
 * );
 * await stores.ledger.append({ scope: 'demo', session_id: 's-1', agent_id: 'a', type: 'conversation.user', summary: 'hi' });
 * await stores.close(); // closes the run store and the ledger, then the database
 * ```
 */
export function createStores<Adapters extends StoreAdapters>(
  adapters: Adapters,
  options?: StoresOptions,
): Stores<Adapters> {
  parseInput(adaptersSchema, adapters, 'store adapters');
  const checked = parseInput(optionsSchema, options, 'store set options') ?? {};
  const stores: Partial<Record<keyof StoreWrappers, { close(): Promise<void> }>> = {};
  if (adapters.runs !== undefined) stores.runs = createRunStore(adapters.runs);
  if (adapters.sessions !== undefined)
    stores.sessions = createSessionStore(adapters.sessions, options?.sessions);
  if (adapters.ledger !== undefined) stores.ledger = createLedger(adapters.ledger, options?.ledger);
  if (adapters.artifacts !== undefined)
    stores.artifacts = createArtifactStore(adapters.artifacts, options?.artifacts);
  let closing: Promise<void> | undefined;
  const closeAll = async () => {
    const closed = await Promise.allSettled(Object.values(stores).map((store) => store.close()));
    await checked.close?.();
    const failed = closed.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  };
  return {
    ...stores,
    close() {
      closing ??= closeAll();
      return closing;
    },
  } as Stores<Adapters>;
}
