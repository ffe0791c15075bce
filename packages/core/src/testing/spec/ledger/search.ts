// Ledger.search: full-text search over summaries, payload text and refs, within the scope and
// filters, ranked, with snippets and cursors; redaction and GC take words out of the index.
import { expect, it, type TestContext } from 'vitest';
import type { SearchHit } from '../../../search/search-query.js';
import { searchTextOfLedgerRow, searchTokens } from '../../../search/search-text.js';
import type { Ledger, LedgerSearchInput } from '../../../store/ledger-store.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';
import { DAY, eventOf, T0 } from './fixtures.js';

/** Every hit of a search, page by page (`limit` per page). */
async function allHits(ledger: Ledger, query: LedgerSearchInput, limit = 2): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await ledger.search({
      ...query,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    hits.push(...result.hits);
    if (result.nextCursor === null) return hits;
    cursor = result.nextCursor;
  }
  throw new Error('search paging did not end');
}

const idsOf = (hits: readonly SearchHit[]) => hits.map((hit) => hit.event_id);

/** Filler events: keep the searched words rare, as they are in a real ledger (BM25's IDF). */
async function filler(ledger: Ledger, count: number, scope = 'project-a'): Promise<void> {
  await ledger.appendBatch(
    Array.from({ length: count }, (_, index) =>
      eventOf({
        event_id: `fill-${scope}-${index}`,
        scope,
        ts_ms: T0 + 1000 + index,
        summary: `routine heartbeat ${index}`,
        payload: { status: 'ok' },
        refs: null,
      }),
    ),
  );
}

