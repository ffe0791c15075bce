import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, type ModelCall } from '@episodic/core';
import { sessionEpisodeRef } from '@episodic/core/schemas';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import { exportReceiptSchema, importReceiptSchema } from '../src/receipts/index.js';
import {
  appendEvent,
  episodic,
  episodicJson,
  temporaryDirectory,
  temporaryHome,
} from './helpers.js';

// Backups keep what was learned (issue 19, point 3): `export --all --all-scopes` holds patterns,
// reflections, checkpoint summaries, their associations and the metadata of the episodes they came
// from; importing it into an empty home gives back every listing the source showed, and exporting
// that home again gives the same bytes.

const model: ModelCall = async () => ({
  output: [{ type: 'message', role: 'assistant', content: 'The invoice adds up to 367.90.' }],
  usage: { inputTokens: 3, outputTokens: 2 },
});

async function run(home: string, args: string[]): Promise<Record<string, unknown>> {
  const result = await episodicJson(['--home', home, ...args]);
  expect(result.status, `${args.join(' ')}: ${result.stderr}${result.stdout}`).toBe(0);
  return result.receipt;
}

/** A task episode learned in `scope`, with steps (one failed) and metadata, completed. */
async function learnedTask(
  home: string,
  scope: string,
  description: string,
  team: string,
): Promise<string> {
  const created = await run(home, [
    'tasks',
    'create',
    '--scope',
    scope,
    '--description',
    description,
    '--domain',
    'web-api',
    '--task-type',
    'code_generation',
    '--tag',
    'api',
    '--metadata-json',
    JSON.stringify({ team }),
  ]);
  const id = (created.task as { id: string }).id;
  const steps = [
    ['architect', 'success'],
    ['code_generator', 'error'],
    ['test_runner', 'success'],
  ];
  for (const [index, [tool, result]] of steps.entries()) {
    await run(home, [
      'tasks',
      'step',
      id,
      '--scope',
      scope,
      '--step',
      String(index + 1),
      '--tool',
      tool as string,
      '--action',
      `run ${tool}`,
      '--result',
      result as string,
      ...(result === 'error' ? ['--message', 'redis down'] : ['--output', 'ok']),
    ]);
  }
  await run(home, [
    'tasks',
    'complete',
    id,
    '--scope',
    scope,
    '--outcome',
    'success',
    '--verdict',
    'done',
  ]);
  return id;
}

/** A home with task episodes in two scopes, ledger events (one redacted), a session and a checkpoint. */
async function sourceHome(): Promise<{
  home: string;
  tasks: Record<string, string[]>;
  sessionId: string;
}> {
  const home = temporaryHome();
  const tasks = {
    'team-a': [
      await learnedTask(home, 'team-a', 'Add rate limiting', 'infra'),
      await learnedTask(home, 'team-a', 'Add caching', 'web'),
    ],
    'team-b': [await learnedTask(home, 'team-b', 'Add rate limiting', 'infra')],
  };
  await appendEvent(home, {
    scope: 'team-a',
    'session-id': 's1',
    type: 'conversation.user',
    summary: 'asked',
  });
  const secret = await appendEvent(home, {
    scope: 'team-a',
    'session-id': 's1',
    summary: 'secret plan',
    'payload-json': '{"x":1}',
    'metadata-json': '{"k":"v"}',
  });
  await appendEvent(home, { scope: 'team-b', 'session-id': 's9', summary: 'other team' });
  await run(home, [
    'episodes',
    'redact',
    '--scope',
    'team-a',
    '--event-id',
    secret.event_id as string,
    '--runs',
    'none',
  ]);

  // A session and a compaction summary of its first episodes, as the demo's session writes them.
  const store = createSqliteStore({ filename: join(home, 'episodic.db') });
  let sessionId: string;
  try {
    const session = createSession({ store: store.sessions, context: { project: 'demo' } });
    await session.runTurn('What does the invoice add up to?', model);
    sessionId = session.id;
    await store.artifacts.setEpisodeMetadata(sessionEpisodeRef(sessionId, 1), { source: 'demo' });
    await store.artifacts.upsert({
      key: `checkpoint:${sessionId}:3`,
      kind: 'checkpoint',
      content: { title: 'Compaction', summary: 'The user asked for the invoice total.' },
      episodes: [sessionEpisodeRef(sessionId, 1), sessionEpisodeRef(sessionId, 2)],
    });
  } finally {
    await store.close();
  }
  return { home, tasks, sessionId };
}

/** A receipt without what differs between two homes by nature (the time, the store). */
function stable(receipt: Record<string, unknown>): Record<string, unknown> {
  const { ts: _ts, version: _version, store: _store, store_source: _source, ...rest } = receipt;
  return rest;
}

