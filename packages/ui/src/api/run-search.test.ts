import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord, RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore, type SqliteStore } from '@episodic/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer } from '../server/start-ui-server.js';
import { runSearchPage } from './run-search.js';
import { recordIndexAt, runView } from './run-view.js';

const RUN_A = '00000000-0000-4000-8000-00000000000a';
const RUN_B = '00000000-0000-4000-8000-00000000000b';
const RUN_C = '00000000-0000-4000-8000-00000000000c';
const SESSION = '00000000-0000-4000-8000-000000000051';
const HOSTILE = '<script>alert(1)</script> kestrel';
const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

let root: string;
let sqlite: SqliteStore;

function run(runId: string, scope: string, words: string[], sessionId?: string): RunRecord[] {
  return [
    {
      type: 'header',
      schema_version: 1,
      run_id: runId,
      started_at: at(0),
      scope,
      ...(sessionId === undefined ? {} : { session_id: sessionId }),
    } as RunRecord,
    {
      type: 'run.start',
      run_id: runId,
      ts: at(1),
      input: { type: 'text', text: 'Look at the logs' },
    } as RunRecord,
    ...words.map(
      (word, index) =>
        ({
          type: 'tool.output',
          run_id: runId,
          ts: at(2 + index),
          tool: 'read_log',
          tool_call_id: `call_${index}`,
          result_raw: word,
        }) as RunRecord,
    ),
    {
      type: 'run.end',
      run_id: runId,
      ts: at(60),
      outcome: 'completed',
      final: 'done',
    } as RunRecord,
  ];
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'episodic-ui-run-search-'));
  sqlite = createSqliteStore({ filename: join(root, 'episodic.db') });
  await sqlite.runs.append(
    RUN_A,
    run(RUN_A, 'proj', ['kestrel nest found', 'nothing here', 'kestrel kestrel again'], SESSION),
  );
  await sqlite.runs.append(RUN_B, run(RUN_B, 'other', ['a kestrel elsewhere', HOSTILE]));
  await sqlite.runs.append(
    RUN_C,
    Array.from({ length: 250 }, (_, index) =>
      index === 0
        ? (run(RUN_C, 'proj', [])[0] as RunRecord)
        : ({
            type: 'run.status',
            run_id: RUN_C,
            ts: at(index),
            status: 'running',
            message: index === 230 ? 'the falcon landed' : `step ${index}`,
          } as RunRecord),
    ),
  );
});
afterAll(async () => {
  await sqlite.close();
  rmSync(root, { recursive: true, force: true });
});

