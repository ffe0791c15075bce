import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { type EpisodicStores, openEpisodicStores } from '@episodic/home';
import { createFsStore } from '@episodic/store-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerChainBadge, runChainBadge } from './chain-badge.js';

const CLEAN = 'c1000000-0000-4000-8000-0000000000c1';
const TAMPERED = '00000000-0000-4000-8000-0000000000c2';
const REDACTED = '00000000-0000-4000-8000-0000000000c3';
const OLD = '00000000-0000-4000-8000-0000000000c4';
const STARTED = '2026-02-01T10:00:00.000Z';

let root: string;
let home: string;
let stores: EpisodicStores;

function records(runId: string, words: string[]): RunRecord[] {
  return [
    { type: 'header', schema_version: 1, run_id: runId, started_at: STARTED } as RunRecord,
    ...words.map(
      (word) =>
        ({
          type: 'run.status',
          run_id: runId,
          ts: STARTED,
          status: 'running',
          message: word,
        }) as RunRecord,
    ),
  ];
}

const runFile = (runId: string) => join(home, 'sessions', '2026', '02', '01', `${runId}.jsonl`);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'episodic-ui-badge-'));
  home = join(root, 'home');
  // A run written before the home chained: its lines carry no chain.
  const plain = createFsStore({ root: home, durability: 'none' });
  await plain.runs.append(OLD, records(OLD, ['before chaining']));
  await plain.close();
  writeFileSync(
    join(home, 'episodic-home.json'),
    JSON.stringify({ format: 'episodic.home.v1', store: 'fs', chain: true }),
  );
  stores = await openEpisodicStores({ home, env: {} });
  await stores.runs.append(CLEAN, records(CLEAN, ['one', 'two', 'three']));
  await stores.runs.append(TAMPERED, records(TAMPERED, ['one', 'two', 'three']));
  await stores.runs.append(
    REDACTED,
    records(REDACTED, ['the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD']),
  );
  await stores.runs.redact(REDACTED, { mode: 'content' });
  // One byte of line 3 changed by hand, outside Episodic.
  const file = runFile(TAMPERED);
  writeFileSync(file, readFileSync(file, 'utf8').replace('"message":"two"', '"message":"tw0"'));
  for (const summary of ['first', 'second']) {
    await stores.ledger.append({
      scope: 'proj',
      session_id: 's-1',
      agent_id: 'a',
      type: 'ops.decision',
      summary,
    });
  }
  await stores.ledger.append({
    scope: 'proj',
    session_id: 's-2',
    agent_id: 'a',
    type: 'ops.decision',
    summary: 'kept',
  });
  stores.sqlite?.database
    .prepare("UPDATE episodic_events SET summary = 'changed' WHERE summary = 'second'")
    .run();
});
afterAll(async () => {
  await stores.close();
  rmSync(root, { recursive: true, force: true });
});

describe('GET /api/runs/:id/verify', () => {
  it('says verified for a chained run, by a short id too', async () => {
    const badge = await runChainBadge(stores, CLEAN.slice(0, 8));
    expect(badge).toMatchObject({
      status: 'verified',
      label: 'verified',
      severity: null,
      entries: 4,
      first: null,
      counts: {},
      notes: [],
    });
  });

  it('names the first error of a run changed by hand: entry, file and line', async () => {
    const badge = await runChainBadge(stores, TAMPERED);
    expect(badge).toMatchObject({ status: 'findings', label: '1 error', severity: 'error' });
    expect(badge.counts).toEqual({ altered: 1 });
    expect(badge.first).toMatch(
      /^Entry 3 \(line 3 of sessions\/2026\/02\/01\/.*\.jsonl\) was changed outside Episodic\.$/,
    );
  });

  it('says redacted for what Episodic redacted, and not chained for lines written before chaining', async () => {
    const redacted = await runChainBadge(stores, REDACTED);
    expect(redacted).toMatchObject({
      status: 'verified',
      label: 'verified, redacted 1×',
      severity: 'info',
    });
    expect(redacted.first).toContain('redacted by Episodic');
    const old = await runChainBadge(stores, OLD);
    expect(old).toMatchObject({ status: 'not-chained', label: 'not chained' });
  });

  it('a run store that does not chain says not chained, with the note; an unknown run is NOT_FOUND', async () => {
    const plain = createFsStore({ root: home, durability: 'none' });
    try {
      const badge = await runChainBadge({ runs: plain.runs, ledger: stores.ledger }, CLEAN);
      expect(badge).toMatchObject({ status: 'not-chained', label: 'not chained', severity: null });
      expect(badge.notes.join(' ')).toContain('"chain": true');
    } finally {
      await plain.close();
    }
    await expect(
      runChainBadge(stores, '00000000-0000-4000-8000-0000000000ff'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('GET /api/ledger/verify', () => {
  it('verifies one ledger session: verified, or the changed row named', async () => {
    await expect(
      ledgerChainBadge(stores, { scope: 'proj', session: 's-2' }),
    ).resolves.toMatchObject({ status: 'verified', label: 'verified', entries: 1 });
    const changed = await ledgerChainBadge(stores, { scope: 'proj', session: 's-1' });
    expect(changed).toMatchObject({ status: 'findings', label: '1 error', severity: 'error' });
    expect(changed.first).toMatch(
      /^Entry 2 \(row \d+ of episodic_events\) was changed outside Episodic\.$/,
    );
    await expect(
      ledgerChainBadge(stores, { scope: 'proj', session: 'none' }),
    ).resolves.toMatchObject({ status: 'not-chained', label: 'nothing to verify' });
  });

  it('needs a scope and a session (one stream), naming the missing one', async () => {
    await expect(ledgerChainBadge(stores, { scope: 'proj' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('session'),
    });
    await expect(ledgerChainBadge(stores, { session: 's-1' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('scope'),
    });
  });
});