/** Every listing a user can ask for, as receipts. */
async function listings(
  home: string,
  source: { tasks: Record<string, string[]>; sessionId: string },
) {
  const out: Record<string, unknown> = {};
  const add = async (args: string[]) => {
    out[args.join(' ')] = stable(await run(home, args));
  };
  await add(['runs', 'list']);
  await add(['sessions', 'list']);
  await add(['sessions', 'show', source.sessionId]);
  await add(['scopes', 'list']);
  await add(['episodes', 'query', '--all-scopes', '--include-payload', '--limit', '500']);
  await add(['episodes', 'replay', 's1', '--scope', 'team-a', '--include-payload']);
  for (const [scope, ids] of Object.entries(source.tasks)) {
    await add(['tasks', 'list', '--scope', scope]);
    for (const id of ids) {
      await add(['tasks', 'show', id, '--scope', scope]);
      await add(['tasks', 'timeline', id, '--scope', scope]);
      await add(['runs', 'show', id]);
      await add(['patterns', 'search', '--scope', scope, '--task', id]);
    }
    await add(['patterns', 'search', '--scope', scope]);
    await add(['patterns', 'search', '--scope', scope, '--kind', 'reflection']);
    await add(['patterns', 'search', '--scope', scope, '--metadata', 'team=infra']);
    const found = (await run(home, ['patterns', 'search', '--scope', scope])).patterns as {
      key: string;
    }[];
    for (const { key } of found) await add(['patterns', 'show', key, '--scope', scope]);
  }
  await add(['patterns', 'search', '--kind', 'checkpoint', '--metadata', 'source=demo']);
  return out;
}

describe('export --all --all-scopes keeps what was learned', () => {
  it('round-trips every listing into an empty home of either store, byte for byte', {
    timeout: 300_000,
  }, async () => {
    const source = await sourceHome();
    const before = await listings(source.home, source);
    const learned = before['patterns search --scope team-a'] as { count: number };
    expect(learned.count).toBeGreaterThanOrEqual(3);
    expect(
      (before['patterns search --scope team-a --metadata team=infra'] as { count: number }).count,
    ).toBeGreaterThan(0);
    expect(
      (before['patterns search --kind checkpoint --metadata source=demo'] as { count: number })
        .count,
    ).toBe(1);

    const backup = join(temporaryDirectory('episodic-backup-'), 'backup.jsonl');
    const exported = exportReceiptSchema.parse(
      await run(source.home, ['export', '--all', '--all-scopes', '-o', backup]),
    );
    expect(exported.counts.artifacts).toBeGreaterThan(learned.count);
    expect(exported.counts.episode_metadata).toBeGreaterThanOrEqual(4);
    const lines = readFileSync(backup, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'export.header', format: 'episodic.export.v2' });
    expect(
      lines
        .filter((line) => line.type === 'artifact')
        .map((line) => line.artifact.kind)
        .sort(),
    ).toContain('reflection');

    for (const store of ['sqlite', 'fs'] as const) {
      const target = temporaryHome();
      const imported = importReceiptSchema.parse(
        await run(target, ['--store', store, 'import', backup]),
      );
      expect(imported.written).toEqual(exported.counts);
      // A home created by the import records its store, so listings need no --store.
      const after = await listings(target, source);
      expect(after).toEqual(before);
      const again = join(temporaryDirectory('episodic-backup-'), 'again.jsonl');
      await run(target, ['export', '--all', '--all-scopes', '-o', again]);
      expect(readFileSync(again, 'utf8')).toBe(readFileSync(backup, 'utf8'));
      // Importing again changes nothing: everything is already there.
      const repeat = importReceiptSchema.parse(await run(target, ['import', backup]));
      expect(repeat.written).toEqual({
        sessions: 0,
        runs: 0,
        records: 0,
        events: 0,
        artifacts: 0,
        episode_metadata: 0,
      });
      expect(repeat.skipped).toMatchObject({
        artifacts: exported.counts.artifacts,
        episode_metadata: exported.counts.episode_metadata,
      });
    }
  });

  it('exports the artifacts of one scope, and only those learned from a selected session', {
    timeout: 120_000,
  }, async () => {
    const source = await sourceHome();
    const scoped = join(temporaryDirectory('episodic-backup-'), 'team-b.jsonl');
    await run(source.home, ['export', '--all', '--scope', 'team-b', '-o', scoped]);
    const keys = readFileSync(scoped, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.type === 'artifact')
      .map((line) => line.artifact.key as string);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith('scope=team-b@'))).toBe(true);

    const session = join(temporaryDirectory('episodic-backup-'), 'session.jsonl');
    await run(source.home, [
      'export',
      '--session-id',
      source.sessionId,
      '--all-scopes',
      '-o',
      session,
    ]);
    const artifacts = readFileSync(session, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.type === 'artifact');
    expect(artifacts.map((line) => line.artifact.key)).toEqual([
      `checkpoint:${source.sessionId}:3`,
    ]);

    // A conflicting artifact is refused, and nothing is written.
    const target = temporaryHome();
    await run(target, ['import', session]);
    const changed = readFileSync(session, 'utf8').replace(
      'The user asked for the invoice total.',
      'Something else.',
    );
    const refused = await episodic(['--home', target, 'import', '-', '--json'], { input: changed });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(
      `artifact checkpoint:${source.sessionId}:3 exists with other content`,
    );
  });
});
