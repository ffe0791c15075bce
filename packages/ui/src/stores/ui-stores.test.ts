import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, LONG_OUTPUT, type UiHome } from '../__fixtures__/ui-home.js';
import { createStoreAccess } from './ui-stores.js';

describe('createStoreAccess over run files (fs)', () => {
  let home: UiHome;
  beforeAll(async () => {
    home = await createUiHome();
  });
  afterAll(() => home.close());

  it('reads the tool-output cache and sizes runs by their files', async () => {
    const access = createStoreAccess(home.stores);
    try {
      expect(await access.readToolOutput('call_1')).toBe(LONG_OUTPUT);
      expect(await access.readToolOutput('call_404')).toBeNull();
      await expect(access.readToolOutput('../secret')).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
      const { runs } = await home.stores.runs.list({});
      const sizes = await access.runBytes(runs);
      expect(sizes.size).toBe(runs.length);
      const files = createFsStore({ root: home.home });
      const path = await files.locateRun(home.ids.toolRunId);
      await files.close();
      expect(sizes.get(home.ids.toolRunId)).toBe(statSync(path as string).size);
      expect(await access.listScopes()).toEqual(['other', 'proj']);
    } finally {
      await access.close();
    }
  });
});

describe('createStoreAccess over SQLite', () => {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-ui-sqlite-'));
  const sqlite = createSqliteStore({ filename: join(directory, 'episodic.db') });
  afterAll(async () => {
    await sqlite.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('sizes runs as their JSONL bytes and has no tool-output cache', async () => {
    const runId = '00000000-0000-4000-8000-000000000042';
    const records = [
      { type: 'header', schema_version: 1, run_id: runId, started_at: '2026-01-01T00:00:00.000Z' },
      {
        type: 'run.start',
        run_id: runId,
        ts: '2026-01-01T00:00:00.000Z',
        input: { type: 'text', text: 'héllo' },
      },
    ] as RunRecord[];
    await sqlite.runs.append(runId, records);
    const access = createStoreAccess({
      runs: sqlite.runs,
      sessions: sqlite.sessions,
      ledger: sqlite.ledger,
      artifacts: sqlite.artifacts,
      location: { home: directory, database: join(directory, 'episodic.db'), store: 'sqlite' },
      sqlite,
    });
    const jsonl = records.map((record) => `${JSON.stringify(record)}\n`).join('');
    const sizes = await access.runBytes((await sqlite.runs.list({})).runs);
    expect(sizes.get(runId)).toBe(Buffer.byteLength(jsonl));
    expect(await access.readToolOutput('call_1')).toBeNull();
    expect(await access.listScopes()).toEqual([]);
    await sqlite.ledger.append({
      scope: 'b',
      session_id: 's',
      agent_id: 'a',
      type: 'ops.decision',
      summary: 'x',
    });
    await sqlite.ledger.append({
      scope: 'a',
      session_id: 's',
      agent_id: 'a',
      type: 'ops.decision',
      summary: 'x',
    });
    expect(await access.listScopes()).toEqual(['a', 'b']);
    await access.close();
  });
});
