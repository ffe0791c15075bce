import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTaskLifecycle, EpisodicError, redactRun } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, schemaVersionOf } from './migrations.js';
import { openSqliteDatabase } from './open-database.js';
import { buildArtifactScan } from './sqlite-artifact-store.js';
import { createSqliteStore } from './sqlite-store.js';

const TASK_1 = 'task:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const TASK_2 = 'task:7a2d3b5f-4c6e-4d8f-8a91-2b3c4d5e6f70';

const directories: string[] = [];
function temporaryFile(name = 'episodic.db'): string {
  const directory = mkdtempSync(join(tmpdir(), 'episodic-artifacts-'));
  directories.push(directory);
  return join(directory, name);
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

describe('SQLite artifact scans (EXPLAIN QUERY PLAN)', () => {
  // Pins the cost model the README states: a page of artifacts costs the rows it returns, because
  // every scan walks an index in key order (no table scan, no sort).
  const planOf = (scan: Parameters<typeof buildArtifactScan>[0]) => {
    const database = openSqliteDatabase(':memory:');
    const { sql, parameters } = buildArtifactScan(scan);
    const rows = database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{
      detail: string;
    }>;
    database.close();
    return rows.map((row) => row.detail).join('\n');
  };

  it('walks the primary key, the (kind, key) index or the (episode_ref, artifact_key) index', () => {
    const all = planOf({ limit: 200, afterKey: 'p:1' });
    expect(all).toMatch(/SEARCH a USING INDEX sqlite_autoindex_episodic_artifacts_1 \(key>\?\)/);
    const byKind = planOf({ kind: 'pattern', limit: 200, afterKey: 'p:1' });
    expect(byKind).toMatch(
      /SEARCH a USING INDEX idx_episodic_artifacts_kind \(kind=\? AND key>\?\)/,
    );
    const byEpisode = planOf({ episode: TASK_1, kind: 'pattern', limit: 200, afterKey: 'p:1' });
    expect(byEpisode).toMatch(
      /SEARCH e USING COVERING INDEX idx_episodic_artifact_episodes_ref \(episode_ref=\? AND artifact_key>\?\)/,
    );
    for (const plan of [all, byKind, byEpisode]) {
      expect(plan).not.toMatch(/TEMP B-TREE/);
      expect(plan).not.toMatch(/^SCAN a$/m);
    }
  });
});

describe('SQLite artifact store', () => {
  it('keeps artifacts, associations and metadata across connections and reopening', async () => {
    const filename = temporaryFile();
    const writer = createSqliteStore({ filename });
    const reader = createSqliteStore({ filename });
    try {
      await writer.artifacts.setEpisodeMetadata(TASK_1, { tenant: 'acme', tags: ['a', 'b'] });
      await writer.artifacts.upsert({
        key: 'tool_sequence:1',
        kind: 'pattern',
        content: { tools: ['planner', 'coder'] },
        episodes: [TASK_1, TASK_2],
      });
      expect(await reader.artifacts.get('tool_sequence:1')).toMatchObject({
        content: { tools: ['planner', 'coder'] },
        episodes: [TASK_1, TASK_2],
        effectiveMetadata: { tenant: ['acme'], tags: ['a', 'b'] },
      });
    } finally {
      await writer.close();
      await reader.close();
    }
    const reopened = createSqliteStore({ filename });
    try {
      expect((await reopened.artifacts.list({ episode: TASK_2 })).artifacts).toHaveLength(1);
      expect(await reopened.artifacts.getEpisodeMetadata(TASK_1)).toEqual({
        tenant: 'acme',
        tags: ['a', 'b'],
      });
    } finally {
      await reopened.close();
    }
  });

  it('deletes an episode all-or-nothing: a failure half-way leaves every row in place', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    try {
      await store.artifacts.setEpisodeMetadata(TASK_1, { tenant: 'acme' });
      await store.artifacts.upsert({
        key: 'a:only',
        kind: 'pattern',
        content: 1,
        episodes: [TASK_1],
      });
      await store.artifacts.upsert({
        key: 'b:shared',
        kind: 'pattern',
        content: 2,
        episodes: [TASK_1, TASK_2],
      });
      // The orphaned artifact is deleted last, after the metadata and associations: fail there.
      store.database.exec(
        `CREATE TRIGGER fail_artifact_delete BEFORE DELETE ON episodic_artifacts
         BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
      );
      const error = await store.artifacts.deleteEpisode(TASK_1).catch((caught: unknown) => caught);
      expect(EpisodicError.hasCode(error, 'STORAGE_ERROR')).toBe(true);
      expect(await store.artifacts.getEpisodeMetadata(TASK_1)).toEqual({ tenant: 'acme' });
      expect((await store.artifacts.get('a:only'))?.episodes).toEqual([TASK_1]);
      expect((await store.artifacts.get('b:shared'))?.episodes).toEqual([TASK_1, TASK_2]);
      store.database.exec('DROP TRIGGER fail_artifact_delete');
      expect(await store.artifacts.deleteEpisode(TASK_1)).toMatchObject({
        deletedArtifacts: ['a:only'],
        updatedArtifacts: ['b:shared'],
      });
    } finally {
      await store.close();
    }
  });

  it('reports stored JSON it cannot read as CORRUPT_DATA', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    try {
      await store.artifacts.upsert({ key: 'p:1', kind: 'pattern', content: 1, episodes: [TASK_1] });
      store.database.prepare("UPDATE episodic_artifacts SET content_json = '{torn'").run();
      const error = await store.artifacts.get('p:1').catch((caught: unknown) => caught);
      expect(EpisodicError.hasCode(error, 'CORRUPT_DATA')).toBe(true);
      expect((error as Error).message).toContain('artifact p:1');
    } finally {
      await store.close();
    }
  });

  it('leaves no copy of a deleted artifact in the database file (secure_delete)', async () => {
    const filename = temporaryFile();
    const store = createSqliteStore({ filename });
    const secret = 'artifact-secret-7f3a9c21e4b6';
    try {
      await store.artifacts.upsert({
        key: 'p:secret',
        kind: 'pattern',
        content: { note: secret.repeat(20) },
        episodes: [TASK_1],
      });
      await store.artifacts.deleteEpisode(TASK_1);
      store.database.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      await store.close();
    }
    expect(readFileSync(filename).includes(secret)).toBe(false);
  });

  it('redactRun (the library, no CLI) leaves no copy of a task metadata secret in the database or its -wal', async () => {
    const filename = temporaryFile();
    const store = createSqliteStore({ filename });
    // Fresh per run, and found by the secret detectors (aws_key).
    const fresh = () =>
      `AKIA${Array.from(randomBytes(16), (byte) => 'ABCDEFGHJKLMNPQRSTUVWXYZ234567'[byte % 30]).join('')}`;
    const value = fresh();
    const key = fresh();
    const files = () =>
      [filename, `${filename}-wal`]
        .filter((path) => existsSync(path))
        .map((path) => readFileSync(path));
    const copies = () =>
      [value, key].filter((secret) => files().some((bytes) => bytes.includes(secret)));
    try {
      const lifecycle = createTaskLifecycle({ runs: store.runs, artifacts: store.artifacts });
      const { id } = await lifecycle.createTask({
        task_description: 'Rotate the keys',
        domain: 'ops',
        task_type: 'analysis',
        metadata: { note: value, [`k-${key}`]: 'v' },
      });
      // The test can fail: both secrets are in the files, in the run and in the artifact store.
      expect(copies()).toEqual([value, key]);
      await redactRun(store, id);
      // While the store is still open (closing checkpoints the WAL, which would hide a copy).
      expect(copies()).toEqual([]);
      expect(await store.artifacts.getEpisodeMetadata(`task:${id}`)).toEqual({
        note: '[REDACTED:aws_key]',
        'k-[REDACTED:aws_key]': 'v',
      });
    } finally {
      await store.close();
    }
    expect(copies()).toEqual([]);
  });

  it('adds its tables to a version 3 database in place', () => {
    const filename = temporaryFile();
    const first = openSqliteDatabase(filename);
    first.exec(
      'DROP TABLE episodic_artifact_episodes; DROP TABLE episodic_artifacts; DROP TABLE episodic_episode_metadata',
    );
    first.pragma('user_version = 3');
    first.close();
    const database = openSqliteDatabase(filename);
    try {
      expect(schemaVersionOf(database)).toBe(SCHEMA_VERSION);
      const tables = database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'episodic_%'")
        .pluck()
        .all();
      expect(tables).toEqual(
        expect.arrayContaining([
          'episodic_artifacts',
          'episodic_artifact_episodes',
          'episodic_episode_metadata',
        ]),
      );
    } finally {
      database.close();
    }
  });

  it('serves the task lifecycle: patterns are stored on completion and collected on delete', async () => {
    const store = createSqliteStore({ filename: ':memory:' });
    try {
      const lifecycle = createTaskLifecycle({ runs: store.runs, artifacts: store.artifacts });
      const task = await lifecycle.createTask({
        task_description: 'Add rate limiting',
        domain: 'web-api',
        task_type: 'code_generation',
        metadata: { tenant: 'acme' },
      });
      await lifecycle.addStep({
        episode_id: task.id,
        step_number: 1,
        tool: 'planner',
        action: 'Plan the limiter',
        result: { type: 'success', output: 'token bucket' },
      });
      await lifecycle.addStep({
        episode_id: task.id,
        step_number: 2,
        tool: 'coder',
        action: 'Write the middleware',
        result: { type: 'success', output: 'done' },
      });
      const completed = await lifecycle.completeTask({
        episode_id: task.id,
        outcome_type: 'success',
        verdict: 'Limiter works',
      });
      const ref = `task:${task.id}`;
      const stored = await store.artifacts.list({ episode: ref, limit: 500 });
      expect(stored.artifacts.map((artifact) => artifact.key).sort()).toEqual(
        [...completed.patterns.map((pattern) => pattern.key), `reflection:${task.id}`].sort(),
      );
      expect(stored.artifacts[0]?.effectiveMetadata).toEqual({ tenant: ['acme'] });
      const receipt = await lifecycle.deleteTask({ episode_id: task.id, confirm: true });
      expect(receipt.deleted_artifacts).toHaveLength(stored.artifacts.length);
      expect((await store.artifacts.list({ limit: 500 })).artifacts).toEqual([]);
      expect(await store.artifacts.getEpisodeMetadata(ref)).toBeNull();
    } finally {
      await store.close();
    }
  });
});
