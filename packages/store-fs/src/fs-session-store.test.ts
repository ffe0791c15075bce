import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { SessionState } from '@episodic/core';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './__fixtures__/fs-harness.js';
import { createFsStore, type FsStoreOptions } from './index.js';

const SESSION_ID = '4d5e6f70-8192-4a3b-8c4d-5e6f708192a3';
const state = (revision: number): SessionState => ({
  schema_version: 1,
  session_id: SESSION_ID,
  updated_at: '2026-02-03T12:00:00.000Z',
  messages: [{ role: 'user', content: 'hello' }],
  revision,
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function root(): string {
  const directory = temporaryDirectory();
  cleanups.push(() => directory.remove());
  return directory.path;
}

function open(path: string, options: Omit<FsStoreOptions, 'root'> = {}) {
  const store = createFsStore({ root: path, ...options });
  cleanups.push(() => store.close());
  return store;
}

/** A live process that is not this one (its pid marks files as "in use"). */
function liveProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return child.pid as number;
}

const SESSION_TS = '2026-02-03T12:00:00.000Z';
const messageEpisode = (id: number, text: string) => ({
  id,
  type: 'item' as const,
  meta: { source: 'user' as const, ts: SESSION_TS },
  payload: { item: { type: 'message', role: 'user', content: text } },
});

/** Commits revision `revision` (one episode) of SESSION_ID, expecting `revision - 1`. */
function commitTurn(
  store: ReturnType<typeof open>,
  revision: number,
  context: Record<string, unknown> = {},
) {
  const episodes = Array.from({ length: revision }, (_, index) =>
    messageEpisode(index + 1, `turn ${index + 1}`),
  );
  return store.sessions.commit({
    sessionId: SESSION_ID,
    expectedRevision: revision === 1 ? null : revision - 1,
    delta: { revision, updated_at: SESSION_TS, episodes: episodes.slice(-1) },
    ...(revision === 1
      ? {
          state: {
            schema_version: 2,
            session_id: SESSION_ID,
            updated_at: SESSION_TS,
            context,
            revision,
            episodes,
            messages: [],
          },
        }
      : {}),
  });
}

describe('the fs session store', () => {
  it('writes sessions/state/<session_id>.json and finds it whatever the id’s case', async () => {
    const path = root();
    const store = open(path);
    await store.sessions.save({ ...state(1), session_id: SESSION_ID.toUpperCase() });
    const file = join(path, 'sessions', 'state', `${SESSION_ID}.json`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ revision: 1 });
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(1);
    expect((await store.sessions.load(SESSION_ID.toUpperCase()))?.revision).toBe(1);
    expect(fs.readdirSync(join(path, 'sessions', 'state'))).toEqual([`${SESSION_ID}.json`]);
  });

  // Pins T12 (research/reliability.md): "0 orphan *.tmp left; 0 live temp files of another running
  // pid removed".
  it('sweeps temp files of dead writers on open, and keeps those of live ones', async () => {
    const path = root();
    const directory = join(path, 'sessions', 'state');
    fs.mkdirSync(directory, { recursive: true });
    const live = liveProcess();
    const dead = `.${SESSION_ID}.json.2147483646.aaaaaaaaaaaa.tmp`;
    const inUse = `.${SESSION_ID}.json.${live}.bbbbbbbbbbbb.tmp`;
    const unrelated = 'notes.txt';
    for (const name of [dead, inUse, unrelated]) fs.writeFileSync(join(directory, name), 'x');
    open(path);
    expect(fs.readdirSync(directory).sort()).toEqual([inUse, unrelated].sort());
  });

  it('breaks a lock left by a dead process at once', async () => {
    const path = root();
    const store = open(path);
    await store.sessions.save(state(1));
    const lock = join(path, 'sessions', 'state', `${SESSION_ID}.json.lock`);
    fs.writeFileSync(lock, `2147483646\n${hostname()}\n${Date.now()}\nabc`);
    await store.sessions.save(state(2), { expectedRevision: 1 });
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(2);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('waits for a lock held by a live process, then fails with STORAGE_ERROR naming it', async () => {
    const path = root();
    const store = open(path, { lockTimeoutMs: 150 });
    await store.sessions.save(state(1));
    const lock = join(path, 'sessions', 'state', `${SESSION_ID}.json.lock`);
    const live = liveProcess();
    fs.writeFileSync(lock, `${live}\n${hostname()}\n${Date.now()}\nabc`);
    await expect(store.sessions.save(state(2))).rejects.toMatchObject({
      code: 'STORAGE_ERROR',
      message: expect.stringContaining(`process ${live}`),
    });
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(1);
    fs.rmSync(lock);
    await store.sessions.save(state(2));
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(2);
  });

  it('treats a lock from another host as abandoned only after staleLockMs', async () => {
    const path = root();
    const store = open(path, { lockTimeoutMs: 100, staleLockMs: 60_000 });
    await store.sessions.save(state(1));
    const lock = join(path, 'sessions', 'state', `${SESSION_ID}.json.lock`);
    fs.writeFileSync(lock, `1\nanother-host.example\n${Date.now()}\nabc`);
    await expect(store.sessions.save(state(2))).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    fs.writeFileSync(lock, `1\nanother-host.example\n${Date.now() - 120_000}\nabc`);
    await store.sessions.save(state(2));
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(2);
  });

  it('refuses to follow a snapshot that is a symbolic link', async () => {
    const path = root();
    const store = open(path);
    await store.sessions.save(state(1));
    const outside = temporaryDirectory('episodic-outside-');
    cleanups.push(() => outside.remove());
    const file = join(path, 'sessions', 'state', `${SESSION_ID}.json`);
    fs.renameSync(file, join(outside.path, 'state.json'));
    fs.symlinkSync(join(outside.path, 'state.json'), file);
    await expect(store.sessions.load(SESSION_ID)).rejects.toMatchObject({
      code: 'CORRUPT_DATA',
      message: expect.stringContaining('symbolic link'),
    });
    expect(await store.sessions.list()).toEqual([]);
  });

  it('checks every commit against what another store wrote since its own last commit', async () => {
    const path = root();
    const first = open(path);
    const second = open(path);
    await commitTurn(first, 1);
    await commitTurn(first, 2);
    // The second store appends: the first store's next commit must read the deltas again.
    await commitTurn(second, 3);
    await expect(commitTurn(first, 3)).rejects.toMatchObject({ code: 'CONFLICT' });
    await commitTurn(first, 4);
    // The second store saves a new base (as a fold or a redaction does) and drops the deltas.
    const loaded = await second.sessions.load(SESSION_ID);
    await second.sessions.save({ ...(loaded as SessionState), revision: 5 });
    await expect(commitTurn(first, 5)).rejects.toMatchObject({ code: 'CONFLICT' });
    await commitTurn(first, 6);
    const reopened = open(path);
    expect((await reopened.sessions.load(SESSION_ID))?.revision).toBe(6);
  });

  it('folds after fold.deltas commits past the base, and counts them again from a new base', async () => {
    const path = root();
    const store = open(path, {
      fold: { currentUpToBytes: 0, deltas: 3, minBytes: 1e9, share: 1000 },
    });
    const folded: boolean[] = [];
    for (let revision = 1; revision <= 8; revision++) {
      folded.push((await commitTurn(store, revision)).folded);
    }
    // Base at 1; deltas 2, 3, 4 fold into a base at 4; deltas 5, 6, 7 into one at 7.
    expect(folded).toEqual([false, false, false, true, false, false, true, false]);
    const stored = await store.sessions.read(SESSION_ID);
    expect(stored?.baseRevision).toBe(7);
    expect(stored?.deltas.map((delta) => delta.revision)).toEqual([8]);
    expect((await store.sessions.load(SESSION_ID))?.episodes).toHaveLength(8);
  });

  it('commits after a fold that died before dropping its deltas: drops them, counts only new ones', async () => {
    const path = root();
    const store = open(path, {
      fold: { currentUpToBytes: 0, deltas: 3, minBytes: 1e9, share: 1000 },
    });
    for (let revision = 1; revision <= 3; revision++) await commitTurn(store, revision);
    const deltas = join(path, 'sessions', 'state', `${SESSION_ID}.deltas.jsonl`);
    const covered = fs.readFileSync(deltas);
    await store.sessions.fold(SESSION_ID);
    // The fold's new base landed, its deltas (revisions 2 and 3) were not removed yet.
    fs.writeFileSync(deltas, covered);
    expect((await commitTurn(store, 4)).folded).toBe(false);
    // The covered deltas went with that commit: the file holds only the deltas past the base.
    const lines = fs.readFileSync(deltas, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).revision)).toEqual([4]);
    expect((await commitTurn(store, 5)).folded).toBe(false);
    expect((await commitTurn(store, 6)).folded).toBe(true);
    expect(fs.existsSync(deltas)).toBe(false);
    const loaded = await store.sessions.load(SESSION_ID);
    expect(loaded?.revision).toBe(6);
    expect(loaded?.episodes).toEqual([1, 2, 3, 4, 5, 6].map((n) => messageEpisode(n, `turn ${n}`)));
  });

  it('reads a base head longer than one read block, and guards commits on it', async () => {
    const path = root();
    const store = open(path);
    // A context of 200 KiB (with multi-byte characters) makes the head span several reads.
    const context = { notes: 'é€'.repeat(40_000) };
    await commitTurn(store, 1, context);
    await commitTurn(store, 2, context);
    await expect(commitTurn(store, 2, context)).rejects.toMatchObject({ code: 'CONFLICT' });
    await store.sessions.fold(SESSION_ID);
    await commitTurn(store, 3, context);
    const loaded = await store.sessions.load(SESSION_ID);
    expect(loaded).toMatchObject({ revision: 3, context });
    expect(loaded?.episodes).toHaveLength(3);
    expect(await store.sessions.list()).toMatchObject([{ sessionId: SESSION_ID, revision: 3 }]);
  });

  it('keeps a snapshot without fsync under durability none, still atomically', async () => {
    const path = root();
    const store = open(path, { durability: 'none' });
    await store.sessions.save(state(1));
    await store.sessions.save(state(2), { expectedRevision: 1 });
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(2);
    expect(fs.readdirSync(join(path, 'sessions', 'state'))).toEqual([`${SESSION_ID}.json`]);
  });
});
