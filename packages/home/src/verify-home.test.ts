import { createMemoryLedger, createMemoryRunStore } from '@episodic/core';
import { completedRun, runIdFor } from '@episodic/core/testing';
import { describe, expect, it } from 'vitest';
import { nodeChainCrypto } from './node-chain-crypto.js';
import { verifyEpisodicHome } from './verify-home.js';

const RUN = runIdFor(0x51);

/** A run store and a ledger, both chained (or neither), with one run and two events. */
async function seeded(chain: boolean) {
  const options = chain ? { chain: nodeChainCrypto() } : {};
  const runs = createMemoryRunStore(options);
  const ledger = createMemoryLedger(options);
  await runs.append(RUN, completedRun(RUN, 2));
  for (const summary of ['one', 'two'])
    await ledger.append({
      scope: 'proj',
      session_id: 's1',
      agent_id: 'a',
      type: 'ops.decision',
      summary,
    });
  return { runs, ledger };
}

describe('verifyEpisodicHome', () => {
  it('verifies the runs and the scope asked for, and merges the two reports', async () => {
    const stores = await seeded(true);
    const both = await verifyEpisodicHome(stores, { ledger: { scope: 'proj' } });
    expect(both.parts).toEqual({ runs: 'verified', ledger: 'verified' });
    expect(both.notes).toEqual([]);
    expect(both.report).toMatchObject({
      ok: true,
      findings: [],
      verified: { streams: 2, entries: completedRun(RUN, 2).length + 2 },
      streams: { chained: 2 },
    });
    const runsOnly = await verifyEpisodicHome(stores);
    expect(runsOnly.parts).toEqual({ runs: 'verified', ledger: 'not-asked' });
    expect(runsOnly.notes).toEqual([
      'ledger: not verified (give --scope SCOPE, --global or --all-scopes)',
    ]);
    const ledgerOnly = await verifyEpisodicHome(stores, {
      runs: false,
      ledger: { global: true },
      sessionId: 's1',
    });
    expect(ledgerOnly.parts).toEqual({ runs: 'not-asked', ledger: 'verified' });
    expect(ledgerOnly.report.verified).toMatchObject({ streams: 1, entries: 2 });
  });

  it('says "no chain" per part when a store does not chain, never an error', async () => {
    const result = await verifyEpisodicHome(await seeded(false), { ledger: { scope: 'proj' } });
    expect(result.parts).toEqual({ runs: 'not-chained', ledger: 'not-chained' });
    expect(result.report.ok).toBe(true);
    expect(result.report.verified.streams).toBe(0);
    expect(result.notes).toHaveLength(2);
    expect(result.notes.join('\n')).toMatch(/runs: no chain/);
    expect(result.notes.join('\n')).toMatch(/ledger: no chain/);
  });

  it('refuses bad options, naming the field', async () => {
    const stores = await seeded(true);
    await expect(verifyEpisodicHome(stores, { runs: 'yes' as never })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/runs/),
    });
    await expect(verifyEpisodicHome(stores, { sessionId: 's1' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'sessionId', value: 's1' },
    });
    await expect(
      verifyEpisodicHome(stores, { ledger: { scope: 'proj', global: true } as never }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
