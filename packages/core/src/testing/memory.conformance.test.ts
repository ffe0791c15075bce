import { createMemoryArtifactStore } from '../store/memory-artifact-store.js';
import { createMemoryLedger } from '../store/memory-ledger.js';
import { createMemoryRunStoreAdapter } from '../store/memory-run-store.js';
import { createMemorySessionStore } from '../store/memory-session-store.js';
import { createRunStore } from '../store/run-store.js';
import { describeStoreConformance } from './index.js';

describeStoreConformance(
  'memory',
  () => {
    const runs = createMemoryRunStoreAdapter();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return {
      runs: createRunStore(runs),
      sessions: createMemorySessionStore(),
      ledger: createMemoryLedger(),
      artifacts: createMemoryArtifactStore(),
      damage: {
        appendRawToRun: async (runId, bytes) => runs.writeRaw(runId, decode(bytes)),
        replaceRawRun: async (runId, bytes) =>
          runs.writeRaw(runId, decode(bytes), { replace: true }),
      },
      close: async () => {},
    };
  },
  { runDamage: true, runText: true },
);
