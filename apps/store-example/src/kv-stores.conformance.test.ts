import { describeStoreConformance } from '@episodic/core/testing';
import type { KeyValueStore } from './kv/key-value-store.js';
import { createMemoryKeyValueStore } from './kv/memory-key-value-store.js';
import { createKvStores } from './kv-stores.js';
import { runKey } from './runs/run-keys.js';
import { decodeSessionValue, encodeSessionValue, sessionKey } from './sessions/session-value.js';

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Rewrites one stored value underneath the stores, as a crash or another tool would. */
async function rewrite(
  kv: KeyValueStore,
  key: string,
  change: (value: string | undefined) => string,
) {
  await kv.set(key, change(await kv.get(key)));
}

describeStoreConformance(
  'kv (in-memory key-value store)',
  () => {
    const kv = createMemoryKeyValueStore();
    const emptySession = encodeSessionValue({ base: '', deltas: '' });
    return {
      ...createKvStores(kv),
      damage: {
        appendRawToRun: (runId, bytes) =>
          rewrite(kv, runKey(runId), (text) => (text ?? '') + decode(bytes)),
        replaceRawRun: (runId, bytes) => rewrite(kv, runKey(runId), () => decode(bytes)),
        writeRawSnapshot: (sessionId, bytes) =>
          rewrite(kv, sessionKey(sessionId), (value) =>
            encodeSessionValue({
              ...decodeSessionValue(value ?? emptySession),
              base: decode(bytes),
            }),
          ),
        appendRawToDeltas: (sessionId, bytes) =>
          rewrite(kv, sessionKey(sessionId), (value) => {
            const stored = decodeSessionValue(value ?? emptySession);
            return encodeSessionValue({ ...stored, deltas: stored.deltas + decode(bytes) });
          }),
      },
    };
  },
  { runDamage: true, runText: true, snapshotDamage: true, deltaDamage: true },
);
