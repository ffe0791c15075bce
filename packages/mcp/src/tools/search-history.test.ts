import { createArtifactStore, createLedger, createRunStore, type Ledger } from '@episodic/core';
import {
  createMemoryArtifactStoreAdapter,
  createMemoryLedgerAdapter,
  createMemoryRunStoreAdapter,
} from '@episodic/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectedClient, connect, countingStores } from '../__fixtures__/mcp-harness.js';
import type { EpisodicToolsOptions } from '../episodic-tools.js';
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

const T0 = Date.parse('2026-01-21T10:00:00.000Z');

async function seed(ledger: Ledger) {
  const events = [
    [
      'proj',
      'sess-1',
      'planner',
      'conversation.user',
      'the rate limit of billing was hit',
      { tenant: 'acme' },
    ],
    [
      'proj',
      'sess-1',
      'worker',
      'tool.result',
      'retried after rate limit backoff',
      { tenant: 'acme' },
    ],
    ['proj', 'sess-2', 'planner', 'ops.decision', 'raise the rate limit', { tenant: 'other' }],
    [
      'elsewhere',
      'sess-9',
      'planner',
      'ops.decision',
      'rate limit of another scope',
      { tenant: 'acme' },
    ],
  ] as const;
  for (const [index, [scope, session, agent, type, summary, metadata]] of events.entries()) {
    await ledger.append({
      scope,
      session_id: session,
      agent_id: agent,
      type,
      summary,
      ts_ms: T0 + index * 1000,
      metadata,
    });
  }
}

describe('search_history', () => {
  it('finds the events of the bound scope holding every word, best first, with snippets', async () => {
    const { stores } = countingStores();
    await seed(stores.ledger as Ledger);
    const mcp = await serve({ stores, scope: 'proj' });
    const found = await mcp.call('search_history', { query: 'rate limit' });
    expect(found.isError, found.text).toBe(false);
    expect(EPISODIC_TOOL_OUTPUT_SCHEMAS.search_history.safeParse(found.body).success).toBe(true);
    expect(found.body).toMatchObject({
      success: true,
      scope: 'proj',
      query: 'rate limit',
      count: 3,
    });
    expect(found.body.hits.map((hit: { session_id: string }) => hit.session_id).sort()).toEqual([
      'sess-1',
      'sess-1',
      'sess-2',
    ]);
    expect(found.body.hits[0].snippet).toContain('«rate»');
    expect(found.body.hits[0].ts).toBe(new Date(found.body.hits[0].ts_ms).toISOString());
    expect(found.structured).toEqual(found.body);

    const hitsOf = async (args: Record<string, unknown>) =>
      (await mcp.call('search_history', { query: 'rate', ...args })).body.hits.map(
        (hit: { type: string }) => hit.type,
      );
    expect(await hitsOf({ session_id: 'sess-2' })).toEqual(['ops.decision']);
    expect(await hitsOf({ agent_id: 'worker' })).toEqual(['tool.result']);
    expect(await hitsOf({ types: ['conversation.user'] })).toEqual(['conversation.user']);
    expect(await hitsOf({ since: T0 + 500, until: '2026-01-21T10:00:01.500Z' })).toEqual([
      'tool.result',
    ]);
    expect(await hitsOf({ query: 'nowhere' })).toEqual([]);
  });

  it('pages with cursor, each hit once', async () => {
    const { stores } = countingStores();
    await seed(stores.ledger as Ledger);
    const mcp = await serve({ stores, scope: 'proj' });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const outcome = await mcp.call('search_history', {
        query: 'rate',
        limit: 2,
        ...(cursor === null ? {} : { cursor }),
      });
      expect(outcome.isError, outcome.text).toBe(false);
      seen.push(...outcome.body.hits.map((hit: { event_id: string }) => hit.event_id));
      cursor = outcome.body.next_cursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(3);
    expect(seen).toHaveLength(3);
  });

  it('never finds what the access policy hides, and takes the scope from the server only', async () => {
    const { stores } = countingStores();
    await seed(stores.ledger as Ledger);
    const acmeOnly = await serve({
      stores,
      scope: 'proj',
      policy: { required: { tenant: 'acme' } } as never,
    });
    const found = await acmeOnly.call('search_history', { query: 'rate limit' });
    expect(found.body.count).toBe(2);
    expect(found.body.hits.some((hit: { type: string }) => hit.type === 'ops.decision')).toBe(
      false,
    );

    const refused = await acmeOnly.call('search_history', { query: 'rate', scope: 'elsewhere' });
    expect(refused.isError).toBe(true);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error).toContain('scope');
  });

  it('answers bad input and a ledger without a search index with tool errors naming the fix', async () => {
    const { stores } = countingStores();
    const mcp = await serve({ stores, scope: 'proj' });
    for (const [args, field] of [
      [{}, 'query'],
      [{ query: '   ' }, 'text'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', cursor: 'nonsense' }, 'cursor'],
      [{ query: 'x', since: T0 + 1, until: T0 }, 'since'],
      [{ query: 'x', types: ['tool.nope'] }, 'types'],
    ] as const) {
      const outcome = await mcp.call('search_history', args);
      expect(outcome.isError, JSON.stringify(args)).toBe(true);
      expect(outcome.body.code).toBe('VALIDATION_ERROR');
      expect(outcome.body.error, JSON.stringify(args)).toContain(field);
    }

    const base = createMemoryLedgerAdapter();
    const noIndex = createLedger({
      ...base,
      capabilities: { ...base.capabilities, search: false },
    } as typeof base);
    const plain = await serve({
      stores: {
        ledger: noIndex,
        runs: createRunStore(createMemoryRunStoreAdapter()),
        artifacts: createArtifactStore(createMemoryArtifactStoreAdapter()),
      },
      scope: 'proj',
    });
    const unsupported = await plain.call('search_history', { query: 'rate' });
    expect(unsupported.isError).toBe(true);
    expect(unsupported.body.code).toBe('UNSUPPORTED');
    expect(unsupported.body.error).toContain('keeps no search index');
    expect(unsupported.body.error).toContain('memory_episodes_query');
  });
});
