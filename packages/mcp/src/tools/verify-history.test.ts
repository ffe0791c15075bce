import { createHash, randomBytes } from 'node:crypto';
import { createArtifactStore, createLedger, createRunStore } from '@episodic/core';
import {
  createMemoryArtifactStoreAdapter,
  createMemoryLedgerAdapter,
  createMemoryRunStoreAdapter,
} from '@episodic/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectedClient, connect, countingStores } from '../__fixtures__/mcp-harness.js';
import type { EpisodicMcpStores, EpisodicToolsOptions } from '../episodic-tools.js';
import { EPISODIC_TOOL_OUTPUT_SCHEMAS } from './tool-output-schemas.js';

const open: ConnectedClient[] = [];
async function serve(options: EpisodicToolsOptions) {
  const connected = await connect(options);
  open.push(connected);
  return connected;
}
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
});

const chain = {
  sha256: (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest()),
  randomSalt: () => new Uint8Array(randomBytes(16)),
};

/** Chained memory stores: a task episode and two ledger events in proj, one of each elsewhere. */
async function chainedStores() {
  const ledgerAdapter = createMemoryLedgerAdapter({ chain });
  const stores: EpisodicMcpStores = {
    ledger: createLedger(ledgerAdapter),
    runs: createRunStore(createMemoryRunStoreAdapter({ chain })),
    artifacts: createArtifactStore(createMemoryArtifactStoreAdapter()),
  };
  for (const [scope, summary, tenant] of [
    ['proj', 'one', 'acme'],
    ['proj', 'two', 'other'],
    ['elsewhere', 'three', 'acme'],
  ] as const)
    await stores.ledger.append({
      scope,
      session_id: 's1',
      agent_id: 'a',
      type: 'ops.decision',
      summary,
      metadata: { tenant },
    });
  return { stores, ledgerAdapter };
}

const task = {
  task_description: 'fix the flaky test',
  domain: 'coding',
  task_type: 'debugging',
};

describe('verify_history', () => {
  it("verifies the scope's task episodes and ledger sessions only, and names an altered event", async () => {
    const { stores, ledgerAdapter } = await chainedStores();
    const proj = await serve({ stores, scope: 'proj' });
    const elsewhere = await serve({ stores, scope: 'elsewhere' });
    expect((await proj.call('create_episode', task)).isError).toBe(false);
    expect((await elsewhere.call('create_episode', task)).isError).toBe(false);
    expect((await elsewhere.call('create_episode', task)).isError).toBe(false);

    const clean = await proj.call('verify_history', {});
    expect(clean.isError).toBe(false);
    expect(EPISODIC_TOOL_OUTPUT_SCHEMAS.verify_history.safeParse(clean.body).success).toBe(true);
    expect(clean.body).toMatchObject({
      success: true,
      scope: 'proj',
      ok: true,
      findings: [],
      parts: { runs: 'verified', ledger: 'verified' },
      notes: [],
    });
    // One task episode and one ledger session of proj: never elsewhere's two episodes.
    expect(clean.body.verified.streams).toBe(2);

    const events = await stores.ledger.query({ scope: 'proj' });
    const second = events.events.find((event) => event.summary === 'two');
    ledgerAdapter.tamperRow(second?.event_id as string, { summary: 'tw0' });
    const altered = await proj.call('verify_history', { session_id: 's1' });
    expect(altered.isError).toBe(false);
    expect(altered.body.ok).toBe(false);
    expect(altered.body.findings).toMatchObject([
      { finding: 'altered', severity: 'error', stream: { kind: 'ledger', scope: 'proj' } },
    ]);
    // Another scope's ledger is not this server's.
    expect((await elsewhere.call('verify_history', {})).body.ok).toBe(true);
    const refused = await proj.call('verify_history', { scope: 'elsewhere' });
    expect(refused.isError).toBe(true);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
  });

  it('under an access policy the ledger is not verified (its sessions may hold hidden events)', async () => {
    const { stores } = await chainedStores();
    const acme = await serve({
      stores,
      scope: 'proj',
      policy: { required: { tenant: 'acme' } } as never,
    });
    const result = await acme.call('verify_history', {});
    expect(result.body.parts).toEqual({ runs: 'verified', ledger: 'not-asked' });
    expect(result.body.notes.join('\n')).toMatch(/access policy/);
  });

  it('says "not chained" per part on stores that do not chain', async () => {
    const mcp = await serve({ stores: countingStores().stores, scope: 'proj' });
    const result = await mcp.call('verify_history', {});
    expect(result.isError).toBe(false);
    expect(result.body).toMatchObject({
      ok: true,
      parts: { runs: 'not-chained', ledger: 'not-chained' },
    });
    expect(EPISODIC_TOOL_OUTPUT_SCHEMAS.verify_history.safeParse(result.body).success).toBe(true);
  });
});
