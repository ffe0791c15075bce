import { createKvArtifactStoreAdapter } from './artifacts/kv-artifact-store.js';
import { createStores, type StoresOptions } from './core-kit.js';
import type { KeyValueStore } from './kv/key-value-store.js';
import { createKvLedgerAdapter } from './ledger/kv-ledger.js';
import { createKvRunStoreAdapter } from './runs/kv-run-store.js';
import { createKvSessionStoreAdapter } from './sessions/kv-session-store.js';

/** Every Episodic store over one key-value store: the adapters here, wrapped by core. */
export function createKvStores(kv: KeyValueStore, options: StoresOptions = {}) {
  return createStores(
    {
      runs: createKvRunStoreAdapter(kv),
      sessions: createKvSessionStoreAdapter(kv),
      ledger: createKvLedgerAdapter(kv),
      artifacts: createKvArtifactStoreAdapter(kv),
    },
    options,
  );
}
