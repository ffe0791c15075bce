import { describe, expect, it } from 'vitest';
import { EpisodicError } from '../errors/index.js';
import { createMemoryArtifactStoreAdapter } from './memory-artifact-store.js';
import { createMemoryLedgerAdapter } from './memory-ledger.js';
import { createMemoryRunStoreAdapter } from './memory-run-store.js';
import { createMemorySessionStoreAdapter } from './memory-session-store.js';
import { createStores } from './store-set.js';

const at = new Date('2026-01-02T03:04:05.000Z');

describe('createStores', () => {
  it('wraps each adapter given in its store, with that store’s options', async () => {
    const stores = createStores(
      {
        runs: createMemoryRunStoreAdapter(),
        sessions: createMemorySessionStoreAdapter(),
        ledger: createMemoryLedgerAdapter(),
        artifacts: createMemoryArtifactStoreAdapter(),
      },
      { ledger: { now: () => at }, sessions: { fold: 'always' }, artifacts: { now: () => at } },
    );
    const { event } = await stores.ledger.append({
      scope: 'demo',
      session_id: 's-1',
      agent_id: 'a',
      type: 'conversation.user',
      summary: 'hi',
    });
    expect(event.ts_ms).toBe(at.getTime());
    expect(await stores.runs.list()).toEqual({ runs: [], errors: [] });
    expect(await stores.sessions.list()).toEqual([]);
    expect(typeof stores.artifacts.upsert).toBe('function');
    await stores.close();
  });

  it('builds only the stores whose adapters are given', () => {
    const stores = createStores({ runs: createMemoryRunStoreAdapter() });
    expect(Object.keys(stores).sort()).toEqual(['close', 'runs']);
  });

  it('closes every store, then the backend, once', async () => {
    const order: string[] = [];
    const runs = { ...createMemoryRunStoreAdapter(), close: () => void order.push('runs') };
    const ledger = { ...createMemoryLedgerAdapter(), close: () => void order.push('ledger') };
    const stores = createStores({ runs, ledger }, { close: () => void order.push('backend') });
    await Promise.all([stores.close(), stores.close()]);
    await stores.close();
    expect(order.sort()).toEqual(['backend', 'ledger', 'runs']);
    expect(order.length).toBe(3);
  });

  it('closes the backend even when a store fails to close, and reports the failure', async () => {
    const closed: string[] = [];
    const runs = {
      ...createMemoryRunStoreAdapter(),
      close: () => {
        throw new Error('disk gone');
      },
    };
    const stores = createStores({ runs }, { close: () => void closed.push('backend') });
    await expect(stores.close()).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(closed).toEqual(['backend']);
  });

  it('rejects an unknown store or a bad option, naming it, before building anything', () => {
    const unknown = () => createStores({ episodes: {} } as never);
    expect(unknown).toThrow(EpisodicError);
    expect(unknown).toThrow(/episodes/);
    const notAnAdapter = () => createStores({ runs: 'sqlite' } as never);
    expect(notAnAdapter).toThrow(/runs/);
    const badClose = () => createStores({}, { close: 'now' } as never);
    expect(badClose).toThrow(/close/);
    // A wrapper's own options are checked by the wrapper.
    expect(() =>
      createStores({ ledger: createMemoryLedgerAdapter() }, { ledger: { caps: -1 } as never }),
    ).toThrow(EpisodicError);
  });
});
