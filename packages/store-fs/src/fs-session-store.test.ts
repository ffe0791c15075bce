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

  it('keeps a snapshot without fsync under durability none, still atomically', async () => {
    const path = root();
    const store = open(path, { durability: 'none' });
    await store.sessions.save(state(1));
    await store.sessions.save(state(2), { expectedRevision: 1 });
    expect((await store.sessions.load(SESSION_ID))?.revision).toBe(2);
    expect(fs.readdirSync(join(path, 'sessions', 'state'))).toEqual([`${SESSION_ID}.json`]);
  });
});
