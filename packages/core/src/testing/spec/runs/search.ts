// RunStore.search: full-text search over run records (messages, tool calls and outputs, task
// steps and completions, errors), filtered, ranked, with snippets and cursors; redaction and
// deletion take words out of the index (stores declaring `search`).
import { expect, it, type TestContext } from 'vitest';
import type { RunRecord } from '../../../schema/run-record.js';
import { searchTextOfRunRecord, searchTokens } from '../../../search/index.js';
import type { RunSearchHit, RunSearchQuery } from '../../../search/run-search-query.js';
import type { RunStore } from '../../../store/run-store.js';
import { scopeRunStore } from '../../../store/scoped-run-store.js';
import { headerFor, runIdFor, SESSION_A, SESSION_B } from '../../run-fixtures.js';
import { expectEpisodicError } from '../../suite-helpers.js';
import type { ContractGroup } from '../contract-group.js';

/** Every hit of a search, page by page (`limit` per page). */
async function allHits(store: RunStore, query: RunSearchQuery, limit = 2): Promise<RunSearchHit[]> {
  const hits: RunSearchHit[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await store.search({
      ...query,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    hits.push(...result.hits);
    if (result.nextCursor === null) return hits;
    cursor = result.nextCursor;
  }
  throw new Error('run search paging did not end');
}

/** `run_id#position` of each hit, the record a hit names. */
const placesOf = (hits: readonly RunSearchHit[]) =>
  hits.map((hit) => `${hit.run_id.slice(-3)}#${hit.position}`);

const TS = '2026-02-03T12:01:00.000Z';

/** A run of routine records: keeps the searched words rare, as in a real store (BM25's IDF). */
function fillerRun(runId: string, count: number): RunRecord[] {
  return [
    headerFor(runId),
    ...Array.from(
      { length: count },
      (_, seq): RunRecord => ({
        type: 'agent.event',
        run_id: runId,
        ts: TS,
        seq,
        event: { type: 'text', content: `routine heartbeat ${seq}` },
      }),
    ),
  ];
}

/** A record of `type` with text `text` in the field that type indexes. */
function textRecord(runId: string, text: string, ts = TS): RunRecord {
  return {
    type: 'agent.event',
    run_id: runId,
    ts,
    seq: 1,
    event: { type: 'final', text },
  };
}

/** Registers the tests of `RunStore.search` (each skipped when the store keeps no index). */
export function runSearchTests({ open }: ContractGroup<'runs'>): void {
  const openSearchable = async (context: TestContext) => {
    const opened = await open(context);
    if (opened.store.capabilities.search !== true) {
      await expectEpisodicError(opened.store.search({ text: 'anything' }), 'UNSUPPORTED');
      context.skip('the run store does not declare capabilities.search');
    }
    return opened;
  };

  it('runs search: finds message, tool, task and error text; phrases in order; case and accents folded; ids, keys and numbers are not words', async (context) => {
    const { store } = await openSearchable(context);
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 8));
    const run = runIdFor(2);
    await store.append(run, [
      { ...headerFor(run), prompts: { system: 'headerprompt stays out' } },
      {
        type: 'run.start',
        run_id: run,
        ts: TS,
        input: { type: 'text', text: 'Deploy the Billing service' },
        task: {
          task_type: 'deployment',
          context: { repo: 'café-latte' },
          metadata: { m: 'metaword' },
        },
      },
      {
        type: 'llm.request',
        run_id: run,
        ts: TS,
        seq: 0,
        input: { messages: [{ role: 'user', content: 'requestonlyword' }] },
      },
      {
        type: 'llm.response',
        run_id: run,
        ts: TS,
        seq: 0,
        output: {
          messages: [
            {
              role: 'assistant',
              content: [{ type: 'text', text: 'I will grep the logs' }],
              tool_calls: [
                {
                  id: 'call_idword',
                  type: 'function',
                  function: {
                    name: 'shell_exec',
                    arguments: '{"command":"grep walrus /var/log","timeout":4711}',
                  },
                },
              ],
            },
          ],
          usage: null,
          stop_reason: 'toolstopword',
        },
      },
      {
        type: 'tool.output',
        run_id: run,
        ts: TS,
        tool: 'shell_exec',
        tool_call_id: 'call_idword',
        result_raw: 'walrus sighted in billing.log',
      },
      {
        type: 'agent.event',
        run_id: run,
        ts: TS,
        seq: 1,
        event: {
          type: 'task_step',
          step_number: 1,
          tool: 'kubectl',
          action: 'rolled out canary',
          parameters: { namespace: 'prod-zebra' },
          result: { success: true, output: 'canary healthy' },
        },
      },
      {
        type: 'agent.event',
        run_id: run,
        ts: TS,
        seq: 2,
        event: {
          type: 'task_completed',
          outcome: 'success',
          reflection: { summary: 'lessons flamingo' },
        },
      },
      { type: 'run.status', run_id: run, ts: TS, status: 'error', message: 'quota exhausted' },
      {
        type: 'run.error',
        run_id: run,
        ts: TS,
        error: { name: 'TimeoutError', message: 'upstream stalled', stack: 'at stackonlyword' },
      },
      { type: 'run.end', run_id: run, ts: TS, outcome: 'error', final: 'gave up politely' },
      { type: 'x.acme.note', run_id: run, ts: TS, note: 'custom pelican', note_id: 'noteidword' },
    ]);
    const find = async (text: string) =>
      placesOf((await store.search({ text, limit: 100 })).hits).sort();
    const at = (position: number) => `${run.slice(-3)}#${position}`;
    expect(await find('billing')).toEqual([at(2), at(5)].sort());
    expect(await find('BILLING deploy')).toEqual([at(2)]);
    expect(await find('"billing service"')).toEqual([at(2)]);
    expect(await find('"service billing"')).toEqual([]);
    expect(await find('cafe')).toEqual([at(2)]);
    expect(await find('CAFÉ latte')).toEqual([at(2)]);
    expect(await find('grep')).toEqual([at(4)]);
    expect(await find('walrus')).toEqual([at(4), at(5)].sort());
    expect(await find('shell_exec')).toEqual([at(4), at(5)].sort());
    expect(await find('"prod zebra"')).toEqual([at(6)]);
    expect(await find('kubectl canary')).toEqual([at(6)]);
    expect(await find('flamingo')).toEqual([at(7)]);
    expect(await find('quota')).toEqual([at(8)]);
    expect(await find('TimeoutError stalled')).toEqual([at(9)]);
    expect(await find('politely')).toEqual([at(10)]);
    expect(await find('pelican')).toEqual([at(11)]);
    // Left out: the header, requests, stacks, metadata, ids, numbers, keys and stop reasons.
    for (const word of [
      'headerprompt',
      'requestonlyword',
      'stackonlyword',
      'metaword',
      'idword',
      'call_idword',
      'noteidword',
      '4711',
      'command',
      'timeout',
      'toolstopword',
      'task_step',
      run.slice(0, 8),
    ]) {
      expect(await find(word), word).toEqual([]);
    }
  });

  it('runs search: ranks by relevance, ties by run id then position; hits name the record; snippets mark the words', async (context) => {
    const { store } = await openSearchable(context);
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 12));
    const a = runIdFor(3);
    const b = runIdFor(4);
    await store.append(a, [
      headerFor(a),
      textRecord(a, 'outage reported by the pager at night', '2026-02-03T12:02:00.000Z'),
      textRecord(a, 'a deploy'),
    ]);
    await store.append(b, [
      headerFor(b),
      textRecord(b, 'outage outage outage'),
      textRecord(b, 'a deploy'),
    ]);
    const outage = (await store.search({ text: 'outage' })).hits;
    expect(placesOf(outage)).toEqual(['004#2', '003#2']);
    expect(outage[0]?.score).toBeGreaterThan(outage[1]?.score as number);
    expect(outage[0]?.snippet).toBe('«outage» «outage» «outage»');
    expect(outage[1]?.snippet).toContain('«outage»');
    expect(outage[1]).toMatchObject({
      run_id: a,
      position: 2,
      type: 'agent.event',
      ts: '2026-02-03T12:02:00.000Z',
    });
    expect(Object.keys(outage[1] as object).sort()).toEqual(
      ['position', 'run_id', 'score', 'snippet', 'ts', 'type'].sort(),
    );
    // The position reads the record back.
    const again = await store.readAfter(a, (outage[1]?.position as number) - 1);
    expect(searchTextOfRunRecord(again.records[0])).toContain('outage');
    const ties = (await store.search({ text: 'deploy' })).hits;
    expect(placesOf(ties)).toEqual(['003#3', '004#3']);
    expect(ties[0]?.score).toBe(ties[1]?.score);
    const phrase = (await store.search({ text: '"the pager"' })).hits;
    expect(phrase[0]?.snippet).toContain('«the pager»');
  });

  it('runs search: each filter (run, type, time, header scope, header session) applies, and a scoped store sees its scope only', async (context) => {
    const { store } = await openSearchable(context);
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 6));
    const red = runIdFor(5);
    const blue = runIdFor(6);
    const plain = runIdFor(7);
    await store.append(red, [
      { ...headerFor(red, { sessionId: SESSION_B }), scope: 'team-red' },
      textRecord(red, 'quota warning', '2026-02-03T12:00:00.000Z'),
      {
        type: 'tool.output',
        run_id: red,
        ts: '2026-02-04T12:00:00.000Z',
        tool: 'df',
        tool_call_id: 'c1',
        result_raw: 'quota warning',
      },
    ]);
    await store.append(blue, [
      { ...headerFor(blue), scope: 'team-blue' },
      textRecord(blue, 'quota warning', '2026-02-05T12:00:00.000Z'),
    ]);
    await store.append(plain, [
      headerFor(plain),
      textRecord(plain, 'quota warning', '2026-02-06T12:00:00.000Z'),
    ]);
    const find = async (filters: Partial<RunSearchQuery>) =>
      placesOf(await allHits(store, { text: 'quota', ...filters }, 1)).sort();
    expect(await find({})).toEqual(['005#2', '005#3', '006#2', '007#2']);
    expect(await find({ runId: red.toUpperCase() })).toEqual(['005#2', '005#3']);
    expect(await find({ types: ['tool.output'] })).toEqual(['005#3']);
    expect(await find({ types: ['tool.output', 'agent.event', 'tool.output'] })).toEqual([
      '005#2',
      '005#3',
      '006#2',
      '007#2',
    ]);
    expect(await find({ from: '2026-02-04T12:00:00.000Z' })).toEqual(['005#3', '006#2', '007#2']);
    expect(await find({ to: '2026-02-05T12:00:00Z' })).toEqual(['005#2', '005#3', '006#2']);
    expect(
      await find({ from: '2026-02-05T12:00:00.000Z', to: '2026-02-05T12:00:00.000Z' }),
    ).toEqual(['006#2']);
    expect(
      await find({ from: '2026-02-05T13:00:00+01:00', to: '2026-02-05T13:00:00+01:00' }),
    ).toEqual(['006#2']);
    expect(await find({ scope: 'team-red' })).toEqual(['005#2', '005#3']);
    expect(await find({ scope: 'default' })).toEqual(['007#2']);
    expect(await find({ sessionId: SESSION_B.toUpperCase() })).toEqual(['005#2', '005#3']);
    expect(await find({ sessionId: SESSION_A, scope: 'team-blue' })).toEqual(['006#2']);
    expect(await find({ runId: blue, scope: 'team-red' })).toEqual([]);
    // A store bound to a scope finds its scope's runs only, whatever scope the query names.
    const scoped = scopeRunStore(store, { scope: 'team-blue' });
    expect(placesOf(await allHits(scoped, { text: 'quota' }, 1))).toEqual(['006#2']);
    expect(placesOf(await allHits(scoped, { text: 'quota', scope: 'team-red' }, 1))).toEqual([
      '006#2',
    ]);
    // With an access predicate, hidden runs are never found and pages stay full.
    const hidden = scopeRunStore(store, { scope: 'team-red', visible: () => false });
    expect((await hidden.search({ text: 'quota' })).hits).toEqual([]);
  });

  it('runs search: pages with a cursor, no hit twice and none left out; bad input is a VALIDATION_ERROR', async (context) => {
    const { store } = await openSearchable(context);
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 10));
    for (const index of [8, 9]) {
      const run = runIdFor(index);
      await store.append(run, [
        headerFor(run),
        ...Array.from({ length: 4 }, (_, seq) =>
          textRecord(run, `${'incident '.repeat(1 + (seq % 3))}note ${seq}`),
        ),
      ]);
    }
    const whole = (await store.search({ text: 'incident', limit: 100 })).hits;
    expect(whole).toHaveLength(8);
    for (const limit of [1, 2, 3, 8]) {
      expect(placesOf(await allHits(store, { text: 'incident' }, limit))).toEqual(placesOf(whole));
    }
    expect((await store.search({ text: 'incident', limit: 8 })).nextCursor).toBeNull();
    const scores = whole.map((hit) => hit.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);

    for (const bad of [
      { text: 'incident', cursor: 'nope' },
      { text: 'incident', cursor: 's1.WzEsMl0=' },
      { text: '' },
      { text: '   ' },
      { text: '*** "" ^' },
      { text: 'x'.repeat(501) },
      { text: 'a', limit: 0 },
      { text: 'a', limit: 101 },
      { text: 'a', runId: 'not-a-run' },
      { text: 'a', types: [] },
      { text: 'a', from: 'yesterday' },
      { text: 'a', from: '2026-02-05T00:00:00Z', to: '2026-02-04T00:00:00Z' },
      { text: 'a', extra: 1 },
    ]) {
      await expectEpisodicError(store.search(bad as RunSearchQuery), 'VALIDATION_ERROR');
    }
  });

  it("runs search: a redacted run's words are gone from the index", async (context) => {
    const { store } = await openSearchable(context);
    if (store.capabilities.redaction !== true) context.skip('the store cannot redact runs');
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 4));
    const run = runIdFor(10);
    await store.append(run, [
      headerFor(run),
      textRecord(run, 'token zebrakey1'),
      {
        type: 'tool.output',
        run_id: run,
        ts: TS,
        tool: 'cat',
        tool_call_id: 'c',
        result_raw: 'quaggaoutput here',
      },
    ]);
    // Searched first, so an index kept lazily holds the words already.
    for (const word of ['zebrakey1', 'quaggaoutput']) {
      expect((await store.search({ text: word })).hits.length).toBeGreaterThan(0);
    }
    await store.redact(run, { mode: 'content' });
    for (const word of ['zebrakey1', 'quaggaoutput', 'token']) {
      expect((await store.search({ text: word })).hits, word).toEqual([]);
    }
    expect(placesOf(await allHits(store, { text: 'REDACTED' }, 5)).sort()).toEqual([
      '00a#2',
      '00a#3',
    ]);
  });

  it('runs search: a deleted run (retention) leaves the index; runs appended later are found', async (context) => {
    const { store } = await openSearchable(context);
    const old = runIdFor(11);
    const kept = runIdFor(12);
    await store.append(old, [headerFor(old), textRecord(old, 'ancient walrusword')]);
    await store.append(kept, [headerFor(kept), textRecord(kept, 'recent walrusword')]);
    expect((await store.search({ text: 'walrusword' })).hits).toHaveLength(2);
    expect(await store.delete(old)).toBe(true);
    expect(placesOf((await store.search({ text: 'walrusword' })).hits)).toEqual(['00c#2']);
    expect((await store.search({ text: 'ancient' })).hits).toEqual([]);
    const later = runIdFor(13);
    await store.append(later, [headerFor(later), textRecord(later, 'walrusword later')]);
    // The deleted run's id again, with other words: only the new words are found.
    await store.append(old, [headerFor(old), textRecord(old, 'reborn walrusword')]);
    expect(placesOf(await allHits(store, { text: 'walrusword' })).sort()).toEqual([
      '00b#2',
      '00c#2',
      '00d#2',
    ]);
    expect((await store.search({ text: 'ancient' })).hits).toEqual([]);
    expect(placesOf((await store.search({ text: 'reborn' })).hits)).toEqual(['00b#2']);
  });

  it('runs search: an index dropped and rebuilt from the record gives the same answers', async (context) => {
    const { harness, store } = await openSearchable(context);
    if (harness.rebuildRunSearchIndex === undefined) {
      context.skip('the harness has no rebuildRunSearchIndex (no index to drop)');
    }
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 5));
    const run = runIdFor(14);
    await store.append(run, [
      headerFor(run),
      ...['alpha beta', 'beta gamma', 'gamma alpha alpha', 'delta'].map((text) =>
        textRecord(run, text),
      ),
    ]);
    await store.search({ text: 'alpha' });
    if (store.capabilities.redaction === true) await store.redact(run, { mode: 'content' });
    await store.append(run, [textRecord(run, 'alpha after redaction')]);
    const queries = ['alpha', 'beta', 'gamma', '"gamma alpha"', 'REDACTED', 'heartbeat'];
    const before = await Promise.all(queries.map((text) => allHits(store, { text }, 2)));
    await harness.rebuildRunSearchIndex?.();
    const after = await Promise.all(queries.map((text) => allHits(store, { text }, 2)));
    expect(after).toEqual(before);
  });

  it('runs search: hostile text is words, never engine syntax, and finds only records holding every word', async (context) => {
    const { store } = await openSearchable(context);
    await store.append(runIdFor(1), fillerRun(runIdFor(1), 4));
    const run = runIdFor(15);
    const texts = [
      'col: value AND other',
      'NEAR near(a b) prefix* ^caret',
      'quote " inside \' and - minus',
      'or NOT plain words',
      'unicode ünïcödé 東京 emoji 🎉 mark',
    ];
    await store.append(run, [headerFor(run), ...texts.map((text) => textRecord(run, text))]);
    const hostile = [
      'col:value',
      'text:col',
      'NEAR(a b)',
      'prefix*',
      '*',
      '^caret',
      'AND',
      'a OR b',
      'NOT plain',
      '"unbalanced',
      '"" ""',
      '(col',
      '{col}',
      '-minus',
      "'",
      '\\',
      '%',
      'ünïcödé',
      '東京',
      '🎉 mark',
      'x NEAR/3 y',
      "'; DROP TABLE x; --",
      '\u0000null',
    ];
    for (const text of hostile) {
      let hits: readonly RunSearchHit[];
      try {
        hits = (await store.search({ text })).hits;
      } catch (error) {
        expect((error as { code?: string }).code, text).toBe('VALIDATION_ERROR');
        continue;
      }
      const words = searchTokens(text);
      for (const hit of hits) {
        expect(hit.run_id, text).toBe(run);
        const tokens = new Set(searchTokens(texts[hit.position - 2] ?? ''));
        for (const word of words)
          expect(tokens.has(word), `${text} found #${hit.position}`).toBe(true);
      }
    }
    expect(placesOf((await store.search({ text: 'NOT' })).hits)).toEqual(['00f#5']);
    expect(placesOf((await store.search({ text: 'col:value' })).hits)).toEqual(['00f#2']);
  });
}
