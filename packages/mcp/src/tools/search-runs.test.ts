import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectedClient, connect, countingStores } from '../__fixtures__/mcp-harness.js';
import type { EpisodicMcpStores, EpisodicToolsOptions } from '../episodic-tools.js';
import { EPISODIC_TOOL_OUTPUT_SCHEMAS } from './tool-output-schemas.js';

const open: ConnectedClient[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
async function serve(options: EpisodicToolsOptions) {
  const connected = await connect(options);
  open.push(connected);
  return connected;
}
afterEach(async () => {
  for (const connected of open.splice(0)) await connected.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const OTHER_RUN = '00000000-0000-4000-8000-000000000099';
const T0 = '2026-01-21T10:00:00.000Z';

/**
 * Two task episodes of scope "proj" (created through the tools, so the server stamps their scope;
 * one for tenant acme, one for tenant other) and a run of scope "elsewhere" holding the same words.
 */
async function seed(stores: EpisodicMcpStores) {
  const proj = await serve({ stores, scope: 'proj' });
  const ids: string[] = [];
  for (const [description, tenant] of [
    ['fix the kestrel timeout in billing', 'acme'],
    ['add a kestrel retry to billing', 'other'],
  ] as const) {
    const created = await proj.call('create_episode', {
      task_description: description,
      domain: 'web-api',
      task_type: 'debugging',
      metadata: { tenant },
    });
    expect(created.isError, created.text).toBe(false);
    ids.push(created.body.episode_id);
    const step = await proj.call('add_episode_step', {
      episode_id: created.body.episode_id,
      step_number: 1,
      tool: 'grep',
      action: 'look for the kestrel config',
      result: { type: 'success', output: 'found kestrel.toml' },
    });
    expect(step.isError, step.text).toBe(false);
  }
  await stores.runs.append(OTHER_RUN, [
    {
      type: 'header',
      schema_version: 1,
      run_id: OTHER_RUN,
      started_at: T0,
      scope: 'elsewhere',
    } as RunRecord,
    {
      type: 'run.start',
      run_id: OTHER_RUN,
      ts: T0,
      input: { type: 'text', text: 'kestrel billing secret of another scope' },
    } as RunRecord,
  ]);
  return { acmeTask: ids[0] as string, otherTask: ids[1] as string };
}

function sqliteStores(): EpisodicMcpStores {
  const sqlite = createSqliteStore({ filename: ':memory:' });
  cleanups.push(() => sqlite.close());
  return { ledger: sqlite.ledger, runs: sqlite.runs, artifacts: sqlite.artifacts };
}

describe('search_runs', () => {
  for (const [name, makeStores] of [
    ['the memory stores', () => countingStores().stores],
    ['SQLite', sqliteStores],
  ] as const) {
    it(`finds the records of the bound scope's runs only, with snippets and positions (${name})`, async () => {
      const stores = makeStores();
      const { acmeTask, otherTask } = await seed(stores);
      const proj = await serve({ stores, scope: 'proj' });
      const found = await proj.call('search_runs', { query: 'kestrel billing' });
      expect(found.isError, found.text).toBe(false);
      expect(EPISODIC_TOOL_OUTPUT_SCHEMAS.search_runs.safeParse(found.body).success).toBe(true);
      expect(found.structured).toEqual(found.body);
      expect(found.body).toMatchObject({ success: true, scope: 'proj', query: 'kestrel billing' });
      const runIds = new Set(found.body.hits.map((hit: { run_id: string }) => hit.run_id));
      expect(runIds).toEqual(new Set([acmeTask, otherTask]));
      expect(found.body.count).toBe(2);
      for (const hit of found.body.hits) {
        expect(hit.type).toBe('run.start');
        expect(hit.position).toBe(2);
        expect(hit.snippet).toContain('«kestrel»');
        expect(hit.snippet).toContain('«billing»');
        expect(Date.parse(hit.ts)).not.toBeNaN();
      }

      // The other scope's run holds the words too; its server finds it, and only it.
      const elsewhere = await serve({ stores, scope: 'elsewhere' });
      const theirs = await elsewhere.call('search_runs', { query: 'kestrel billing' });
      expect(theirs.body.hits.map((hit: { run_id: string }) => hit.run_id)).toEqual([OTHER_RUN]);
      expect(
        (await proj.call('search_runs', { query: 'secret' })).body.hits,
        'a word only another scope holds',
      ).toEqual([]);
      expect(
        (await proj.call('search_runs', { query: 'kestrel', run_id: OTHER_RUN })).body.hits,
        "another scope's run named by id",
      ).toEqual([]);

      // Filters: one run, a type, a time window that holds nothing.
      const steps = await proj.call('search_runs', {
        query: 'kestrel',
        run_id: acmeTask,
        types: ['agent.event'],
      });
      expect(steps.body.hits.length).toBeGreaterThan(0);
      for (const hit of steps.body.hits) {
        expect(hit).toMatchObject({ run_id: acmeTask, type: 'agent.event' });
      }
      const before = await proj.call('search_runs', { query: 'kestrel', until: 0 });
      expect(before.body.hits).toEqual([]);

      // Paging: every hit once, ending with a null cursor.
      const all = (await proj.call('search_runs', { query: 'kestrel', limit: 50 })).body.hits;
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        const outcome = await proj.call('search_runs', {
          query: 'kestrel',
          limit: 2,
          ...(cursor === null ? {} : { cursor }),
        });
        expect(outcome.isError, outcome.text).toBe(false);
        seen.push(
          ...outcome.body.hits.map(
            (hit: { run_id: string; position: number }) => `${hit.run_id}@${hit.position}`,
          ),
        );
        cursor = outcome.body.next_cursor;
        if (cursor === null) break;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(
        all.map((hit: { run_id: string; position: number }) => `${hit.run_id}@${hit.position}`),
      );
    });
  }

  it('never finds a run the access policy hides, and refuses another scope', async () => {
    const stores = countingStores().stores;
    const { acmeTask } = await seed(stores);
    const acme = await serve({
      stores,
      scope: 'proj',
      policy: { required: { tenant: 'acme' } } as never,
    });
    const found = await acme.call('search_runs', { query: 'kestrel', limit: 50 });
    expect(found.isError, found.text).toBe(false);
    expect(new Set(found.body.hits.map((hit: { run_id: string }) => hit.run_id))).toEqual(
      new Set([acmeTask]),
    );
    const refused = await acme.call('search_runs', { query: 'kestrel', scope: 'elsewhere' });
    expect(refused.isError).toBe(true);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error).toContain('scope');
  });

  it('answers bad input, and a run store without a search index (run files), with tool errors naming the fix', async () => {
    const mcp = await serve({ stores: countingStores().stores, scope: 'proj' });
    for (const [args, field] of [
      [{ query: '   ' }, 'text'],
      [{ query: 'x', cursor: 'nonsense' }, 'cursor'],
      [{ query: 'x', since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'since'],
      [{ query: 'x', types: [] }, 'types'],
    ] as const) {
      const outcome = await mcp.call('search_runs', args);
      expect(outcome.isError, JSON.stringify(args)).toBe(true);
      expect(outcome.body.code).toBe('VALIDATION_ERROR');
      expect(outcome.body.error, JSON.stringify(args)).toContain(field);
    }

    const root = mkdtempSync(join(tmpdir(), 'episodic-mcp-search-runs-'));
    const files = createFsStore({ root, durability: 'none' });
    const sqlite = createSqliteStore({ filename: ':memory:' });
    cleanups.push(async () => {
      await files.close();
      await sqlite.close();
      rmSync(root, { recursive: true, force: true });
    });
    const fileHome = await serve({
      stores: { ledger: sqlite.ledger, runs: files.runs, artifacts: sqlite.artifacts },
      scope: 'proj',
    });
    const unsupported = await fileHome.call('search_runs', { query: 'kestrel' });
    expect(unsupported.isError).toBe(true);
    expect(unsupported.body.code).toBe('UNSUPPORTED');
    expect(unsupported.body.error).toContain('keeps no search index');
    expect(unsupported.body.error).toContain('list_runs');
  });
});
