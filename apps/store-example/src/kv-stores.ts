import { createKvArtifactStoreAdapter } from './artifacts/kv-artifact-store.js';
import {
  type ArtifactStore,
  type ArtifactStoreOptions,
  createArtifactStore,
  createLedger,
  createRunStore,
  createSessionStore,
  type Ledger,
  type LedgerOptions,
  type RunStore,
  type SessionStore,
  type SessionStoreOptions,
} from './core-kit.js';
import type { KeyValueStore } from './kv/key-value-store.js';
import { createKvLedgerAdapter } from './ledger/kv-ledger.js';
import { createKvRunStoreAdapter } from './runs/kv-run-store.js';
import { createKvSessionStoreAdapter } from './sessions/kv-session-store.js';

/** Options of `createKvStores`: each store's own options. */
export interface KvStoresOptions {
  readonly sessions?: SessionStoreOptions;
  readonly ledger?: LedgerOptions;
  readonly artifacts?: ArtifactStoreOptions;
}

/** The four Episodic stores, sharing one key-value store. */
export interface KvStores {
  readonly runs: RunStore;
  readonly sessions: SessionStore;
  readonly ledger: Ledger;
  readonly artifacts: ArtifactStore;
}

/** Every Episodic store over one key-value store: the adapters here, wrapped by core. */
export function createKvStores(kv: KeyValueStore, options: KvStoresOptions = {}): KvStores {
  return {
    runs: createRunStore(createKvRunStoreAdapter(kv)),
    sessions: createSessionStore(createKvSessionStoreAdapter(kv), options.sessions),
    ledger: createLedger(createKvLedgerAdapter(kv), options.ledger),
    artifacts: createArtifactStore(createKvArtifactStoreAdapter(kv), options.artifacts),
  };
}