describe('GET /api/search/runs', () => {
  it('finds run records best first with marked snippets and positions, every scope unless one is asked for', async () => {
    const page = await runSearchPage(sqlite.runs, { q: 'kestrel' });
    expect(page.query).toBe('kestrel');
    expect(page.next_cursor).toBeNull();
    expect(page.hits.map((hit) => `${hit.run_id.slice(-1)}@${hit.position}`).sort()).toEqual(
      ['a@3', 'a@5', 'b@3', 'b@4'].sort(),
    );
    // "kestrel kestrel again" ranks above a single match in a longer text.
    expect(page.hits[0]).toMatchObject({ run_id: RUN_A, position: 5, type: 'tool.output' });
    for (const hit of page.hits) expect(hit.snippet).toContain('«kestrel»');
    expect(page.hits[0]?.ts).toBe(at(4));

    const proj = await runSearchPage(sqlite.runs, { q: 'kestrel', scope: 'proj' });
    expect(new Set(proj.hits.map((hit) => hit.run_id))).toEqual(new Set([RUN_A]));
    const other = await runSearchPage(sqlite.runs, { q: 'nest', scope: 'other' });
    expect(other.hits).toEqual([]);
  });

  it('filters by run, session, type and time, and pages with the cursor', async () => {
    expect(
      (await runSearchPage(sqlite.runs, { q: 'kestrel', run: RUN_B })).hits.map((h) => h.run_id),
    ).toEqual([RUN_B, RUN_B]);
    expect(
      (await runSearchPage(sqlite.runs, { q: 'kestrel', session: SESSION })).hits.map(
        (hit) => hit.run_id,
      ),
    ).toEqual([RUN_A, RUN_A]);
    expect((await runSearchPage(sqlite.runs, { q: 'kestrel', type: 'run.end' })).hits).toEqual([]);
    const window = await runSearchPage(sqlite.runs, { q: 'kestrel', from: at(3), to: at(3) });
    expect(window.hits.map((hit) => hit.position).sort()).toEqual([4]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await runSearchPage(sqlite.runs, {
        q: 'kestrel',
        limit: '3',
        ...(cursor === null ? {} : { cursor }),
      });
      seen.push(...page.hits.map((hit) => `${hit.run_id}@${hit.position}`));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
  });

  it('names the bad parameter: no words, a run id that is not a UUID, a damaged cursor, an unknown field', async () => {
    for (const [query, field] of [
      [{ q: '  ' }, 'q'],
      [{ q: 'kestrel', run: 'nope' }, 'run'],
      [{ q: 'kestrel', cursor: 'garbage' }, 'cursor'],
      [{ q: 'kestrel', from: 'yesterday' }, 'from'],
      [{ q: 'kestrel', sort: 'x' }, 'sort'],
    ] as const) {
      await expect(
        runSearchPage(sqlite.runs, query as Record<string, string>),
        JSON.stringify(query),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining(field),
      });
    }
  });

  it('returns hostile record text as text in the snippet', async () => {
    const page = await runSearchPage(sqlite.runs, { q: '<script>alert(1)</script> kestrel' });
    expect(page.hits.map((hit) => hit.position)).toEqual([4]);
    expect(page.hits[0]?.snippet).toContain('«kestrel»');
    expect(page.hits[0]?.snippet).toContain('</script»>');
  });

  it('a hit opens its run at the page holding that record (?at=position)', async () => {
    const hit = (await runSearchPage(sqlite.runs, { q: 'falcon' })).hits[0];
    expect(hit).toMatchObject({ run_id: RUN_C, position: 231, type: 'run.status' });
    const view = await runView(sqlite.runs, RUN_C, { at: String(hit?.position) });
    expect(view.from).toBe(200);
    expect(view.at_index).toBe(230);
    const record = view.records.find((item) => item.index === view.at_index);
    expect(record?.summary).toContain('falcon');
    // Without `at`, the first page; a position past the end is null and keeps `from`.
    expect((await runView(sqlite.runs, RUN_C, {})).at_index).toBeNull();
    const past = await runView(sqlite.runs, RUN_C, { at: '999', from: '0' });
    expect(past).toMatchObject({ at_index: null, from: 0 });
    await expect(runView(sqlite.runs, RUN_C, { at: '0' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    // Damaged lines count as positions, not as records.
    const damaged = {
      records: [{}, {}, {}] as RunRecord[],
      errors: [{ line: 2, message: '', excerpt: '' }],
    };
    expect(recordIndexAt(damaged, 1)).toBe(0);
    expect(recordIndexAt(damaged, 2)).toBeNull();
    expect(recordIndexAt(damaged, 3)).toBe(1);
    expect(recordIndexAt(damaged, 4)).toBe(2);
    expect(recordIndexAt(damaged, 5)).toBeNull();
  });

  it('run files keep no index: 501 UNSUPPORTED with a plain message, and the overview says so', async () => {
    const files = createFsStore({ root: join(root, 'files'), durability: 'none' });
    try {
      await expect(runSearchPage(files.runs, { q: 'kestrel' })).rejects.toMatchObject({
        code: 'UNSUPPORTED',
        message: expect.stringContaining('Runs page'),
      });
      const ui = await startUiServer({
        stores: {
          runs: files.runs as RunStore,
          sessions: files.sessions,
          ledger: sqlite.ledger,
          artifacts: sqlite.artifacts,
          location: { home: root, database: join(root, 'episodic.db'), store: 'fs' },
          sqlite,
        },
        port: 0,
      });
      try {
        const headers = { authorization: `Bearer ${ui.token}` };
        const response = await fetch(`${ui.origin}/api/search/runs?q=kestrel`, { headers });
        expect(response.status).toBe(501);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('UNSUPPORTED');
        expect(body.error.message).toContain('keep no search index');
        const overview = await fetch(`${ui.origin}/api/overview`, { headers });
        expect(((await overview.json()) as { run_search: boolean }).run_search).toBe(false);
      } finally {
        await ui.close();
      }
    } finally {
      await files.close();
    }
  });

  it('is served at /api/search/runs (and the overview says the runs are searchable)', async () => {
    const ui = await startUiServer({
      stores: {
        runs: sqlite.runs,
        sessions: sqlite.sessions,
        ledger: sqlite.ledger,
        artifacts: sqlite.artifacts,
        location: { home: root, database: join(root, 'episodic.db'), store: 'sqlite' },
        sqlite,
      },
      port: 0,
    });
    try {
      const headers = { authorization: `Bearer ${ui.token}` };
      const response = await fetch(`${ui.origin}/api/search/runs?q=kestrel&scope=proj`, {
        headers,
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { hits: Array<{ run_id: string }> };
      expect(body.hits.map((hit) => hit.run_id)).toEqual([RUN_A, RUN_A]);
      const overview = await fetch(`${ui.origin}/api/overview`, { headers });
      expect(((await overview.json()) as { run_search: boolean }).run_search).toBe(true);
    } finally {
      await ui.close();
    }
  });
});
