// The memory run store with chaining on (`createMemoryRunStore({ chain })`): the whole RunStore
// contract still holds, the chain spec runs (it skips for every store that does not chain), and
// what the store keeps verifies clean with core's verifier, or names the line someone edited.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createChainVerifier } from '../chain/index.js';
import { createLedger } from '../store/ledger-store.js';
import { createMemoryLedgerAdapter } from '../store/memory-ledger.js';
import { createMemoryRunStoreAdapter } from '../store/memory-run-store.js';
import { createRunStore } from '../store/run-store.js';
import { describeStoreConformance } from './index.js';
import { completedRun, runIdFor } from './run-fixtures.js';

const chain = {
  sha256: (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest()),
  randomSalt: () => new Uint8Array(randomBytes(16)),
};

describeStoreConformance('memory (chained)', () => {
  const adapter = createMemoryRunStoreAdapter({ chain });
  const ledger = createMemoryLedgerAdapter({ chain });
  return {
    runs: createRunStore(adapter),
    chain: {
      sha256: chain.sha256,
      readRunChain: async (runId: string) => adapter.readChain?.(runId) ?? null,
    },
    ledger: createLedger(ledger),
    chainSha256: chain.sha256,
    damage: {
      changeLedgerRow: async (eventId, change) =>
        ledger.tamperRow(eventId, change === 'delete' ? null : change),
    },
    close: async () => {},
  };
});

describe('memory run store (chained): the stored lines verify', () => {
  it('appends from several calls verify clean; an edited line is named altered', async () => {
    const adapter = createMemoryRunStoreAdapter({ chain });
    const store = createRunStore(adapter);
    const runId = runIdFor(0x71);
    const records = completedRun(runId, 70);
    await store.append(runId, records.slice(0, 30));
    await store.append(runId, records.slice(30));
    const lines = adapter.readLines(runId) ?? [];
    expect(lines).toHaveLength(records.length);
    const verify = (stored: readonly string[]) => {
      const verifier = createChainVerifier({ sha256: chain.sha256 });
      const stream = { kind: 'run', id: runId } as const;
      for (const [index, line] of stored.entries())
        verifier.line(stream, line, { line: index + 1 });
      verifier.endStream(stream);
      return verifier.report();
    };
    expect(verify(lines).findings).toEqual([]);
    expect(lines[63]).toMatch(/"h":"/);
    const edited = lines.map((line, index) =>
      index === 40 ? line.replace('"seq":', '"seq" :') : line,
    );
    expect(verify(edited).findings).toMatchObject([
      { finding: 'altered', n: 41, where: { line: 41 } },
    ]);
  });

  it('refuses chain options that are not a SHA-256 and a salt source', () => {
    expect(() =>
      createMemoryRunStoreAdapter({
        chain: { sha256: 'x' as never, randomSalt: chain.randomSalt },
      }),
    ).toThrow(/chain writer options/);
  });
});
