import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSession, type RunRecord, type SessionState, type SessionStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import { describe, expect, it } from 'vitest';
import { episodic, temporaryDirectory, temporaryHome } from './helpers.js';

// Files of every format version live in fixtures/formats/<format>/<version>/: files this version
// writes, the seeds' own examples, and files a newer minor version could write (unknown fields,
// record types, item kinds, enum values). Each must load, and be written back unchanged: a change
// that breaks an old file fails here.

const FORMATS = fileURLToPath(new URL('../../../fixtures/formats/', import.meta.url));

function fixtures(folder: string): string[] {
  return readdirSync(join(FORMATS, folder))
    .filter((name) => /\.jsonl?$/.test(name))
    .sort();
}

function linesOf(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** Puts a run file where store-fs files it (the UTC date of its header's started_at). */
function placeRunFile(home: string, path: string): { runId: string; target: string } {
  const header = JSON.parse(linesOf(path)[0] as string) as { run_id: string; started_at: string };
  const date = new Date(header.started_at);
  const folder = join(
    home,
    'sessions',
    String(date.getUTCFullYear()),
    String(date.getUTCMonth() + 1).padStart(2, '0'),
    String(date.getUTCDate()).padStart(2, '0'),
  );
  mkdirSync(folder, { recursive: true });
  const target = join(folder, `${header.run_id}.jsonl`);
  copyFileSync(path, target);
  return { runId: header.run_id, target };
}

describe('run files (run-file/v1)', () => {
  for (const name of fixtures('run-file/v1')) {
    it(`${name}: reads every record unchanged, and an export → import writes the same bytes`, async () => {
      const path = join(FORMATS, 'run-file/v1', name);
      const home = temporaryHome();
      const { runId } = placeRunFile(home, path);
      const store = createFsStore({ root: home, durability: 'none' });
      try {
        const read = await store.runs.read(runId);
        expect(read.errors).toEqual([]);
        expect(read.records).toEqual(linesOf(path).map((line) => JSON.parse(line) as RunRecord));
      } finally {
        await store.close();
      }
      const exported = join(temporaryDirectory(), 'run.jsonl');
      expect(
        (
          await episodic([
            'export',
            '--run-id',
            runId,
            '-o',
            exported,
            '--home',
            home,
            '--store',
            'fs',
            '-q',
          ])
        ).status,
      ).toBe(0);
      for (const kind of ['fs', 'sqlite'] as const) {
        const other = temporaryHome();
        const imported = await episodic([
          'import',
          exported,
          '--home',
          other,
          '--store',
          kind,
          '-q',
        ]);
        expect(imported.status, imported.stderr).toBe(0);
        if (kind === 'fs') {
          const { target } = placeRunFile(temporaryHome(), path);
          const written = readdirSync(join(other, 'sessions'), { recursive: true }).find((file) =>
            String(file).endsWith(`${runId}.jsonl`),
          );
          expect(readFileSync(join(other, 'sessions', String(written)), 'utf8')).toBe(
            readFileSync(target, 'utf8'),
          );
        } else {
          const again = join(temporaryDirectory(), 'again.jsonl');
          await episodic([
            'export',
            '--run-id',
            runId,
            '-o',
            again,
            '--home',
            other,
            '--store',
            'sqlite',
            '-q',
          ]);
          expect(readFileSync(again, 'utf8')).toBe(readFileSync(exported, 'utf8'));
        }
      }
    });
  }
});

async function withStore(
  kind: 'fs' | 'sqlite',
  work: (sessions: SessionStore, home: string) => Promise<void>,
) {
  const home = temporaryHome();
  mkdirSync(home, { recursive: true });
  // The fixtures' deltas are replayed as stored: no commit folds on its own (a fold is asked for).
  const fold = { currentUpToBytes: 0 };
  const store =
    kind === 'fs'
      ? createFsStore({ root: home, durability: 'none', fold })
      : createSqliteStore({ filename: join(home, 'episodic.db'), fold });
  try {
    await work(store.sessions, home);
  } finally {
    await store.close();
  }
}

describe.each(['fs', 'sqlite'] as const)(
  'session snapshots (session-state/v1, %s store)',
  (kind) => {
    for (const name of fixtures('session-state/v1')) {
      it(`${name}: loads unchanged, and a new turn keeps every field and episode it did not write`, async () => {
        const text = readFileSync(join(FORMATS, 'session-state/v1', name), 'utf8');
        const fixture = JSON.parse(text) as SessionState;
        await withStore(kind, async (sessions, home) => {
          if (kind === 'fs') {
            mkdirSync(join(home, 'sessions', 'state'), { recursive: true });
            copyFileSync(
              join(FORMATS, 'session-state/v1', name),
              join(home, 'sessions', 'state', `${fixture.session_id}.json`),
            );
          } else {
            await sessions.save(fixture, { expectedRevision: null });
          }
          expect(await sessions.load(fixture.session_id)).toEqual(fixture);

          const session = await loadSession(sessions, fixture.session_id, {
            now: () => new Date('2028-01-01T00:00:00.000Z'),
          });
          await session.runTurn('One more question', async () => ({
            output: [{ type: 'message', role: 'assistant', content: 'One more answer.' }],
          }));
          const saved = (await sessions.load(fixture.session_id)) as SessionState &
            Record<string, unknown>;
          // Fields this version does not write itself are carried over as they were.
          for (const [field, value] of Object.entries(fixture)) {
            if (
              [
                'updated_at',
                'messages',
                'episodic',
                'revision',
                'invoke_seq',
                'schema_version',
              ].includes(field)
            )
              continue;
            expect(saved[field], field).toEqual(value);
          }
          expect(saved.revision).toBe((fixture.revision ?? 0) + 1);
          expect(saved.invoke_seq).toBe((fixture.invoke_seq ?? 0) + 1);
          // The first commit after a version 1 snapshot folds it into a version 2 base.
          expect(saved.schema_version).toBe(2);
          expect((await sessions.read(fixture.session_id))?.deltas).toEqual([]);
          if (typeof fixture.episodic === 'string') {
            // The old episodes are written back byte for byte, the new turn after them.
            const before = fixture.episodic.split('\n').filter((line) => line !== '');
            const after = (saved.episodes ?? []).map((episode) => JSON.stringify(episode));
            expect(after.slice(0, before.length)).toEqual(before);
            expect(after.length).toBeGreaterThan(before.length);
          } else {
            // A seed 001 snapshot (messages only): its conversation is still there, then the turn.
            expect(JSON.stringify(saved.messages)).toContain(
              'Here are the files: AGENTS.md, RULES.md, packages.',
            );
          }
          expect(JSON.stringify(saved.messages.at(-1))).toContain('One more answer.');
        });
      });
    }
  },
);

describe.each(['fs', 'sqlite'] as const)(
  'session snapshots (session-state/v2: a base and deltas, %s store)',
  (kind) => {
    for (const name of fixtures('session-state/v2').filter((file) => file.endsWith('.json'))) {
      it(`${name}: loads, keeps every field and episode it does not write, and a new turn and a fold write them back`, async () => {
        const basePath = join(FORMATS, 'session-state/v2', name);
        const deltasPath = basePath.replace(/\.json$/, '.deltas.jsonl');
        const fixture = JSON.parse(readFileSync(basePath, 'utf8')) as SessionState &
          Record<string, unknown>;
        const deltaLines = linesOf(deltasPath);
        await withStore(kind, async (sessions, home) => {
          if (kind === 'fs') {
            mkdirSync(join(home, 'sessions', 'state'), { recursive: true });
            copyFileSync(basePath, join(home, 'sessions', 'state', `${fixture.session_id}.json`));
            copyFileSync(
              deltasPath,
              join(home, 'sessions', 'state', `${fixture.session_id}.deltas.jsonl`),
            );
          } else {
            // SQLite has no file to copy: the same base, then the same commits through the store.
            await sessions.save(fixture, { expectedRevision: null });
            for (const line of deltaLines) {
              const delta = JSON.parse(line);
              await sessions.commit({
                sessionId: fixture.session_id,
                expectedRevision: delta.revision - 1,
                delta,
              });
            }
          }
          const stored = await sessions.read(fixture.session_id);
          expect(stored?.deltas.map((delta) => JSON.stringify(delta))).toEqual(deltaLines);
          const loaded = (await sessions.load(fixture.session_id)) as SessionState &
            Record<string, unknown>;
          const lastDelta = JSON.parse(deltaLines.at(-1) as string);
          expect(loaded.revision).toBe(lastDelta.revision);
          // Every episode, the base's and the deltas', byte for byte.
          const episodes = [
            ...(fixture.episodes ?? []),
            ...deltaLines.flatMap((line) => JSON.parse(line).episodes ?? []),
          ].map((episode) => JSON.stringify(episode));
          expect((loaded.episodes ?? []).map((episode) => JSON.stringify(episode))).toEqual(
            episodes,
          );

          const session = await loadSession(sessions, fixture.session_id, {
            now: () => new Date('2028-01-01T00:00:00.000Z'),
          });
          await session.runTurn('One more question', async () => ({
            output: [{ type: 'message', role: 'assistant', content: 'One more answer.' }],
          }));
          await sessions.fold(fixture.session_id);
          const folded = (await sessions.load(fixture.session_id)) as SessionState &
            Record<string, unknown>;
          for (const [field, value] of Object.entries(fixture)) {
            if (
              [
                'updated_at',
                'messages',
                'episodes',
                'revision',
                'invoke_seq',
                'context',
                'episode_count',
                'message_count',
                'last_user_message',
              ].includes(field)
            )
              continue;
            expect(folded[field], field).toEqual(value);
          }
          expect(folded.revision).toBe(lastDelta.revision + 1);
          const after = (folded.episodes ?? []).map((episode) => JSON.stringify(episode));
          expect(after.slice(0, episodes.length)).toEqual(episodes);
          expect(JSON.stringify(folded.messages.at(-1))).toContain('One more answer.');
        });
      });
    }
  },
);

/** Exports `home` whole and returns the file's text. */
async function exportAll(home: string, kind: 'fs' | 'sqlite'): Promise<string> {
  const again = join(temporaryDirectory(), 'again.jsonl');
  const exported = await episodic([
    'export',
    '--all',
    '--all-scopes',
    '-o',
    again,
    '--home',
    home,
    '--store',
    kind,
    '-q',
  ]);
  expect(exported.status, exported.stderr).toBe(0);
  return readFileSync(again, 'utf8');
}

async function importFixture(path: string, kind: 'fs' | 'sqlite'): Promise<string> {
  const home = temporaryHome();
  const imported = await episodic(['import', path, '--home', home, '--store', kind, '-q']);
  expect(imported.status, imported.stderr).toBe(0);
  return home;
}

describe.each(['fs', 'sqlite'] as const)('export files (%s store)', (kind) => {
  for (const name of fixtures('export/v2')) {
    it(`v2 ${name}: imports, and exporting again gives identical bytes`, async () => {
      const path = join(FORMATS, 'export/v2', name);
      expect(await exportAll(await importFixture(path, kind), kind)).toBe(
        readFileSync(path, 'utf8'),
      );
    });
  }
  for (const name of fixtures('export/v1')) {
    it(`v1 ${name}: imports, and exports as v2 with every line unchanged but the header's format and the end's new counts`, async () => {
      const path = join(FORMATS, 'export/v1', name);
      const v1 = readFileSync(path, 'utf8').split('\n');
      const v2 = (await exportAll(await importFixture(path, kind), kind)).split('\n');
      expect(v2.length).toBe(v1.length);
      expect(JSON.parse(v2[0] as string)).toEqual({
        ...JSON.parse(v1[0] as string),
        format: 'episodic.export.v2',
      });
      expect(v2.slice(1, -2)).toEqual(v1.slice(1, -2));
      const end = JSON.parse(v1.at(-2) as string);
      expect(JSON.parse(v2.at(-2) as string)).toEqual({
        ...end,
        counts: { ...end.counts, artifacts: 0, episode_metadata: 0 },
      });
    });
  }
});
