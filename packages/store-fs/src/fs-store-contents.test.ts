import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { countFsStoreFiles, createFsStore } from './index.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const RUN_IDS = ['0f0e0d0c-0b0a-4908-8706-000000000001', '0f0e0d0c-0b0a-4908-8706-000000000002'];
const SESSION_ID = '4d5e6f70-8192-4a3b-8c4d-5e6f708192a3';

describe('countFsStoreFiles', () => {
  it('counts the run files and snapshots a store wrote, and nothing else', async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const root = directory.path;
    expect(countFsStoreFiles(root)).toEqual({ runFiles: 0, snapshots: 0 });
    const store = createFsStore({ root, durability: 'none' });
    for (const [index, runId] of RUN_IDS.entries()) {
      await store.runs.append(runId, [
        {
          type: 'header',
          schema_version: 1,
          run_id: runId,
          started_at: `2026-01-0${index + 1}T10:00:00.000Z`,
        },
      ]);
    }
    await store.sessions.save({
      schema_version: 1,
      session_id: SESSION_ID,
      updated_at: '2026-01-02T10:00:00.000Z',
      messages: [],
    });
    await store.close();
    // Files the store would not read are not counted.
    fs.writeFileSync(join(root, 'sessions', '2026', '01', '01', 'notes.jsonl'), '{}\n');
    fs.writeFileSync(join(root, 'sessions', 'state', `${SESSION_ID}.json.123.tmp`), '{');
    const before = fs.readdirSync(root, { recursive: true }).sort();
    expect(countFsStoreFiles(root)).toEqual({ runFiles: 2, snapshots: 1 });
    expect(countFsStoreFiles(root, { atMost: 1 })).toEqual({ runFiles: 0, snapshots: 1 });
    expect(countFsStoreFiles(root, { atMost: 2 })).toEqual({ runFiles: 1, snapshots: 1 });
    expect(fs.readdirSync(root, { recursive: true }).sort()).toEqual(before);
  });

  it('reads a missing root or a file as empty and creates nothing', () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    expect(countFsStoreFiles(join(directory.path, 'missing'))).toEqual({
      runFiles: 0,
      snapshots: 0,
    });
    fs.writeFileSync(join(directory.path, 'file'), 'x');
    expect(countFsStoreFiles(join(directory.path, 'file'))).toEqual({ runFiles: 0, snapshots: 0 });
    expect(fs.readdirSync(directory.path)).toEqual(['file']);
  });
});