/** Registers the tests of `Ledger.search` (each skipped when the ledger keeps no search index). */
export function ledgerSearchTests({ open }: ContractGroup<'ledger'>): void {
  const openSearchable = async (context: TestContext) => {
    const opened = await open(context);
    if (opened.store.capabilities.search !== true) {
      await expectEpisodicError(
        opened.store.search({ scope: 'project-a', text: 'anything' }),
        'UNSUPPORTED',
      );
      context.skip('the ledger does not declare capabilities.search');
    }
    return opened;
  };

  it('search: finds words in summaries, payload text and refs; phrases in order; case and accents folded', async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 8);
    await ledger.append(eventOf({ event_id: 's1', summary: 'Deployed the Billing service' }));
    await ledger.append(
      eventOf({
        event_id: 's2',
        ts_ms: T0 + 1,
        summary: 'noted',
        payload: { note: ['café latte for billing'] },
      }),
    );
    await ledger.append(
      eventOf({
        event_id: 's3',
        ts_ms: T0 + 2,
        summary: 'linked',
        refs: { record_ref: 'ticket-4711' },
      }),
    );
    await ledger.append(
      eventOf({
        event_id: 's4',
        ts_ms: T0 + 3,
        summary: 'service billing reversed',
        payload: { keyword: 1 },
      }),
    );
    const find = async (text: string) =>
      idsOf((await ledger.search({ scope: 'project-a', text })).hits).sort();
    expect(await find('billing')).toEqual(['s1', 's2', 's4']);
    expect(await find('BILLING deployed')).toEqual(['s1']);
    expect(await find('"billing service"')).toEqual(['s1']);
    expect(await find('"service billing"')).toEqual(['s4']);
    expect(await find('cafe')).toEqual(['s2']);
    expect(await find('CAFÉ')).toEqual(['s2']);
    expect(await find('4711')).toEqual(['s3']);
    expect(await find('ticket-4711')).toEqual(['s3']);
    // Object keys and numbers are not text a person wrote.
    expect(await find('keyword')).toEqual([]);
    expect(await find('note')).toEqual([]);
    expect(await find('nothing-like-this')).toEqual([]);
  });

  it('search: ranks by relevance (higher score first), ties in insertion order; snippets mark the words', async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 12);
    await ledger.append(
      eventOf({
        event_id: 'once',
        summary: 'outage reported by the pager at night',
        payload: null,
        refs: null,
      }),
    );
    await ledger.append(
      eventOf({
        event_id: 'thrice',
        ts_ms: T0 + 1,
        summary: 'outage outage outage',
        payload: null,
        refs: null,
      }),
    );
    await ledger.append(
      eventOf({ event_id: 'tie-a', ts_ms: T0 + 2, summary: 'a deploy', payload: null, refs: null }),
    );
    await ledger.append(
      eventOf({ event_id: 'tie-b', ts_ms: T0 + 3, summary: 'a deploy', payload: null, refs: null }),
    );
    const outage = (await ledger.search({ scope: 'project-a', text: 'outage' })).hits;
    expect(idsOf(outage)).toEqual(['thrice', 'once']);
    expect(outage[0]?.score).toBeGreaterThan(outage[1]?.score as number);
    expect(outage[1]?.snippet).toContain('«outage»');
    expect(outage[0]?.snippet).toBe('«outage» «outage» «outage»');
    const hit = outage[1] as SearchHit;
    expect(hit).toMatchObject({
      event_id: 'once',
      session_id: 'session-1',
      agent_id: 'planner',
      type: 'conversation.user',
      ts_ms: T0,
    });
    expect(Object.keys(hit).sort()).toEqual(
      ['agent_id', 'event_id', 'score', 'session_id', 'snippet', 'ts_ms', 'type'].sort(),
    );
    const ties = (await ledger.search({ scope: 'project-a', text: 'deploy' })).hits;
    expect(idsOf(ties)).toEqual(['tie-a', 'tie-b']);
    expect(ties[0]?.score).toBe(ties[1]?.score);
    const phrase = (await ledger.search({ scope: 'project-a', text: '"the pager"' })).hits;
    expect(phrase[0]?.snippet).toContain('«the pager»');
  });

  it('search: each filter (session, agent, type, time, metadata, policy) applies', async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 6);
    await ledger.append(
      eventOf({ event_id: 'f1', summary: 'quota warning', metadata: { team: 'red' } }),
    );
    await ledger.append(
      eventOf({
        event_id: 'f2',
        ts_ms: T0 + DAY,
        summary: 'quota warning',
        session_id: 'session-2',
        agent_id: 'critic',
        metadata: { team: 'blue' },
      }),
    );
    await ledger.append(
      eventOf({ event_id: 'f3', ts_ms: T0 + 2 * DAY, summary: 'quota warning', type: 'tool.call' }),
    );
    const find = async (filters: Partial<LedgerSearchInput>) =>
      idsOf(await allHits(ledger, { scope: 'project-a', text: 'quota', ...filters }, 1)).sort();
    expect(await find({})).toEqual(['f1', 'f2', 'f3']);
    expect(await find({ sessionId: 'session-2' })).toEqual(['f2']);
    expect(await find({ agentId: 'critic' })).toEqual(['f2']);
    expect(await find({ agentId: 'planner' })).toEqual(['f1', 'f3']);
    expect(await find({ types: ['tool.call'] })).toEqual(['f3']);
    expect(await find({ types: ['tool.call', 'conversation.user'] })).toEqual(['f1', 'f2', 'f3']);
    expect(await find({ fromTsMs: T0 + DAY })).toEqual(['f2', 'f3']);
    expect(await find({ toTsMs: T0 + DAY })).toEqual(['f1', 'f2']);
    expect(await find({ fromTsMs: T0 + DAY, toTsMs: T0 + DAY })).toEqual(['f2']);
    expect(
      await find({
        metadata: {
          type: 'and',
          filters: [{ property_name: 'team', comparison_operator: '=', property_value: 'blue' }],
        },
      }),
    ).toEqual(['f2']);
    expect(
      await find({
        policy: { required: { team: 'red' } },
      }),
    ).toEqual(['f1']);
  });

  it('search: pages with a cursor, no hit twice and none left out; bad input is a VALIDATION_ERROR', async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 10);
    await ledger.appendBatch(
      Array.from({ length: 7 }, (_, index) =>
        eventOf({
          event_id: `p${index}`,
          ts_ms: T0 + index,
          summary: `${'incident '.repeat(1 + (index % 3))}note ${index}`,
          payload: null,
          refs: null,
        }),
      ),
    );
    const whole = (await ledger.search({ scope: 'project-a', text: 'incident', limit: 100 })).hits;
    expect(whole).toHaveLength(7);
    for (const limit of [1, 2, 3, 7]) {
      const paged = await allHits(ledger, { scope: 'project-a', text: 'incident' }, limit);
      expect(idsOf(paged)).toEqual(idsOf(whole));
    }
    const first = await ledger.search({ scope: 'project-a', text: 'incident', limit: 7 });
    expect(first.nextCursor).toBeNull();
    const scores = whole.map((hit) => hit.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: 'incident', cursor: 'nope' }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(ledger.search({ scope: 'project-a', text: '' }), 'VALIDATION_ERROR');
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: '   ' }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: '*** "" ^' }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: 'x'.repeat(501) }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: 'a', limit: 0 }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: 'a', limit: 101 }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: 'a', fromTsMs: 2, toTsMs: 1 }),
      'VALIDATION_ERROR',
    );
    await expectEpisodicError(ledger.search({ text: 'incident' } as never), 'SCOPE_REQUIRED');
    await expectEpisodicError(
      ledger.search({ scope: 'project-a', text: 'a', extra: 1 } as never),
      'VALIDATION_ERROR',
    );
  });

  it("search: another scope's events are never found, nor change what a scope's pages hold", async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 6);
    await ledger.append(eventOf({ event_id: 'a1', summary: 'shared secretword here' }));
    await ledger.append(eventOf({ event_id: 'a2', ts_ms: T0 + 1, summary: 'secretword again' }));
    const before = idsOf(await allHits(ledger, { scope: 'project-a', text: 'secretword' }, 1));
    await ledger.appendBatch(
      Array.from({ length: 5 }, (_, index) =>
        eventOf({
          event_id: `b${index}`,
          scope: 'project-b',
          ts_ms: T0 + index,
          summary: `secretword ${'secretword '.repeat(index)}`,
        }),
      ),
    );
    const after = await allHits(ledger, { scope: 'project-a', text: 'secretword' }, 1);
    expect(idsOf(after).sort()).toEqual([...before].sort());
    expect(idsOf(after).sort()).toEqual(['a1', 'a2']);
    const b = idsOf(await allHits(ledger, { scope: 'project-b', text: 'secretword' }, 2));
    expect(b.sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    const everywhere = idsOf(await allHits(ledger, { global: true, text: 'secretword' }, 3));
    expect(everywhere).toHaveLength(7);
    // A cursor of another scope's search moves nothing into this scope.
    const other = await ledger.search({ scope: 'project-b', text: 'secretword', limit: 1 });
    const page = await ledger.search({
      scope: 'project-a',
      text: 'secretword',
      cursor: other.nextCursor as string,
    });
    expect(idsOf(page.hits).every((id) => id.startsWith('a'))).toBe(true);
  });

  it("search: a redacted event's words are gone from the index (one event, a session)", async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 4);
    await ledger.append(
      eventOf({
        event_id: 'x1',
        summary: 'token zebrakey1',
        payload: { secret: 'zebrapayload' },
        refs: { ref: 'zebraref' },
      }),
    );
    await ledger.append(
      eventOf({
        event_id: 'x2',
        ts_ms: T0 + 1,
        session_id: 'session-9',
        summary: 'token quaggakey',
      }),
    );
    await ledger.append(
      eventOf({
        event_id: 'x3',
        ts_ms: T0 + 2,
        session_id: 'session-9',
        summary: 'quaggakey twice',
      }),
    );
    // Searched before the redaction, so an index kept lazily has the words already.
    for (const word of ['zebrakey1', 'zebrapayload', 'zebraref', 'quaggakey']) {
      expect((await ledger.search({ scope: 'project-a', text: word })).hits.length).toBeGreaterThan(
        0,
      );
    }
    await ledger.redact({ scope: 'project-a', eventId: 'x1' });
    await ledger.redact({ scope: 'project-a', sessionId: 'session-9' }, { replacement: 'null' });
    for (const word of ['zebrakey1', 'zebrapayload', 'zebraref', 'quaggakey']) {
      expect((await ledger.search({ global: true, text: word })).hits).toEqual([]);
    }
    const redacted = idsOf(await allHits(ledger, { scope: 'project-a', text: 'REDACTED' }, 5));
    expect(redacted.sort()).toEqual(['x1', 'x2', 'x3']);
    // Still found by the words redaction kept elsewhere.
    expect(idsOf((await ledger.search({ scope: 'project-a', text: 'token' })).hits)).toEqual([]);
  });

  it('search: GC takes collected events out of the index', async (context) => {
    const { store: ledger } = await openSearchable(context);
    await ledger.append(
      eventOf({ event_id: 'old', type: 'tool.call', ts_ms: T0, summary: 'ancient walrusword' }),
    );
    await ledger.append(
      eventOf({
        event_id: 'new',
        type: 'tool.call',
        ts_ms: T0 + 40 * DAY,
        summary: 'recent walrusword',
      }),
    );
    expect((await ledger.search({ scope: 'project-a', text: 'walrusword' })).hits).toHaveLength(2);
    const receipt = await ledger.gc({
      scope: 'project-a',
      nowMs: T0 + 41 * DAY,
      policy: { 'tool.call': 30 },
    });
    expect(receipt.deleted_total).toBe(1);
    expect(idsOf((await ledger.search({ scope: 'project-a', text: 'walrusword' })).hits)).toEqual([
      'new',
    ]);
    expect((await ledger.search({ scope: 'project-a', text: 'ancient' })).hits).toEqual([]);
    // Events appended after a GC are found (the index follows new rows, whatever GC removed).
    await ledger.append(
      eventOf({
        event_id: 'later',
        type: 'tool.call',
        ts_ms: T0 + 41 * DAY,
        summary: 'walrusword later',
      }),
    );
    expect(idsOf(await allHits(ledger, { scope: 'project-a', text: 'walrusword' })).sort()).toEqual(
      ['later', 'new'],
    );
  });

  it('search: an index dropped and rebuilt from the record gives the same answers', async (context) => {
    const { harness, store: ledger } = await openSearchable(context);
    if (harness.rebuildSearchIndex === undefined) {
      context.skip('the harness has no rebuildSearchIndex (no index to drop)');
    }
    await filler(ledger, 5);
    await ledger.appendBatch(
      ['alpha beta', 'beta gamma', 'gamma alpha alpha', 'delta'].map((summary, index) =>
        eventOf({ event_id: `r${index}`, ts_ms: T0 + index, summary }),
      ),
    );
    await ledger.search({ scope: 'project-a', text: 'alpha' });
    await ledger.redact({ scope: 'project-a', eventId: 'r1' });
    const queries = ['alpha', 'beta', 'gamma', '"gamma alpha"', 'REDACTED', 'heartbeat'];
    const before = await Promise.all(
      queries.map((text) => allHits(ledger, { scope: 'project-a', text }, 2)),
    );
    await harness.rebuildSearchIndex?.();
    const after = await Promise.all(
      queries.map((text) => allHits(ledger, { scope: 'project-a', text }, 2)),
    );
    expect(after).toEqual(before);
  });

  it('search: hostile text is words, never engine syntax, and finds only events holding every word', async (context) => {
    const { store: ledger } = await openSearchable(context);
    await filler(ledger, 4);
    const summaries = [
      'col: value AND other',
      'NEAR near(a b) prefix* ^caret',
      'quote " inside \' and - minus',
      'or NOT plain words',
      'unicode ünïcödé 東京 emoji 🎉 mark',
    ];
    await ledger.appendBatch(
      summaries.map((summary, index) =>
        eventOf({ event_id: `h${index}`, ts_ms: T0 + index, summary, payload: null, refs: null }),
      ),
    );
    const hostile = [
      'col:value',
      'summary:col',
      'NEAR(a b)',
      'near(a, b, 3)',
      'prefix*',
      '*',
      '^caret',
      'AND',
      'OR',
      'NOT',
      'a OR b',
      'NOT plain',
      '"unbalanced',
      'quote"',
      '"" ""',
      '(col',
      ')',
      '{col}',
      '-minus',
      '+plain',
      "'",
      '\\',
      '%',
      '_',
      'ünïcödé',
      'UNICODE',
      '東京',
      '🎉 mark',
      'x NEAR/3 y',
      'col : value',
      '"and other"',
      '"other and"',
      'MATCH',
      "'; DROP TABLE x; --",
      '\u0000null',
      'a\u200bb',
    ];
    for (const text of hostile) {
      let hits: readonly SearchHit[];
      try {
        hits = (await ledger.search({ scope: 'project-a', text })).hits;
      } catch (error) {
        // Text with no word is refused as input; never an engine error.
        expect((error as { code?: string }).code, text).toBe('VALIDATION_ERROR');
        continue;
      }
      const words = searchTokens(text);
      for (const hit of hits) {
        const index = Number(hit.event_id.slice(1));
        const summary = hit.event_id.startsWith('h') ? summaries[index] : undefined;
        const tokens = new Set(searchTokens(searchTextOfLedgerRow({ summary: summary ?? '' })));
        for (const word of words)
          expect(tokens.has(word), `${text} found ${hit.event_id}`).toBe(true);
      }
    }
    // Operators are words: each finds the event that holds it.
    expect(idsOf((await ledger.search({ scope: 'project-a', text: 'NOT' })).hits)).toEqual(['h3']);
    expect(idsOf((await ledger.search({ scope: 'project-a', text: 'near' })).hits)).toEqual(['h1']);
    expect(idsOf((await ledger.search({ scope: 'project-a', text: 'col:value' })).hits)).toEqual([
      'h0',
    ]);
  });
}
