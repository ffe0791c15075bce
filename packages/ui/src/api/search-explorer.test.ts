import type { Ledger } from '@episodic/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { startUiServer } from '../server/start-ui-server.js';
import { searchPage } from './search-explorer.js';

let home: UiHome;
const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> kestrel';
let hostileEventId: string;

beforeAll(async () => {
  home = await createUiHome();
  const ledger = home.stores.ledger;
  for (let index = 0; index < 5; index++) {
    await ledger.append({
      scope: 'proj',
      session_id: 's-3',
      agent_id: index % 2 === 0 ? 'planner' : 'worker',
      type: index === 4 ? 'ops.decision' : 'conversation.user',
      summary: `kestrel sighting ${index}`,
      ts_ms: 1_767_225_800_000 + index * 1000,
      payload: { note: 'a falcon' },
    });
  }
  hostileEventId = (
    await ledger.append({
      scope: 'proj',
      session_id: 's-4',
      agent_id: 'worker',
      type: 'tool.result',
      summary: HOSTILE,
      ts_ms: 1_767_225_900_000,
    })
  ).event.event_id;
  await ledger.append({
    scope: 'other',
    session_id: 's-9',
    agent_id: 'x',
    type: 'ops.decision',
    summary: 'kestrel in another scope',
  });
});
afterAll(() => home.close());

describe('GET /api/search', () => {
  it('finds within one scope only, best first, with the matches marked in the snippet', async () => {
    await expect(searchPage(home.stores.ledger, { q: 'kestrel' })).rejects.toMatchObject({
      code: 'SCOPE_REQUIRED',
    });
    const page = await searchPage(home.stores.ledger, { q: 'kestrel', scope: 'proj' });
    expect(page.scope).toBe('proj');
    expect(page.hits).toHaveLength(6);
    expect(new Set(page.hits.map((hit) => hit.session_id))).toEqual(new Set(['s-3', 's-4']));
    for (const hit of page.hits) expect(hit.snippet).toContain('«kestrel»');
    const all = await searchPage(home.stores.ledger, { q: 'kestrel', global: '1' });
    expect(all.scope).toBeNull();
    expect(all.hits).toHaveLength(7);
    // The redacted event's words are not in the index.
    const secret = await searchPage(home.stores.ledger, { q: 'private', scope: 'proj' });
    expect(secret.hits).toEqual([]);
  });

  it('filters by type, session, agent and time, and pages with the cursor', async () => {
    const filtered = await searchPage(home.stores.ledger, {
      q: 'kestrel',
      scope: 'proj',
      type: 'conversation.user,ops.decision',
      session: 's-3',
      agent: 'planner',
      from: new Date(1_767_225_801_000).toISOString(),
    });
    expect(filtered.hits.map((hit) => /sighting (\d)/.exec(hit.snippet)?.[1]).sort()).toEqual([
      '2',
      '4',
    ]);
    expect(filtered.hits).toHaveLength(2);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await searchPage(home.stores.ledger, {
        q: 'kestrel',
        scope: 'proj',
        limit: '4',
        ...(cursor === null ? {} : { cursor }),
      });
      seen.push(...page.hits.map((hit) => hit.event_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('names the bad parameter: no words, an unknown type, a damaged cursor, an unknown field', async () => {
    await expect(searchPage(home.stores.ledger, { q: '  ', scope: 'proj' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('q'),
    });
    await expect(
      searchPage(home.stores.ledger, { q: 'kestrel', scope: 'proj', type: 'nope' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('type') });
    await expect(
      searchPage(home.stores.ledger, { q: 'kestrel', scope: 'proj', cursor: 'garbage' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('cursor'),
    });
    await expect(
      searchPage(home.stores.ledger, { q: 'kestrel', scope: 'proj', sort: 'x' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('treats hostile text in the query and in events as words, and returns them as text', async () => {
    const page = await searchPage(home.stores.ledger, {
      q: '<script>alert(1)</script> "onerror=alert" src:x* kestrel',
      scope: 'proj',
    });
    expect(page.query).toBe('<script>alert(1)</script> "onerror=alert" src:x* kestrel');
    expect(page.hits.map((hit) => hit.event_id)).toEqual([hostileEventId]);
    // The snippet is the stored text with marks; the browser renders it as text (see the e2e test).
    expect(page.hits[0]?.snippet).toContain('</script»>');
    expect(page.hits[0]?.snippet).toContain('«kestrel»');
  });

  it('a ledger without a search index answers 501 UNSUPPORTED with a clear message, and the overview says so', async () => {
    const ledger = home.stores.ledger;
    const noSearch: Ledger = Object.create(ledger, {
      capabilities: { value: { ...ledger.capabilities, search: false } },
    });
    await expect(searchPage(noSearch, { q: 'kestrel', scope: 'proj' })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringContaining('Ledger page'),
    });
    const ui = await startUiServer({ stores: { ...home.stores, ledger: noSearch }, port: 0 });
    try {
      const headers = { authorization: `Bearer ${ui.token}` };
      const response = await fetch(`${ui.origin}/api/search?q=kestrel&scope=proj`, {
        headers,
      });
      expect(response.status).toBe(501);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('UNSUPPORTED');
      expect(body.error.message).toContain('keeps no search index');
      const overview = await fetch(`${ui.origin}/api/overview`, { headers });
      expect(((await overview.json()) as { search: boolean }).search).toBe(false);
    } finally {
      await ui.close();
    }
  });
});
